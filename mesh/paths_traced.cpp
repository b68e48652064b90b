#include "mesh/paths_traced.h"

#include <algorithm>
#include <map>

#include "trace/flow_path.h"

namespace fabscope::perf {
namespace {

uint32_t label_for(const std::vector<uint16_t>& sports, int variant) {
    if (variant < 0 || static_cast<size_t>(variant) >= sports.size()) return 0;
    return flow_label_for_sport(sports[variant]).value_or(0);
}

}  // namespace

std::vector<TracedHost> traced_hosts(const MeshRunData& d) {
    std::map<int, TracedHost> by_rank;
    auto saw = [&](int rank, const std::vector<TraceHop>& hops) {
        if (hops.empty() || rank < 0 || static_cast<size_t>(rank) >= d.ranks.size()) return;
        TracedHost& h = by_rank[rank];
        if (!h.first_hop.empty()) return;
        const MeshRank& r = d.ranks[static_cast<size_t>(rank)];
        h.rank = rank;
        h.name = r.host.empty() ? r.address : r.host;
        h.first_hop = router_key(hops.front());
        h.leaf_address = hops.front().address;
    };
    for (const MeshTrace& t : d.traces) saw(t.src, d.hops_of(t));
    for (const MeshFlow& f : d.flows) saw(f.src, path_hops(f.path.unpack()));
    std::vector<TracedHost> out;
    out.reserve(by_rank.size());
    for (auto& [_, h] : by_rank) out.push_back(std::move(h));
    return out;
}

std::vector<Lane> with_host_lanes(const TracedFabric& fabric, int src, int dst,
                                  const std::vector<Lane>& between) {
    auto up = fabric.host_lane(src, true);
    auto down = fabric.host_lane(dst, false);
    std::vector<Lane> out;
    out.reserve(between.size() + 2);
    if (up) out.push_back(*up);
    out.insert(out.end(), between.begin(), between.end());
    if (down) out.push_back(*down);
    return out;
}

TracedFabric traced_fabric(const MeshRunData& d) {
    return TracedFabric::from_paths(d.trace_hops.all(), traced_hosts(d));
}

uint32_t label_of(const MeshRunData& d, int variant) {
    return label_for(d.sports, variant);
}

PathSource traced_paths(const MeshRunData& d, const TracedFabric& fabric) {
    PathSource v;
    auto oracle = std::make_shared<TracedPathOracle>();
    std::vector<int> index(d.ranks.size(), -1);
    for (const MeshRank& r : d.ranks) {
        if (!r.error.empty() || r.gone || r.address.empty()) continue;
        index[r.rank] = static_cast<int>(v.ranks.size());
        v.ranks.push_back(r.rank);
        MeshEndpoint e;
        e.node = kRankGuidBase + static_cast<Guid>(r.rank);
        e.name = r.host.empty() ? r.address : r.host;
        v.endpoints.push_back(e);
    }
    oracle->set_variants(static_cast<int>(std::max<size_t>(d.sports.size(), 1)));
    for (const MeshTrace& t : d.traces) {
        if (t.src < 0 || t.dst < 0 || static_cast<size_t>(t.src) >= index.size() ||
            static_cast<size_t>(t.dst) >= index.size() || index[t.src] < 0 || index[t.dst] < 0)
            continue;
        MeshEndpoint& src = v.endpoints[index[t.src]];
        const std::vector<TraceHop>& hops = d.hops_of(t);
        if (src.leaf == 0) src.leaf = fabric.first_router(hops).value_or(0);
        // The hosts' own cables too, as the analysis counts them: a flow
        // planned to clear a host's cable must know it crosses it.
        oracle->add(src.node, kRankGuidBase + static_cast<Guid>(t.dst), t.variant,
                    with_host_lanes(fabric, t.src, t.dst, fabric.lanes_of(hops)));
    }
    v.oracle = std::move(oracle);
    v.lanes = fabric.lanes();
    v.fabric = &fabric.fabric();
    v.steer = [sports = d.sports](const PairTest& t, MeshPair& p) {
        p.label_ab = label_for(sports, t.variant_ab);
        p.label_ba = t.both_ways ? label_for(sports, t.variant_ba) : 0;
    };
    return v;
}

}  // namespace fabscope::perf
