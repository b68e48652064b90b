#include "reports/routing_doc.h"

#include <fmt/format.h>

#include <algorithm>

#include "check/routing_checks.h"
#include "model/fabric.h"
#include "model/paths.h"

namespace fabscope {
namespace {

std::string first_word(const Node* n, Guid g) {
    return n ? n->description.substr(0, n->description.find(' ')) : format_guid(g);
}

LeafBalanceRow leaf_row(const Fabric& f, const SwitchBalance& b, double limit) {
    LeafBalanceRow row;
    row.leaf = first_word(f.node(b.node), b.node);
    row.destinations = b.uplink_destinations;
    row.uplinks_up = b.uplinks_active;
    row.spread = b.uplink_spread;
    row.imbalanced = b.imbalanced(limit);
    // Every active uplink, those that carry nothing too: the table shows
    // where the routes went and where they did not.
    const Node* leaf = f.node(b.node);
    if (!leaf) return row;
    for (const Port& p : leaf->ports) {
        const Node* peer = p.peer ? f.node(p.peer->node) : nullptr;
        if (p.num == 0 || !p.link_up() || !peer || peer->type != NodeType::Switch) continue;
        const PortRef ref{b.node, p.num};
        auto load = std::find_if(b.ports.begin(), b.ports.end(),
                                 [&](const PortLoad& l) { return l.port == ref; });
        row.uplinks.push_back({describe(f, ref), describe(f, *p.peer),
                               load == b.ports.end() ? 0 : load->destinations});
    }
    return row;
}

LoopDoc loop_doc(const Fabric& f, const CreditLoop& loop) {
    LoopDoc d;
    d.vl = loop.vl;
    for (Lane lane : loop.lanes) {
        const size_t li = link_of_lane(lane);
        if (li >= f.links().size()) continue;
        const Link& l = f.links()[li];
        const bool a_to_b = lane == lane_of(li, true);
        d.steps.push_back(
            {li, a_to_b, describe(f, a_to_b ? l.a : l.b), describe(f, a_to_b ? l.b : l.a)});
    }
    const Node* dst = f.find_by_lid(loop.example_dlid);
    d.example = fmt::format("{} to {} (LID {})",
                            first_word(f.node(loop.example_source), loop.example_source),
                            first_word(dst, 0), loop.example_dlid);
    return d;
}

}  // namespace

std::optional<RoutingDoc> routing_doc(const Fabric& f, double imbalance_limit) {
    if (!has_routes(f)) return std::nullopt;
    const RoutingAnalysis a = analyse_routing(f);
    RoutingDoc d;
    d.summary = routing_check_detail(a);
    d.limit = imbalance_limit;
    d.holes = a.holes.size();
    for (const SwitchBalance& b : a.balance) {
        if (b.leaf && b.uplinks_active > 0) d.leaves.push_back(leaf_row(f, b, imbalance_limit));
    }
    std::stable_sort(d.leaves.begin(), d.leaves.end(),
                     [](const LeafBalanceRow& x, const LeafBalanceRow& y) {
                         if (x.imbalanced != y.imbalanced) return x.imbalanced;
                         return x.spread > y.spread;
                     });
    for (const CreditLoop& l : a.loops) d.loops.push_back(loop_doc(f, l));
    return d;
}

}  // namespace fabscope
