#include "discover/counter_reader.h"

#include <chrono>

#include "discover/pma_decode.h"
#include "util/time_util.h"

namespace fabscope {

CounterRead read_counters(MadTransport& transport, const Clock& clock, const Fabric& f,
                          const EngineOptions& options) {
    CounterRead out;
    MadEngine engine(transport, clock, options);
    std::map<PortRef, bool> base_ok;
    for (const Node& n : f.nodes()) {
        Lid lid = n.lid();
        for (const Port& p : n.ports) {
            if (!p.counters || p.num == 0) continue;
            PortRef ref{n.guid, p.num};
            Lid target = n.type == NodeType::Switch ? lid : p.lid;
            if (target == 0) continue;
            mad::Request base{mad::kClassPerf, mad::kAttrPortCounters, 0, mad::Address{{}, target},
                              p.num};
            engine.submit(base, [&out, &base_ok, &clock, ref](const MadResult& r) {
                if (r.outcome == MadResult::Outcome::Cancelled) return;
                if (!r.ok()) {
                    out.failed.push_back(ref);
                    return;
                }
                PortCounters pc = decode_port_counters(mad::pma_data(r.reply));
                PortCounters& have = out.readings[ref];
                bool had_ext = have.extended;
                PortCounters ext = have;
                have = pc;
                have.read_at_ms = clock.unix_ms();
                if (had_ext) {
                    for (Counter c :
                         {Counter::PortXmitData, Counter::PortRcvData, Counter::PortXmitPkts,
                          Counter::PortRcvPkts, Counter::PortUnicastXmitPkts,
                          Counter::PortUnicastRcvPkts, Counter::PortMulticastXmitPkts,
                          Counter::PortMulticastRcvPkts}) {
                        if (auto v = ext.get(c)) have.set(c, *v);
                    }
                    have.extended = true;
                }
                base_ok[ref] = true;
            });
            if (p.counters->extended) {
                mad::Request ext = base;
                ext.attr_id = mad::kAttrPortCountersExtended;
                engine.submit(ext, [&out, ref](const MadResult& r) {
                    if (r.ok())
                        merge_port_counters_extended(out.readings[ref], mad::pma_data(r.reply));
                });
            }
        }
    }
    engine.run();
    // An extended answer without its PortCounters is no reading.
    for (auto it = out.readings.begin(); it != out.readings.end();) {
        it = base_ok.count(it->first) ? std::next(it) : out.readings.erase(it);
    }
    out.stats = engine.stats();
    out.interrupted = engine.cancelled();
    return out;
}

}  // namespace fabscope
