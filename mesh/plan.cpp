#include "mesh/plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <utility>

#include "mesh/paths_ib.h"
#include "mesh/paths_traced.h"
#include "mesh/ring_plan.h"
#include "schedule/localize.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

/// A pair's LMC path bits: 0..127 (LMC is at most 7); 0 when the plan has
/// none (a fabscope from before them).
uint8_t path_bits_from_json(const json& pair, size_t at) {
    if (pair.size() <= at) return 0;
    const json& v = pair.at(at);
    if (!v.is_number_unsigned() || v.get<uint64_t>() > 127)
        throw std::out_of_range(fmt::format("path bits {} (LMC allows 0..127)", v.dump()));
    return static_cast<uint8_t>(v.get<uint64_t>());
}

}  // namespace

std::vector<std::vector<MeshPair>> mesh_rounds(
    const std::vector<int>& ranks, const std::vector<Round>& rounds,
    const std::function<void(const PairTest&, MeshPair&)>& steer) {
    std::vector<std::vector<MeshPair>> out;
    for (const Round& r : rounds) {
        auto& pairs = out.emplace_back();
        for (const PairTest& t : r.tests) {
            MeshPair& p = pairs.emplace_back(MeshPair{ranks.at(t.a), ranks.at(t.b), t.both_ways});
            if (steer) steer(t, p);
        }
        if (pairs.empty()) out.pop_back();
    }
    return out;
}

std::map<int, std::vector<MeshRank>> ranks_by_plane(const std::vector<MeshRank>& ranks) {
    std::map<int, std::vector<MeshRank>> by;
    for (const MeshRank& r : ranks)
        if (r.error.empty() && !r.gone && !r.coordinator) by[r.plane].push_back(r);
    return by;
}

std::vector<std::vector<int>> all_pairs_members(const std::vector<MeshRank>& ranks) {
    std::vector<std::vector<int>> out;
    for (const auto& [plane, members] : ranks_by_plane(ranks)) {
        std::vector<int>& ids = out.emplace_back();
        ids.reserve(members.size());
        for (const MeshRank& r : members) ids.push_back(r.rank);
    }
    return out;
}

std::vector<std::vector<MeshPair>> plan_all_pairs(const std::vector<MeshRank>& ranks) {
    return all_pairs_rounds(all_pairs_members(ranks));
}

std::vector<std::vector<MeshPair>> all_pairs_rounds(const std::vector<std::vector<int>>& planes) {
    std::vector<std::vector<MeshPair>> rounds;
    for (const std::vector<int>& members : planes) {
        Schedule s = all_pairs(members.size());
        for (size_t i = 0; i < s.rounds.size(); ++i) {
            if (rounds.size() <= i) rounds.resize(i + 1);
            for (const PairTest& t : s.rounds[i].tests)
                rounds[i].push_back({members[t.a], members[t.b], t.both_ways});
        }
    }
    return rounds;
}

PathSource path_source(const MeshRunData& d, const TracedFabric& traced) {
    return d.routes ? ib_paths(d) : traced_paths(d, traced);
}

std::vector<std::vector<MeshPair>> plan_cover(const MeshRunData& d, size_t max_rounds,
                                              Schedule* scheduled, size_t passes) {
    const TracedFabric traced = d.routes ? TracedFabric{} : traced_fabric(d);
    const PathSource s = path_source(d, traced);
    // No switch-to-switch lane (no router answered, or every rank under one
    // leaf): nothing to cover, and all-pairs tells its hosts apart best.
    if (!s.oracle || s.lanes.empty()) return {};
    Schedule plan = cover(s.endpoints, *s.oracle, s.lanes, max_rounds, passes);
    auto rounds = mesh_rounds(s.ranks, plan.rounds, s.steer);
    if (scheduled) *scheduled = std::move(plan);
    return rounds;
}

std::vector<std::vector<MeshPair>> plan_leaf(const MeshRunData& d) {
    const PathSource s = ib_paths(d);
    return mesh_rounds(s.ranks, leaf_pairs(s.endpoints).rounds, s.steer);
}

