#pragma once
// The document `fabscope perf run --json` writes (docs/perf.schema.json):
// where it ran, every test's result, and the findings of the comparison.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pairtest/results/compare.h"
#include "pairtest/results/result.h"
#include "util/result.h"

namespace fabscope::perf {

struct PerfRunMeta {
    std::string started;  ///< ISO 8601, when the first test began
    std::string host;     ///< this host's name: the source of every pair
    std::string device;   ///< the local RDMA device
    int port = 1;
    double degraded_at = 0.7;
    bool complete = true;  ///< false: interrupted, the results are those measured so far
};

struct PerfReport {
    PerfRunMeta meta;
    std::vector<TestResult> results;
};

/// Reads what `perf run -o` wrote. Errors name the file and the bad value, code 2.
Result<PerfReport> load_perf_report(const std::string& path);
Result<PerfReport> perf_report_from_json(const nlohmann::json& j);

nlohmann::json perf_report_to_json(const PerfRunMeta& meta, const std::vector<TestResult>& results,
                                   const std::vector<PerfFinding>& findings);

}  // namespace fabscope::perf
