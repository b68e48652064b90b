#include "perf/mesh_cover.h"

#include <algorithm>

#include "perf/localize.h"

namespace fabscope::perf {

namespace {

/// Hosts have no GUID; these stand in for them, apart from the routers'.
constexpr Guid kRankGuidBase = 0x4850000000000000ULL;  // "HP"

/// RoCE: each direction steered by the flow label of its variant's port.
std::vector<std::vector<MeshPair>> to_mesh(const MeshRunData& d, const TracedPlanView& v,
                                           const std::vector<Round>& rounds) {
    return mesh_rounds(v.ranks, rounds, [&d](const PairTest& t, MeshPair& p) {
        p.label_ab = label_of(d, t.variant_ab);
        p.label_ba = t.both_ways ? label_of(d, t.variant_ba) : 0;
    });
}

TracedFabric fabric_of(const MeshRunData& d) {
    std::vector<std::vector<TraceHop>> paths;
    for (const MeshTrace& t : d.traces) {
        if (!t.hops.empty()) paths.push_back(t.hops);
    }
    return TracedFabric::from_paths(paths);
}

}  // namespace

uint32_t label_of(const MeshRunData& d, int variant) {
    if (variant < 0 || static_cast<size_t>(variant) >= d.sports.size()) return 0;
    return flow_label_for_sport(d.sports[variant]).value_or(0);
}

TracedPlanView traced_plan_view(const MeshRunData& d, const TracedFabric& fabric) {
    TracedPlanView v;
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
    v.oracle.set_variants(static_cast<int>(std::max<size_t>(d.sports.size(), 1)));
    for (const MeshTrace& t : d.traces) {
        if (t.src < 0 || t.dst < 0 || static_cast<size_t>(t.src) >= index.size() ||
            static_cast<size_t>(t.dst) >= index.size() || index[t.src] < 0 || index[t.dst] < 0)
            continue;
        MeshEndpoint& src = v.endpoints[index[t.src]];
        if (src.leaf == 0) src.leaf = fabric.first_router(t.hops).value_or(0);
        v.oracle.add(src.node, kRankGuidBase + static_cast<Guid>(t.dst), t.variant,
                     fabric.lanes_of(t.hops));
    }
    return v;
}

std::vector<std::vector<MeshPair>> plan_traced_cover(const MeshRunData& d, size_t max_rounds,
                                                     Coverage* coverage) {
    TracedFabric fabric = fabric_of(d);
    TracedPlanView v = traced_plan_view(d, fabric);
    Schedule s = cover(v.endpoints, v.oracle, fabric.lanes(), max_rounds);
    if (coverage) *coverage = coverage_of(s, v.endpoints, v.oracle, fabric.lanes());
    return to_mesh(d, v, s.rounds);
}

std::vector<std::vector<MeshPair>> mesh_rounds(
    const std::vector<int>& ranks, const std::vector<Round>& rounds,
    const std::function<void(const PairTest&, MeshPair&)>& steer) {
    std::vector<std::vector<MeshPair>> out;
    for (const Round& r : rounds) {
        auto& pairs = out.emplace_back();
        for (const PairTest& t : r.tests) {
            MeshPair& p = pairs.emplace_back(MeshPair{ranks.at(t.a), ranks.at(t.b), t.both_ways});
            steer(t, p);
        }
        if (pairs.empty()) out.pop_back();
    }
    return out;
}

size_t planned_pairs_at_once(const MeshRunData& d) {
    size_t at_once = 0;
    for (size_t r = 0; r < std::min(d.planned_rounds, d.rounds.size()); ++r)
        at_once = std::max(at_once, d.rounds[r].size());
    return at_once;
}

std::vector<std::vector<MeshPair>> plan_separating(const MeshRunData& d, const MeshAnalysis& a,
                                                   size_t max_rounds) {
    if (max_rounds == 0 || d.traces.empty()) return {};
    // The analysis's fabric holds the pre-traced paths first and the flows'
    // own after them: its lane numbers are the localization's.
    const TracedFabric& fabric = a.links.fabric;
    TracedPlanView v = traced_plan_view(d, fabric);
    auto rounds = separating_rounds(a.links.localization, a.links.uncrossed, v.endpoints, v.oracle,
                                    fabric.fabric(), 2, max_rounds, planned_pairs_at_once(d));
    return to_mesh(d, v, rounds);
}

}  // namespace fabscope::perf
