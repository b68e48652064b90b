#pragma once
// Tracing several UDP source ports from one address to another, as a rank
// does before a cover or for `discover --roce --trace`: the one signature
// every caller takes, and the socket tracer that fills it.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trace/roce_trace.h"

namespace fabscope::perf {

/// Traces `sports` from `source` to `destination`; empty when no router is
/// between them (the same subnet) or the trace could not start.
using TraceSports =
    std::function<std::vector<FlowTrace>(const std::string& source, const std::string& destination,
                                         const std::vector<uint16_t>& sports)>;

/// The socket tracer: nothing when `destination` is on a local subnet (no
/// router between), else trace_flows over a UdpProbeTransport.
TraceSports udp_tracer(const TraceOptions& options, HostNames names);

}  // namespace fabscope::perf
