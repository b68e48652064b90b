#include "discover/counters_pass.h"

#include "discover/pma_decode.h"

namespace fabscope {
namespace {

struct Reading {
    PortCounters counters;
    bool base = false;      ///< PortCounters answered
    bool extended = false;  ///< PortCountersExtended answered
    MadBytes ext{};         ///< its reply, merged once both are in
};

void read_port(SweepContext& ctx, std::map<PortRef, Reading>& out, Guid guid, uint8_t port,
               Lid lid) {
    const SweptNode& n = ctx.nodes.at(guid);
    const PortRef ref{guid, port};
    std::vector<std::string> deps{MadEngine::key_of(n.path)};
    mad::Request base{mad::kClassPerf, mad::kAttrPortCounters, 0, {{}, lid}, port};
    ctx.engine.submit(
        base,
        [&ctx, &out, ref](const MadResult& res) {
            if (!res.ok()) return ctx.failed(ctx.nodes.at(ref.node), ref.port, "PortCounters", res);
            Reading& r = out[ref];
            r.counters = decode_port_counters(mad::pma_data(res.reply));
            r.counters.read_at_ms = ctx.engine.clock().unix_ms();
            r.base = true;
        },
        deps);
    mad::Request ext = base;
    ext.attr_id = mad::kAttrPortCountersExtended;
    ctx.engine.submit(
        ext,
        [&out, ref](const MadResult& res) {
            if (!res.ok()) return;  // no extended counters: the 32-bit ones stand
            Reading& r = out[ref];
            r.ext = res.reply;
            r.extended = true;
        },
        deps);
}

}  // namespace

void counters_pass(SweepContext& ctx) {
    std::map<PortRef, Reading> readings;
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
    for (auto& [ref, r] : readings) {
        if (!r.base) continue;  // an extended answer without its PortCounters is no reading
        if (r.extended) merge_port_counters_extended(r.counters, mad::pma_data(r.ext));
        ctx.nodes.at(ref.node).counters[ref.port] = r.counters;
    }
}

}  // namespace fabscope
