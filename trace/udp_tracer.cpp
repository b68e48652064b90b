#include "trace/udp_tracer.h"

#include "trace/udp_probe.h"
#include "util/clock.h"

namespace fabscope::perf {

TraceSports udp_tracer(const TraceOptions& options, HostNames names) {
    return [options, names = std::move(names)](const std::string& source,
                                               const std::string& destination,
                                               const std::vector<uint16_t>& sports) {
        std::vector<FlowTrace> out;
        if (on_link(destination)) return out;  // no router between
        auto transport = UdpProbeTransport::open(source, destination);
        if (!transport) return out;
        return trace_flows(**transport, system_clock(), sports, destination, options, names);
    };
}

}  // namespace fabscope::perf