std::vector<std::vector<MeshPair>> plan_named_pairs(const MeshRunData& d,
                                                    const std::vector<NamedPair>& pairs,
                                                    const std::string& from,
                                                    std::vector<MeshFinding>& findings) {
    // The ranks able to test, by host and plane.
    std::map<std::pair<std::string, int>, int> rank_of;
    std::map<std::string, std::vector<int>> planes_of;
    for (const MeshRank& r : d.ranks) {
        if (!r.error.empty() || r.gone || r.coordinator || r.host.empty()) continue;
        if (rank_of.emplace(std::make_pair(r.host, r.plane), r.rank).second)
            planes_of[r.host].push_back(r.plane);
    }
    std::vector<std::pair<size_t, size_t>> tests;
    std::set<std::pair<size_t, size_t>> seen;  // each pair once, whichever way it is written
    for (const NamedPair& p : pairs) {
        auto not_run = [&](const std::string& why) {
            findings.push_back(
                {"pair-not-run", -1, -1,
                 fmt::format("{}:{}: {} {} is not tested: {}", from, p.line, p.a, p.b, why)});
        };
        const bool has_a = planes_of.count(p.a) > 0;
        const bool has_b = planes_of.count(p.b) > 0;
        if (!has_a || !has_b) {
            not_run(fmt::format("no rank that can test runs on {}", !has_a ? p.a : p.b));
            continue;
        }
        size_t planes = 0;
        for (int plane : planes_of[p.a]) {
            auto b = rank_of.find({p.b, plane});
            if (b == rank_of.end()) continue;
            const auto a = static_cast<size_t>(rank_of.at({p.a, plane}));
            const auto bb = static_cast<size_t>(b->second);
            ++planes;
            if (seen.insert(std::minmax(a, bb)).second) tests.emplace_back(a, bb);
        }
        if (planes == 0) not_run("the two hosts share no plane (--devices)");
    }
    // The tests name ranks: endpoint i is rank i.
    std::vector<int> ranks(d.ranks.size());
    std::iota(ranks.begin(), ranks.end(), 0);
    return mesh_rounds(ranks, explicit_pairs(d.ranks.size(), tests).rounds);
}

std::vector<std::vector<MeshPair>> plan_separating(const MeshRunData& d, const MeshAnalysis& a,
                                                   size_t max_rounds) {
    if (max_rounds == 0 || (!d.routes && d.traces.empty())) return {};
    // On RoCE the analysis's fabric holds the pre-traced paths first and the
    // flows' own after them: its lane numbers are the localization's.
    const PathSource s = path_source(d, a.links.fabric);
    if (!s.oracle) return {};
    auto rounds = separating_rounds(a.links.localization, a.links.uncrossed, s.endpoints, *s.oracle,
                                    *s.fabric, 2, max_rounds, planned_pairs_at_once(d));
    return mesh_rounds(s.ranks, rounds, s.steer);
}

size_t planned_pairs_at_once(const MeshRunData& d) {
    size_t at_once = 0;
    for (size_t r = 0; r < std::min(d.planned_rounds, d.rounds.size()); ++r)
        at_once = std::max(at_once, d.rounds[r].size());
    return at_once;
}

std::string plan_run(MeshRunData& d, const PlanRequest& r, Schedule* cover_scheduled) {
    d.pattern = "all-pairs";
    if (r.pattern == "cover") {
        d.pattern = "cover";
        d.rounds = plan_cover(d, r.max_cover_rounds, cover_scheduled, r.cover_passes);
        d.cover_passes = r.cover_passes;
        // No router answered (not Soft-RoCE, one subnet), or every rank
        // is under one leaf: nothing to cover, so every pair is tested.
        if (d.rounds.empty()) d.pattern = "all-pairs";
    } else if (r.pattern == "pairs") {
        d.pattern = "pairs";
        d.rounds = plan_named_pairs(d, r.pairs, r.pairs_from, d.findings);
    } else if (r.pattern == "leaf") {
        d.pattern = "leaf";
        d.rounds = plan_leaf(d);
    } else if (r.pattern == "ring") {
        d.pattern = "ring";
        plan_rings(d, r.ring_sizes, r.ring_iterations);
    }
    if (d.rounds.empty() && d.pattern == "all-pairs") d.rounds = plan_all_pairs(d.ranks);
    d.planned_rounds = d.rounds.size();
    add_flows(d, 0);
    if (!d.rounds.empty()) return "";
    if (d.pattern == "pairs") return "no pair of " + r.pairs_from + " can run (see the findings)";
    if (d.pattern == "leaf")
        return "no two ranks the snapshot knows share a leaf (see the findings)";
    if (d.pattern == "ring")
        return "fewer than two ranks of any plane can take part in a ring (see the findings)";
    return "fewer than two ranks can test (see the findings)";
}

