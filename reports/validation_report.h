#pragma once
// What `validate` and `diff` print: a verdict a person takes in at a glance
// (PASS/FAIL, counts, the worst problems first), and the JSON document
// (docs/validation.schema.json) that scripts and tickets use.

#include <nlohmann/json.hpp>
#include <string>

#include "model/fabric.h"
#include "model/validation.h"
#include "util/term.h"

namespace fabscope {

struct ValidationMeta {
    std::string command;      ///< "validate" or "diff"
    std::string started;      ///< ISO 8601
    std::string fabric_from;  ///< "ibsim0 port 1", or the snapshot file
    double interval_s = 0;    ///< between the two counter readings; 0 = one reading
    std::string plan;
    std::string baseline;
    std::string thresholds;
    double duration_s = 0;
    bool interrupted = false;
    /// Counter readings the rates came from: 0 (none), 1 (no rates) or 2.
    int counter_readings = 1;
    /// The snapshot file of the fabric it checked (validate --snapshot wrote
    /// it, or --load read it), absolute; "" when there is none. `report`
    /// given the validation alone finds it there or beside the validation
    /// and draws the fabric.
    std::string snapshot;
};

std::string render_validation_summary(const Validation& v, const ValidationMeta& m,
                                      const TextStyle& st, size_t max_listed = 20);
nlohmann::json validation_to_json(const Fabric& f, const Validation& v, const ValidationMeta& m);
/// [{"id", "name", "detail"}]: the checks as a CI server trends them.
nlohmann::json checks_to_json(const std::vector<CheckMade>& checks);
/// [[end, end]] of the expected cables, each end a port label.
nlohmann::json expected_to_json(const std::vector<ExpectedCable>& cables);

}  // namespace fabscope
