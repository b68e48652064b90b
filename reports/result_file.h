#pragma once
// A result file as `fabscope report` and the TUI's --perf read it: the text
// output of nccl-tests (told by its header, parsed as such) or a JSON
// document, read as a regular file under the JSON size limit, every error
// naming the file. What the JSON is (a snapshot, a perf or mesh run report)
// is each reader's to tell.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "formats/collective_bench.h"
#include "util/result.h"

namespace fabscope {

struct ResultFile {
    std::optional<CollectiveBench> nccl_tests;      ///< set: the file was nccl-tests' output
    nlohmann::json doc = nlohmann::json::object();  ///< otherwise, its JSON
};

/// "-" reads standard input (named "<stdin>" in errors).
Result<ResultFile> read_result_file(const std::string& path);

}  // namespace fabscope
