#pragma once
// What a test may ask of a host: a server's own limits (message size,
// duration) and the device's (work requests per QP, CQ entries). A spec
// from the wire is brought within them before anything is allocated, and
// every value changed is named, so the client can report what really ran.

#include <cstdint>
#include <string>
#include <vector>

#include "rdma/endpoint_info.h"
#include "rdma/test_spec.h"
#include "rdma/verbs_device.h"
#include "util/duration.h"

namespace fabscope::perf {

struct ServeCaps {
    uint32_t max_size = 8U << 20;  ///< bytes per message (the server pins twice this)
    Millis max_duration{60000};    ///< measured time, and the warm-up
};

/// CQ entries an endpoint with `cfg` needs, computed in 64 bits.
uint64_t cq_entries(const EndpointConfig& cfg);
/// The deepest send queue the device takes for a bandwidth test: within
/// max_qp_wr, and with room in the CQ for as many receives (SEND) again.
uint32_t max_tx_depth(const DeviceLimits& lim);

/// Brings `spec` within `caps` (if given) and the device's limits; returns
/// one note per value changed ("size 1G capped to 8M (--max-size)").
std::vector<std::string> apply_caps(TestSpec& spec, const ServeCaps* caps, const DeviceLimits& lim);

}  // namespace fabscope::perf
