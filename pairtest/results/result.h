#pragma once
// What one pairwise test found: the contract between the client, the server
// and the reports (JSON in docs/perf.schema.json).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "model/finding.h"
#include "rdma/stats.h"
#include "rdma/test_spec.h"

namespace fabscope::perf {

struct TestResult {
    TestSpec spec;
    std::string peer;       ///< the server as given: HOST or HOST:PORT
    std::string peer_host;  ///< the server's own host name ("" if it did not say)
    bool ok = false;
    std::string error;  ///< why it failed (a peer gone, a deadline passed)
    /// Values lowered from what was asked ("server: size 1G capped to 8M (--max-size)").
    std::vector<std::string> caps;
    double seconds = 0;
    uint64_t iterations = 0;
    uint64_t bytes = 0;
    double avg_gbps = 0;
    double peak_gbps = 0;
    double min_window_gbps = 0;
    double msg_rate_mpps = 0;
    LatencyStats latency;
    nlohmann::json counters =
        nlohmann::json::object();  ///< hw_counters deltas: {"local": {..}, "remote": {..}}
    /// The congestion detectors over those deltas (congestion/flow_congestion.h).
    std::vector<Finding> congestion;
    /// The flow's traced path (trace/flow_path.h); null when not routed or not traced.
    nlohmann::json path;
};

nlohmann::json result_to_json(const TestResult& r);
/// Throws nlohmann errors with the path of a bad value (json_io::guarded).
TestResult result_from_json(const nlohmann::json& j);

}  // namespace fabscope::perf
