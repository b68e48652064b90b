#include "congestion/pma_counter_source.h"

#include <fmt/format.h>

#include "discover/pma_reading.h"

namespace fabscope {

PmaRead PmaCounterSource::read_ports() {
    PmaRead out;
    MadEngine engine(transport_, clock_, options_.engine);
    std::map<PortRef, PmaReading> readings;
    for (const Node& n : fabric_.nodes()) {
        const Lid lid = n.lid();
        for (const Port& p : n.ports) {
            if (p.num == 0) continue;
            const PortRef ref{n.guid, p.num};
            // Asked for by name, a port is read even if the sweep did not
            // read it (--no-counters): then PortCounters only.
            if (options_.only.empty() ? !p.counters : !options_.only.count(ref)) continue;
            const Lid target = n.type == NodeType::Switch ? lid : p.lid;
            if (target == 0) continue;  // PMA Gets are LID-routed
            PmaReadPlan plan;
            plan.extended = p.counters && p.counters->extended;
            plan.fec = p.counters ? p.counters->fec : FecLayout::None;  // as the sweep found it
            plan.per_vl = options_.per_vl;
            submit_pma_reading(engine, target, p.num, plan, readings[ref],
                               [&out, ref](const MadResult&) { out.failed.push_back(ref); });
        }
    }
    engine.run();
    for (const auto& [ref, r] : readings) {
        auto pc = r.counters();
        if (!pc) continue;
        out.readings[ref] = *pc;
        if (auto vl = r.vl_waits())
            out.vl_xmit_wait[ref] = *vl;
        else if (r.per_vl_unsupported)
            out.per_vl_unsupported.push_back(ref);
    }
    out.stats = engine.stats();
    out.interrupted = engine.cancelled();
    return out;
}

std::vector<CounterSample> PmaCounterSource::read() {
    return pma_samples(read_ports());
}

std::vector<CounterSample> pma_samples(const PmaRead& r) {
    std::vector<CounterSample> out;
    for (const auto& [ref, pc] : r.readings) {
        CounterSample s;
        s.device = format_guid(ref.node);
        s.port = ref.port;
        s.read_at_ms = pc.read_at_ms;
        for (int i = 0; i < kCounterCount; ++i) {
            const auto c = static_cast<Counter>(i);
            if (auto v = pc.get(c)) s.values[std::string(name(c))] = *v;
        }
        if (auto it = r.vl_xmit_wait.find(ref); it != r.vl_xmit_wait.end()) {
            for (int vl = 0; vl < kVlCount; ++vl)
                s.values[fmt::format("PortVLXmitWait{}", vl)] = it->second[static_cast<size_t>(vl)];
        }
        out.push_back(std::move(s));
    }
    return out;
}

}  // namespace fabscope
