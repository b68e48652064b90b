#include "rdma/caps.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope::perf {

uint64_t cq_entries(const EndpointConfig& cfg) {
    return uint64_t{cfg.send_depth} + uint64_t{cfg.recv_depth} + 16;
}

uint32_t max_tx_depth(const DeviceLimits& lim) {
    uint64_t by_cq = lim.max_cqe > 16 ? (uint64_t{lim.max_cqe} - 16) / 2 : 1;
    return static_cast<uint32_t>(std::max<uint64_t>(1, std::min<uint64_t>(lim.max_qp_wr, by_cq)));
}

std::vector<std::string> apply_caps(TestSpec& s, const ServeCaps* caps, const DeviceLimits& lim) {
    std::vector<std::string> notes;
    if (caps && s.size > caps->max_size) {
        notes.push_back(fmt::format("size {} capped to {} (--max-size)", format_size(s.size),
                                    format_size(caps->max_size)));
        s.size = caps->max_size;
    }
    if (caps && s.duration > caps->max_duration) {
        notes.push_back(fmt::format("duration {} capped to {} (--max-duration)",
                                    format_duration(s.duration),
                                    format_duration(caps->max_duration)));
        s.duration = caps->max_duration;
    }
    if (caps && s.warmup_time > caps->max_duration) {
        notes.push_back(fmt::format("warm-up {} capped to {} (--max-duration)",
                                    format_duration(s.warmup_time),
                                    format_duration(caps->max_duration)));
        s.warmup_time = caps->max_duration;
    }
    if (uint32_t depth = max_tx_depth(lim); s.tx_depth > depth) {
        notes.push_back(
            fmt::format("tx depth {} capped to {} (the device's queue limits)", s.tx_depth, depth));
        s.tx_depth = depth;
    }
    s.tx_depth = std::max<uint32_t>(1, s.tx_depth);
    s.cq_moderation = std::clamp<uint32_t>(s.cq_moderation, 1, s.tx_depth);
    return notes;
}

}  // namespace fabscope::perf
