#include "discover/counter_reader.h"

#include "discover/pma_reading.h"

namespace fabscope {

CounterRead read_counters(MadTransport& transport, const Clock& clock, const Fabric& f,
                          const EngineOptions& options) {
    CounterRead out;
    MadEngine engine(transport, clock, options);
    std::map<PortRef, PmaReading> readings;
    for (const Node& n : f.nodes()) {
        Lid lid = n.lid();
        for (const Port& p : n.ports) {
            if (!p.counters || p.num == 0) continue;
            PortRef ref{n.guid, p.num};
            Lid target = n.type == NodeType::Switch ? lid : p.lid;
            if (target == 0) continue;
            mad::Request base{mad::kClassPerf, mad::kAttrPortCounters, 0, mad::Address{{}, target},
                              p.num};
            engine.submit(base, [&out, &readings, &clock, ref](const MadResult& r) {
                if (r.outcome == MadResult::Outcome::Cancelled) return;
                if (!r.ok()) {
                    out.failed.push_back(ref);
                    return;
                }
                PmaReading& reading = readings[ref];
                reading.base = r.reply;
                reading.read_at_ms = clock.unix_ms();
            });
            if (p.counters->extended) {
                mad::Request ext = base;
                ext.attr_id = mad::kAttrPortCountersExtended;
                engine.submit(ext, [&readings, ref](const MadResult& r) {
                    if (r.ok()) readings[ref].extended = r.reply;
                });
            }
        }
    }
    engine.run();
    for (const auto& [ref, r] : readings) {
        if (auto pc = r.counters()) out.readings[ref] = *pc;
    }
    out.stats = engine.stats();
    out.interrupted = engine.cancelled();
    return out;
}

}  // namespace fabscope
