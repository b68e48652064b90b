#pragma once
// JSON documents checked against docs/*.schema.json by a standard JSON Schema
// validator (Debian's python3-jsonschema, through tests/tools/check_schema.py),
// for GoogleTest tests: each returns the validator's errors, empty when the
// document is valid.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fabscope::testing {

/// docs/NAME in the source tree.
std::string schema_path(const std::string& name);

/// Every docs/*.schema.json, sorted.
std::vector<std::string> all_schema_paths();

struct SchemaCheck {
    int exit_code = -1;               ///< 0 valid, 1 invalid, 2 unusable schema
    std::vector<std::string> output;  ///< every line the checker printed
};

/// check_schema.py SCHEMA FILES...; no files: the schema alone is checked.
SchemaCheck run_schema_check(const std::string& schema, const std::vector<std::string>& files);

/// check_schema.py on `schema` alone: written to a directory of its own (the
/// checker resolves $refs among a schema's neighbours), then removed.
SchemaCheck run_schema_check_of(const nlohmann::json& schema);

/// Errors of `doc` against docs/SCHEMA ("path: message" each); an unusable
/// schema or a checker that did not run is an error too.
std::vector<std::string> schema_errors(const nlohmann::json& doc, const std::string& schema);

/// Several documents in one run of the checker; errors start "document N: ".
std::vector<std::string> schema_errors(const std::vector<nlohmann::json>& docs,
                                       const std::string& schema);

/// The same for program output as text: text that is not JSON is an error.
std::vector<std::string> text_schema_errors(const std::string& text, const std::string& schema);
std::vector<std::string> texts_schema_errors(const std::vector<std::string>& texts,
                                             const std::string& schema);

}  // namespace fabscope::testing
