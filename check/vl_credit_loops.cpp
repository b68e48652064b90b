#include "check/vl_credit_loops.h"

#include <fmt/format.h>

#include <set>

#include "check/dependency_cycles.h"
#include "model/paths.h"

namespace fabscope {
namespace {

constexpr uint32_t kVls = 16;
constexpr uint8_t kDropVl = 15;

}  // namespace

VlNeeds vl_needs(const Fabric& f, const RoutingAnalysis& a, size_t max_flows) {
    VlNeeds out;
    if (a.loops.empty()) return out;
    const std::set<Lane> cyclic(a.cyclic_lanes.begin(), a.cyclic_lanes.end());
    const std::vector<MeshEndpoint> ends = endpoints_from_fabric(f);
    const IbPathOracle oracle(f);
    std::set<LidPair> flows;
    std::set<Sl2VlKey> tables;
    for (const MeshEndpoint& d : ends) {
        for (int variant = 0; variant < oracle.variants(d) && !out.too_many; ++variant) {
            for (const MeshEndpoint& s : ends) {
                if (s.node == d.node) continue;
                const FlowPath path = oracle.path(s, d, variant);
                const LidPair flow{s.lid, static_cast<Lid>(d.lid + variant)};
                size_t previous = SIZE_MAX;  // the index of the flow's last cyclic hop
                for (size_t i = 1; i < path.lanes.size(); ++i) {
                    const Lane l = path.lanes[i];
                    if (!cyclic.count(l)) continue;
                    const PortRef from = lane_source(f, l);
                    const Sl2VlKey key{from.node, lane_target(f, path.lanes[i - 1]).port,
                                       from.port};
                    out.hops.push_back(VlHop{flow, s.node, l, key, previous + 1 == i});
                    previous = i;
                    tables.insert(key);
                    flows.insert(flow);
                }
                out.too_many = flows.size() > max_flows;
                if (out.too_many) break;
            }
        }
        if (out.too_many) break;
    }
    out.flows.assign(flows.begin(), flows.end());
    out.tables.assign(tables.begin(), tables.end());
    return out;
}

void check_loops_per_vl(RoutingAnalysis& a, const VlNeeds& needs, const FlowSls& sls,
                        const Sl2VlTables& tables) {
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
    // Each flow's hops on the loops in order, with the VL it takes on each:
    // consecutive ones are a dependency between (lane, VL) channels.
    Dependencies edges;
    uint32_t before = UINT32_MAX;  // the channel of the hop before (none, or dropped)
    for (const VlHop& h : needs.hops) {
        const uint8_t vl = tables.at(h.table)[sls.at(h.flow) & 0xFU] & 0xFU;
        const uint32_t channel = vl == kDropVl ? UINT32_MAX : (h.lane * kVls) + vl;
        if (h.follows && before != UINT32_MAX && channel != UINT32_MAX)
            edges.try_emplace(dependency_key(before, channel),
                              DependencyExample{h.source, h.flow.second});
        before = channel;
    }
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
