#pragma once
// What a pairwise test does and what it found: the contract between the
// client, the server and the reports (JSON in docs/perf.schema.json).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/duration.h"
#include "model/finding.h"
#include "perf/stats.h"
#include "util/result.h"

namespace fabscope::perf {

enum class Op : uint8_t { Write, Read, Send };
enum class Measure : uint8_t { Bandwidth, Latency };

struct TestSpec {
    Op op = Op::Write;
    Measure measure = Measure::Bandwidth;
    bool bidirectional = false;  ///< bandwidth: both sides send at once
    uint32_t size = 65536;       ///< message size, bytes
    uint64_t iterations = 0;     ///< 0: run for `duration`
    Millis duration{5000};
    uint32_t tx_depth = 128;       ///< bandwidth: work requests in flight
    uint32_t cq_moderation = 100;  ///< bandwidth: one signalled completion per N (perftest: 100)
    uint32_t inline_max =
        0;  ///< messages up to this size go inline (0: the device's limit, at most 236)
    uint64_t warmup = 256;  ///< messages before measuring
    Millis warmup_time{
        1000};  ///< bandwidth for a duration: and this long (code paths and caches warm up)
    Millis window{100};  ///< bandwidth: the short window for peak and minimum

    /// "write_bw", "read_lat", "send_bw_bidir".
    std::string name() const;
};

std::string_view name(Op op);
std::optional<Op> parse_op(std::string_view s);
/// "64K", "1M", "4096" -> bytes; at most 1 GiB.
std::optional<uint32_t> parse_size(std::string_view s);
std::string format_size(uint64_t bytes);

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
    /// The congestion detectors over those deltas (perf/test_congestion.h).
    std::vector<Finding> congestion;
    /// The flow's traced path (perf/flow_path.h); null when not routed or not traced.
    nlohmann::json path;
};

nlohmann::json spec_to_json(const TestSpec& s);
/// Throws nlohmann errors with the path of a bad value (json_io::guarded).
TestSpec spec_from_json(const nlohmann::json& j);
nlohmann::json result_to_json(const TestResult& r);
/// Throws nlohmann errors with the path of a bad value (json_io::guarded).
TestResult result_from_json(const nlohmann::json& j);

}  // namespace fabscope::perf
