#include "perf/mesh_pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <utility>

#include "perf/mesh_cover.h"
#include "perf/schedule.h"

namespace fabscope::perf {

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
    return mesh_rounds(ranks, explicit_pairs(d.ranks.size(), tests).rounds,
                       [](const PairTest&, MeshPair&) {});
}

}  // namespace fabscope::perf
