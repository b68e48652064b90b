#include "perf/mesh_tracing.h"

#include <memory>

#include "perf/flow_path.h"
#include "perf/udp_probe.h"
#include "util/clock.h"

namespace fabscope::perf {

OpenDevice with_mesh_tracing(MeshRunOptions& o, OpenDevice open, const TraceOptions& t,
                             const HostNames& names) {
    auto soft_roce = std::make_shared<bool>(false);
    o.trace_flow = [soft_roce, t, names](const EndpointInfo& local,
                                         const EndpointInfo& remote) -> nlohmann::json {
        if (!*soft_roce) return nullptr;
        return trace_rxe_flow(local, remote, t, names);
    };
    o.trace_sports = [t, names](const std::string& source, const std::string& destination,
                                const std::vector<uint16_t>& sports) {
        std::vector<FlowTrace> out;
        if (on_link(destination)) return out;  // no router between
        auto transport = UdpProbeTransport::open(source, destination);
        if (!transport) return out;
        return trace_flows(**transport, system_clock(), sports, destination, t, names);
    };
    return [soft_roce, open = std::move(open)](const std::string& name,
                                               int port) -> Result<std::unique_ptr<VerbsDevice>> {
        auto d = open(name, port);
        if (d) *soft_roce = is_soft_roce((*d)->name());
        return d;
    };
}

}  // namespace fabscope::perf