/// Every planned direction of rounds `first`.. as a flow not yet run.
void add_flows(MeshRunData& d, size_t first) {
    size_t more = 0;
    for (size_t i = first; i < d.rounds.size(); ++i) {
        for (const MeshPair& p : d.rounds[i]) more += p.both_ways ? 2 : 1;
    }
    d.flows.reserve(d.flows.size() + more);  // no copy at twice the size: millions of flows
    for (size_t i = first; i < d.rounds.size(); ++i) {
        for (const MeshPair& p : d.rounds[i]) {
            d.flows.push_back({.round = i, .src = p.a, .dst = p.b, .path_bits = p.path_bits_ab});
            if (p.both_ways)
                d.flows.push_back(
                    {.round = i, .src = p.b, .dst = p.a, .path_bits = p.path_bits_ba});
        }
    }
}

json rounds_json(const std::vector<std::vector<MeshPair>>& rounds) {
    json out = json::array();
    for (const auto& round : rounds) {
        json pairs = json::array();
        for (const MeshPair& p : round) {
            const bool steered = p.label_ab || p.label_ba || p.path_bits_ab || p.path_bits_ba;
            if (!steered && p.both_ways) {
                pairs.push_back({p.a, p.b});
            } else if (!steered) {
                pairs.push_back({p.a, p.b, false});
            } else {
                pairs.push_back({p.a, p.b, p.both_ways, p.label_ab, p.label_ba, p.path_bits_ab,
                                 p.path_bits_ba});
            }
        }
        out.push_back(pairs);
    }
    return out;
}

std::vector<std::vector<MeshPair>> rounds_from_json(const json& j) {
    std::vector<std::vector<MeshPair>> rounds;
    for (const json& round : j) {
        auto& out = rounds.emplace_back();
        for (const json& p : round) {
            if (p.size() != 2 && p.size() != 3 && p.size() != 7)
                throw std::out_of_range("a pair is 2, 3 or 7 values");
            MeshPair pair{p.at(0).get<int>(), p.at(1).get<int>(),
                          p.size() == 2 || p.at(2).get<bool>()};
            if (p.size() == 7) {
                pair.label_ab = p.at(3).get<uint32_t>();
                pair.label_ba = p.at(4).get<uint32_t>();
                pair.path_bits_ab = path_bits_from_json(p, 5);
                pair.path_bits_ba = path_bits_from_json(p, 6);
            }
            out.push_back(pair);
        }
    }
    return rounds;
}

void add_plan_rounds(const MeshRunData& d, json& plan) {
    if (d.pattern == "all-pairs")
        plan["all_pairs"] = all_pairs_members(d.ranks);
    else
        plan["rounds"] = rounds_json(d.rounds);
}

std::vector<std::vector<MeshPair>> plan_rounds(const json& plan, size_t ranks) {
    auto rounds = plan.contains("all_pairs")
                      ? all_pairs_rounds(plan.at("all_pairs").get<std::vector<std::vector<int>>>())
                      : rounds_from_json(plan.at("rounds"));
    std::vector<size_t> seen(ranks, SIZE_MAX);
    for (size_t i = 0; i < rounds.size(); ++i) {
        for (const MeshPair& p : rounds[i]) {
            for (int r : {p.a, p.b}) {
                if (r < 0 || static_cast<size_t>(r) >= ranks)
                    throw std::out_of_range(
                        fmt::format("rank {} of {} in round {}", r, ranks, i + 1));
                if (seen[static_cast<size_t>(r)] == i)
                    throw std::out_of_range(fmt::format("rank {} twice in round {}", r, i + 1));
                seen[static_cast<size_t>(r)] = i;
            }
        }
    }
    return rounds;
}

std::vector<std::vector<int>> plan_ring_orders(const json& plan, size_t ranks) {
    auto orders = plan.at("orders").get<std::vector<std::vector<int>>>();
    if (orders.empty()) throw std::out_of_range("no ring");
    std::vector<bool> seen(ranks, false);
    for (size_t i = 0; i < orders.size(); ++i) {
        if (orders[i].size() < 2)
            throw std::out_of_range(fmt::format("ring {} has fewer than two ranks", i + 1));
        for (int r : orders[i]) {
            if (r < 0 || static_cast<size_t>(r) >= ranks)
                throw std::out_of_range(fmt::format("rank {} of {} in ring {}", r, ranks, i + 1));
            if (seen[static_cast<size_t>(r)])
                throw std::out_of_range(fmt::format("rank {} twice in the rings", r));
            seen[static_cast<size_t>(r)] = true;
        }
    }
    return orders;
}

}  // namespace fabscope::perf
