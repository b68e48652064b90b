#include "model/tiers.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <boost/property_map/property_map.hpp>

#include "model/fabric_graph.h"

namespace fabscope {

size_t Tiers::count(int tier) const {
    return static_cast<size_t>(std::count(of_node.begin(), of_node.end(), tier));
}

Tiers classify_tiers(const Fabric& fabric) {
    const auto& g = fabric.graph().g;
    const size_t n = boost::num_vertices(g);
    Tiers t;
    t.of_node.assign(n, kTierUnreachable);

    std::vector<size_t> hosts;
    for (size_t i = 0; i < n; ++i) {
        if (fabric.nodes()[i].type == NodeType::CA) hosts.push_back(i);
    }
    if (hosts.empty()) return t;

    // One breadth-first search seeded with every host gives each node its
    // distance to the nearest one.
    std::vector<size_t> dist(n, 0);
    for (size_t h : hosts) dist[h] = 0;
    std::vector<boost::default_color_type> color(n, boost::white_color);
    auto color_map =
        boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
    boost::queue<FabricGraph::Graph::vertex_descriptor> queue;
    boost::breadth_first_search(
        g, hosts.begin(), hosts.end(), queue,
        boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge())),
        color_map);

    for (size_t i = 0; i < n; ++i) {
        if (color[i] == boost::white_color) continue;  // never reached
        t.of_node[i] = static_cast<int>(dist[i]);
        t.max_tier = std::max(t.max_tier, t.of_node[i]);
    }
    return t;
}

namespace {
struct TierWords {
    const char* one = nullptr;  ///< null: a tier without a name of its own
    const char* many = nullptr;
};
TierWords tier_words(int tier) {
    switch (tier) {
        case 0: return {"host", "hosts"};
        case 1: return {"leaf", "leaves"};
        case 2: return {"spine", "spines"};
        case 3: return {"core switch", "core switches"};
        case kTierUnreachable:
            return {"switch with no path to a host", "switches with no path to a host"};
        default: return {};
    }
}
}  // namespace

std::string tier_plural(int tier) {
    const TierWords w = tier_words(tier);
    return w.many ? w.many : fmt::format("tier {}", tier);
}

std::string tier_count(int tier, size_t n) {
    const TierWords w = tier_words(tier);
    if (!w.one) return fmt::format("{} in tier {}", n, tier);
    return fmt::format("{} {}", n, n == 1 ? w.one : w.many);
}

std::string tier_name(int tier) {
    switch (tier) {
        case kTierUnreachable: return "unreachable";
        case 0: return "host";
        case 1: return "leaf";
        case 2: return "spine";
        case 3: return "core";
        default: return "tier " + std::to_string(tier);
    }
}

}  // namespace fabscope
