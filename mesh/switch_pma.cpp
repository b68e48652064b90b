#include "mesh/switch_pma.h"

#include <utility>

#include "congestion/pma_counter_source.h"

namespace fabscope::perf {

SwitchCounterRead read_switch_link_counters(MadTransport& transport, const Clock& clock,
                                            const Fabric& f, const EngineOptions& engine) {
    PmaSourceOptions o;
    o.engine = engine;
    o.only = switch_link_ports(f);
    if (o.only.empty()) return {};  // one switch, or none: no cable between switches
    PmaRead read = PmaCounterSource(transport, clock, f, o).read_ports();
    SwitchCounterRead out;
    out.ports = std::move(read.readings);
    out.failed = std::move(read.failed);
    if (read.interrupted) out.error = "interrupted";
    return out;
}

}  // namespace fabscope::perf
