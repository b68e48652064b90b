#pragma once
// Fake traceroutes for unit tests: what a tracer gives for the UDP source
// ports it is asked, over hops the test chooses.

#include <cstdint>
#include <vector>

#include "trace/roce_trace.h"

namespace fabscope::perf::fake {

/// One trace a port, each over `hops` and ending silent (the destination
/// does not answer a probe to 4791), as the real tracer's end.
inline std::vector<FlowTrace> traces_over(const std::vector<uint16_t>& sports,
                                          const std::vector<TraceHop>& hops) {
    std::vector<FlowTrace> out;
    out.reserve(sports.size());
    for (uint16_t s : sports) out.push_back(FlowTrace{.sport = s, .hops = hops, .end = "silent"});
    return out;
}

}  // namespace fabscope::perf::fake
