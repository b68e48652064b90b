#include "mesh/ring_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "mesh/paths_ib.h"
#include "mesh/plan.h"

namespace fabscope::perf {

uint32_t ring_edge_label(size_t e) {
    return static_cast<uint32_t>(0x100 + e) & 0xFFFFFU;
}

uint32_t ring_chunk(uint64_t bytes, size_t n) {
    return static_cast<uint32_t>(std::max<uint64_t>(1, (bytes + n - 1) / n));
}

std::vector<int> ring_order(const std::vector<MeshRank>& ranks,
                            const std::vector<uint64_t>& leaf_of, std::string* ordered_by) {
    std::vector<uint64_t> leaves;  // in the order of their first rank
    std::map<uint64_t, std::vector<int>> under;
    std::vector<int> unknown;
    for (const MeshRank& r : ranks) {
        if (!r.error.empty() || r.gone || r.coordinator) continue;
        const auto i = static_cast<size_t>(r.rank);
        const uint64_t leaf = i < leaf_of.size() ? leaf_of[i] : 0;
        if (leaf == 0) {
            unknown.push_back(r.rank);
            continue;
        }
        if (!under.count(leaf)) leaves.push_back(leaf);
        under[leaf].push_back(r.rank);
    }
    std::vector<int> order;
    for (uint64_t leaf : leaves) order.insert(order.end(), under[leaf].begin(), under[leaf].end());
    order.insert(order.end(), unknown.begin(), unknown.end());
    if (ordered_by) *ordered_by = leaves.empty() ? "rank" : "leaf";
    return order;
}

void plan_rings(MeshRunData& d, const std::vector<uint64_t>& sizes, uint32_t iterations) {
    std::vector<uint64_t> leaf_of(d.ranks.size(), 0);
    const PathSource s = ib_paths(d);
    for (size_t i = 0; i < s.ranks.size(); ++i)
        leaf_of[static_cast<size_t>(s.ranks[i])] = s.endpoints[i].leaf;
    std::vector<MeshPair> edges;
    const uint64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
    for (const auto& [plane, members] : ranks_by_plane(d.ranks)) {
        RingResult ring{.plane = plane, .first_flow = edges.size()};
        ring.order = ring_order(members, leaf_of, &ring.ordered_by);
        const size_t n = ring.order.size();
        if (n == 1) {
            d.findings.push_back(
                {"ring-too-small", ring.order[0], 0,
                 fmt::format("{} is the only rank of plane {} able to take part: the plane has "
                             "no ring",
                             who(d.ranks, ring.order[0]), plane)});
        }
        if (n < 2) continue;
        for (size_t e = 0; e < n; ++e) {
            edges.push_back({.a = ring.order[e],
                             .b = ring.order[(e + 1) % n],
                             .both_ways = false,
                             .label_ab = ring_edge_label(e)});
        }
        for (uint64_t bytes : sizes) {
            RingSize rs{.bytes = bytes, .chunk = ring_chunk(bytes, n), .iterations = iterations};
            for (size_t e = ring.first_flow; e < edges.size(); ++e)
                rs.edges.push_back({.src = edges[e].a, .dst = edges[e].b});
            ring.sizes.push_back(std::move(rs));
        }
        d.spec.size = std::max(d.spec.size, ring_chunk(largest, n));
        d.rings.push_back(std::move(ring));
    }
    if (!edges.empty()) d.rounds = {edges};
}

}  // namespace fabscope::perf
