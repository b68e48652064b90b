#include "trace/flow_path.h"

#include <fstream>

#include "trace/roce_sport.h"
#include "trace/udp_probe.h"

namespace fabscope::perf {

bool is_soft_roce(const std::string& device, const std::string& sysfs) {
    std::ifstream in(sysfs + "/" + device + "/node_desc");
    std::string desc;
    if (in && std::getline(in, desc)) return desc.rfind("rxe", 0) == 0;
    return device.rfind("rxe", 0) == 0;
}

nlohmann::json trace_rxe_flow(const EndpointInfo& local, const EndpointInfo& remote,
                              const TraceOptions& options, const HostNames& names) {
    std::string src = gid_ipv4(local.gid);
    std::string dst = gid_ipv4(remote.gid);
    if (!local.roce || src.empty() || dst.empty() || on_link(dst)) return nullptr;
    uint16_t sport = rxe_udp_sport(local.qpn, remote.qpn, local.flow_label);
    auto transport = UdpProbeTransport::open(src, dst);
    if (!transport) return nullptr;
    std::vector<FlowTrace> t =
        trace_flows(**transport, system_clock(), {sport}, dst, options, names);
    if (t.empty() || t.front().hops.empty()) return nullptr;
    nlohmann::json j = flow_trace_to_json(t.front());
    j["source"] = src;
    j["destination"] = dst;
    j["port_from"] = "rxe";
    return j;
}

std::vector<TraceHop> path_hops(const nlohmann::json& path) {
    if (!path.is_object()) return {};
    try {
        return flow_trace_from_json(path).hops;
    } catch (const std::exception&) {
        return {};
    }
}

}  // namespace fabscope::perf
