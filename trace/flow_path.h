#pragma once
// The traced path of a test's own flow, for `perf run` reports: the UDP
// source port of the connected QP (Soft-RoCE's rule, trace/roce_sport.h),
// then one trace from this host's GID address to the peer's. Hardware NICs
// choose the port themselves, so there the flow's port is unknown and no
// path is recorded (`perf trace --flows K` shows the candidates).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "rdma/endpoint_info.h"
#include "trace/roce_trace.h"

namespace fabscope::perf {

/// True for a Soft-RoCE (rdma_rxe) device: its node description is "rxe"
/// unless someone changed it, and its name then usually starts with "rxe".
bool is_soft_roce(const std::string& device, const std::string& sysfs = "/sys/class/infiniband");

/// The path of the RC connection local <-> remote over rxe, as a report's
/// "path" object; null when there is nothing to record (not RoCE over IPv4,
/// the peer on this host's own subnet, or no router answered: 0 hops).
/// The hops of a flow's "path" object, as trace_rxe_flow wrote it (null or
/// malformed: none).
std::vector<TraceHop> path_hops(const nlohmann::json& path);

nlohmann::json trace_rxe_flow(const EndpointInfo& local, const EndpointInfo& remote,
                              const TraceOptions& options, const HostNames& names);

}  // namespace fabscope::perf
