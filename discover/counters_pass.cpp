#include "discover/counters_pass.h"

#include "discover/pma_reading.h"

namespace fabscope {
namespace {

void read_port(SweepContext& ctx, std::map<PortRef, PmaReading>& out, Guid guid, uint8_t port,
               Lid lid) {
    const SweptNode& n = ctx.nodes.at(guid);
    const PortRef ref{guid, port};
    std::vector<std::string> deps{MadEngine::key_of(n.path)};
    mad::Request base{mad::kClassPerf, mad::kAttrPortCounters, 0, {{}, lid}, port};
    ctx.engine.submit(
        base,
        [&ctx, &out, ref](const MadResult& res) {
            if (!res.ok()) return ctx.failed(ctx.nodes.at(ref.node), ref.port, "PortCounters", res);
            PmaReading& r = out[ref];
            r.base = res.reply;
            r.read_at_ms = ctx.engine.clock().unix_ms();
        },
        deps);
    mad::Request ext = base;
    ext.attr_id = mad::kAttrPortCountersExtended;
    ctx.engine.submit(
        ext,
        [&out, ref](const MadResult& res) {
            if (!res.ok()) return;  // no extended counters: the 32-bit ones stand
            out[ref].extended = res.reply;
        },
        deps);
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
