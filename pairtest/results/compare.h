#pragma once
// Which pairs fell short: each test's results across peers, measured in the
// same run, against the best of them. A peer whose bandwidth (or the inverse
// of its median latency) is below `degraded_at` of the best is degraded; a
// test that failed is a finding of its own. The hardware counters that moved
// during a test are the evidence.

#include <vector>

#include "model/finding.h"
#include "pairtest/results/result.h"

namespace fabscope::perf {

struct PerfFinding {
    std::string kind;  ///< "pair_degraded", "test_failed", "congestion"
    Severity severity = Severity::Warning;
    std::string peer;
    std::string test;
    std::string summary;
    nlohmann::json evidence = nlohmann::json::object();
};

std::vector<PerfFinding> compare_peers(const std::vector<TestResult>& results, double degraded_at);

nlohmann::json perf_finding_to_json(const PerfFinding& f);

}  // namespace fabscope::perf
