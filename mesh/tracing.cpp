#include "mesh/tracing.h"

#include <memory>

#include "trace/flow_path.h"
#include "trace/udp_tracer.h"

namespace fabscope::perf {

OpenDevice with_mesh_tracing(MeshRunOptions& o, OpenDevice open, const TraceOptions& t,
                             const HostNames& names) {
    auto soft_roce = std::make_shared<bool>(false);
    o.trace_flow = [soft_roce, t, names](const EndpointInfo& local,
                                         const EndpointInfo& remote) -> nlohmann::json {
        if (!*soft_roce) return nullptr;
        return trace_rxe_flow(local, remote, t, names);
    };
    o.trace_sports = udp_tracer(t, names);
    return [soft_roce, open = std::move(open)](const std::string& name,
                                               int port) -> Result<std::unique_ptr<VerbsDevice>> {
        auto d = open(name, port);
        if (d) *soft_roce = is_soft_roce((*d)->name());
        return d;
    };
}

}  // namespace fabscope::perf
