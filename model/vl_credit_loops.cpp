#include "model/vl_credit_loops.h"

#include <fmt/format.h>

#include <functional>
#include <set>

#include "model/dependency_cycles.h"
#include "model/paths.h"

namespace fabscope {
namespace {

constexpr uint32_t kVls = 16;
constexpr uint8_t kDropVl = 15;

PortRef lane_from(const Fabric& f, Lane l) {
    const Link& k = f.links()[link_of_lane(l)];
    return (l & 1U) == 0 ? k.a : k.b;
}

PortRef lane_to(const Fabric& f, Lane l) {
    const Link& k = f.links()[link_of_lane(l)];
    return (l & 1U) == 0 ? k.b : k.a;
}

/// Calls `hop(flow, lane, table)` for every hop of every routed flow where
/// the route leaves a switch on a cyclic lane: the lane and the table that
/// gives its VL (the switch, the port the flow came in by, the port it
/// leaves by). Stops when `hop` returns false.
void for_each_cyclic_hop(const Fabric& f, const std::set<Lane>& cyclic,
                         const std::function<bool(LidPair, Guid, Lane, const Sl2VlKey&)>& hop) {
    const std::vector<MeshEndpoint> ends = endpoints_from_fabric(f);
    const IbPathOracle oracle(f);
    for (const MeshEndpoint& d : ends) {
        for (int variant = 0; variant < oracle.variants(d); ++variant) {
            for (const MeshEndpoint& s : ends) {
                if (s.node == d.node) continue;
                const FlowPath path = oracle.path(s, d, variant);
                const LidPair flow{s.lid, static_cast<Lid>(d.lid + variant)};
                for (size_t i = 1; i < path.lanes.size(); ++i) {
                    const Lane l = path.lanes[i];
                    if (!cyclic.count(l)) continue;
                    const PortRef from = lane_from(f, l);
                    if (!hop(flow, s.node, l,
                             Sl2VlKey{from.node, lane_to(f, path.lanes[i - 1]).port, from.port}))
                        return;
                }
            }
        }
    }
}

}  // namespace

VlNeeds vl_needs(const Fabric& f, const RoutingAnalysis& a, size_t max_flows) {
    VlNeeds out;
    if (a.loops.empty()) return out;
    const std::set<Lane> cyclic(a.cyclic_lanes.begin(), a.cyclic_lanes.end());
    std::set<LidPair> flows;
    std::set<Sl2VlKey> tables;
    for_each_cyclic_hop(f, cyclic, [&](LidPair flow, Guid, Lane, const Sl2VlKey& key) {
        flows.insert(flow);
        tables.insert(key);
        out.too_many = flows.size() > max_flows;
        return !out.too_many;
    });
    out.flows.assign(flows.begin(), flows.end());
    out.tables.assign(tables.begin(), tables.end());
    return out;
}

void check_loops_per_vl(const Fabric& f, RoutingAnalysis& a, const VlNeeds& needs,
                        const FlowSls& sls, const Sl2VlTables& tables) {
    if (a.loops.empty() || needs.too_many) return;
    size_t no_sl = 0;
    for (const LidPair& flow : needs.flows) no_sl += sls.count(flow) ? 0 : 1;
    size_t no_table = 0;
    for (const Sl2VlKey& key : needs.tables) no_table += tables.count(key) ? 0 : 1;
    if (no_sl > 0 || no_table > 0) {
        a.vl_basis = fmt::format(
            "one VL assumed: {} of {} flows without their SL from the SA, {} of {} SL-to-VL "
            "tables unread",
            no_sl, needs.flows.size(), no_table, needs.tables.size());
        return;
    }
    // Each flow's lanes on the loops in order, with the VL it takes on each:
    // consecutive ones are a dependency between (lane, VL) channels.
    const std::set<Lane> cyclic(a.cyclic_lanes.begin(), a.cyclic_lanes.end());
    Dependencies edges;
    std::map<LidPair, std::pair<Lane, uint32_t>> last;  // a flow's previous cyclic hop
    for_each_cyclic_hop(f, cyclic, [&](LidPair flow, Guid source, Lane lane, const Sl2VlKey& key) {
        const uint8_t vl = tables.at(key)[sls.at(flow) & 0xFU] & 0xFU;
        auto prev = last.find(flow);
        const uint32_t channel = vl == kDropVl ? UINT32_MAX : (lane * kVls) + vl;
        // Only consecutive lanes depend on each other: the hop before must end where this begins.
        if (prev != last.end() && channel != UINT32_MAX && prev->second.second != UINT32_MAX &&
            lane_to(f, prev->second.first).node == lane_from(f, lane).node)
            edges.try_emplace(dependency_key(prev->second.second, channel),
                              DependencyExample{source, flow.second});
        last[flow] = {lane, channel};
        return true;
    });
    std::vector<CreditLoop> loops;
    for (DependencyCycle& c : find_dependency_cycles(edges)) {
        CreditLoop loop;
        for (uint32_t v : c.vertices) {
            loop.lanes.push_back(v / kVls);
            loop.vls.push_back(static_cast<int>(v % kVls));
        }
        loop.vl = static_cast<int>(c.vertices.front() % kVls);
        loop.per_vl = true;
        loop.example_source = c.example.source;
        loop.example_dlid = c.example.dlid;
        loops.push_back(std::move(loop));
    }
    a.loops = std::move(loops);
    a.vl_basis = fmt::format("per VL: the SLs of {} flows from the SA, {} SL-to-VL tables",
                             needs.flows.size(), needs.tables.size());
}

}  // namespace fabscope
