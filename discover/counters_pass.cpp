#include "discover/counters_pass.h"

#include "discover/pma_reading.h"

namespace fabscope {
namespace {

void read_port(SweepContext& ctx, std::map<PortRef, PmaReading>& out, Guid guid, uint8_t port,
               Lid lid) {
    const SweptNode& n = ctx.nodes.at(guid);
    const PortRef ref{guid, port};
    submit_pma_reading(ctx.engine, lid, port, PmaReadPlan{}, out[ref],
                       [&ctx, ref](const MadResult& res) {
                           ctx.failed(ctx.nodes.at(ref.node), ref.port, "PortCounters", res);
                       },
                       {MadEngine::key_of(n.path)});
}

}  // namespace

void counters_pass(SweepContext& ctx) {
    std::map<PortRef, PmaReading> readings;
    for (Guid guid : ctx.order) {
        const SweptNode& n = ctx.nodes.at(guid);
        if (n.is_switch() && !n.replies.port_info.count(0)) continue;  // its LID comes with port 0
        for (const auto& [port, raw] : n.replies.port_info) {
            if (port == 0 || !n.port_up(port)) continue;
            Lid lid = n.lid(port);
            if (lid == 0) continue;  // PMA Gets are LID-routed; without an SM there is no LID
            read_port(ctx, readings, guid, port, lid);
        }
    }
    ctx.engine.run();
    for (const auto& [ref, r] : readings) {
        if (auto pc = r.counters()) ctx.nodes.at(ref.node).counters[ref.port] = *pc;
    }
}

}  // namespace fabscope
