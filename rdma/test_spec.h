#pragma once
// What one test over a pair of QPs does: the operation, what it measures,
// sizes, depths and durations. The data path runs it (rdma/data_path.h); the
// pair test, the mesh runs and the reports carry it (JSON in
// docs/perf.schema.json, "spec").

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "util/byte_size.h"
#include "util/duration.h"
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

nlohmann::json spec_to_json(const TestSpec& s);
/// Throws nlohmann errors with the path of a bad value (json_io::guarded).
TestSpec spec_from_json(const nlohmann::json& j);

}  // namespace fabscope::perf
