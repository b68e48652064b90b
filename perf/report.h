#pragma once
// The document `fabscope perf run --json` writes (docs/perf.schema.json):
// where it ran, every test's result, and the findings of the comparison.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "perf/compare.h"
#include "perf/test_spec.h"

namespace fabscope::perf {

struct PerfRunMeta {
    std::string started;  ///< ISO 8601, when the first test began
    std::string device;   ///< the local RDMA device
    int port = 1;
    double degraded_at = 0.7;
};

nlohmann::json perf_report_to_json(const PerfRunMeta& meta, const std::vector<TestResult>& results,
                                   const std::vector<PerfFinding>& findings);

}  // namespace fabscope::perf
