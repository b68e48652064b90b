#include "discover/counters_pass.h"

#include <map>
#include <tuple>

#include "discover/fec_probe.h"
#include "discover/pma_decode.h"
#include "discover/pma_reading.h"
#include "discover/smp_decode.h"

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

/// PortSamplesControl of the node's first port read, for its Tick: asked of
/// one node per PMA model (the others take its answer), optional (a PMA that
/// refuses it or does not answer leaves the default; ibsim, which lacks it,
/// sends the Get back at once with status 110, so no deadline is waited),
/// and never of a node an SM runs on: an SM attached through ibsim's
/// umad2sim receives what the simulator does not implement and dies of it,
/// and nothing in a tick is worth that on the SM's node.
void read_tick(SweptNode& n, uint8_t port, Lid lid, MadEngine& engine) {
    const mad::Request req{mad::kClassPerf, mad::kAttrPortSamplesControl, 0, {{}, lid}, port};
    engine.submit_optional(req,
                           [&n](const MadResult& r) {
                               if (r.ok())
                                   n.pma_tick = samples_control_tick(mad::pma_data(r.reply));
                           },
                           {MadEngine::key_of(n.path)});
}

}  // namespace

void counters_pass(SweepContext& ctx) {
    std::map<PortRef, PmaReading> readings;
    std::map<PmaModel, Guid> tick_of;  // the node asked for each model's tick
    FecProbe fec(ctx);
    // A node's ports at a time, as the engine drains: 16,384 ports' Gets
    // queued at once would hold 7 MB of requests at 4,096 hosts.
    size_t next = 0;
    auto read_next_node = [&] {
        if (next == ctx.order.size()) return false;
        const Guid guid = ctx.order[next++];
        const SweptNode& n = ctx.nodes.at(guid);
        if (n.is_switch() && !n.replies.port_info.count(0))
            return true;  // its LID comes with port 0
        bool ask_tick = !tick_of.count(n.pma_model()) && !n.runs_sm();
        for (const auto& [port, raw] : n.replies.port_info) {
            if (port == 0 || !n.port_up(port)) continue;
            Lid lid = n.lid(port);
            if (lid == 0) continue;  // PMA Gets are LID-routed; without an SM there is no LID
            read_port(ctx, readings, guid, port, lid);
            fec.offer(n, port, lid, readings[PortRef{guid, port}]);
            if (ask_tick) {
                tick_of.emplace(n.pma_model(), guid);
                read_tick(ctx.nodes.at(guid), port, lid, ctx.engine);
                ask_tick = false;
            }
        }
        return true;
    };
    ctx.engine.run(read_next_node);
    if (!ctx.stopped() && fec.submit_rest(readings)) ctx.engine.run();
    fec.decide_layouts(readings);
    // Each reading's replies freed as its counters are kept.
    for (auto it = readings.begin(); it != readings.end(); it = readings.erase(it)) {
        if (auto pc = it->second.counters())
            ctx.nodes.at(it->first.node).counters[it->first.port] = *pc;
    }
    for (auto& [guid, n] : ctx.nodes) {
        auto asked = tick_of.find(n.pma_model());
        if (asked != tick_of.end()) n.pma_tick = ctx.nodes.at(asked->second).pma_tick;
    }
}

}  // namespace fabscope
