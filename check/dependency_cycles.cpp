#include "check/dependency_cycles.h"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <deque>
#include <utility>

namespace fabscope {
namespace {

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

/// The edges with dense vertex numbers (sorted: the same cycles, whatever
/// the hash order), and the vertex each number stands for.
struct DenseEdges {
    std::vector<uint32_t> vertex_at;
    std::vector<std::pair<size_t, size_t>> pairs;

    explicit DenseEdges(const Dependencies& edges) {
        std::unordered_map<uint32_t, size_t> index;
        auto dense = [&](uint32_t v) {
            auto [it, added] = index.try_emplace(v, vertex_at.size());
            if (added) vertex_at.push_back(v);
            return it->second;
        };
        pairs.reserve(edges.size());
        for (const auto& [key, ex] : edges)
            pairs.emplace_back(dense(static_cast<uint32_t>(key >> 32U)),
                               dense(static_cast<uint32_t>(key)));
        std::sort(pairs.begin(), pairs.end());
    }
};

/// The graph and its strong components.
struct Components {
    DenseEdges dense;
    Graph graph;
    std::vector<size_t> component;  ///< by dense index
    std::vector<size_t> members;    ///< by component
    std::vector<bool> self;         ///< by dense index: an edge to itself

    explicit Components(const Dependencies& edges)
        : dense(edges),
          graph(dense.pairs.begin(), dense.pairs.end(), dense.vertex_at.size()),
          component(dense.vertex_at.size()),
          self(dense.vertex_at.size(), false) {
        const size_t count = boost::strong_components(graph, component.data());
        members.assign(count, 0);
        for (size_t c : component) ++members[c];
        for (const auto& [from, to] : dense.pairs) {
            if (from == to) self[from] = true;
        }
    }
    size_t size() const { return dense.vertex_at.size(); }
    uint32_t vertex(size_t v) const { return dense.vertex_at[v]; }
    bool cyclic(size_t v) const { return members[component[v]] > 1 || self[v]; }
};

}  // namespace

std::vector<DependencyCycle> find_dependency_cycles(const Dependencies& edges,
                                                    std::set<uint32_t>* cyclic) {
    const Components cc(edges);
    const size_t n = cc.size();
    if (cyclic) {
        for (size_t v = 0; v < n; ++v) {
            if (cc.cyclic(v)) cyclic->insert(cc.vertex(v));
        }
    }
    std::vector<DependencyCycle> out;
    std::set<size_t> done;
    for (size_t start = 0; start < n; ++start) {
        const size_t c = cc.component[start];
        if (!cc.cyclic(start) || !done.insert(c).second) continue;
        // Breadth first inside the component, back to `start`.
        std::vector<size_t> parent(n, SIZE_MAX);
        std::deque<size_t> queue{start};
        size_t last = SIZE_MAX;
        while (!queue.empty() && last == SIZE_MAX) {
            const size_t v = queue.front();
            queue.pop_front();
            for (auto [e, end] = boost::out_edges(v, cc.graph); e != end; ++e) {
                const size_t w = boost::target(*e, cc.graph);
                if (cc.component[w] != c) continue;
                if (w == start) {
                    last = v;
                    break;
                }
                if (parent[w] == SIZE_MAX) {
                    parent[w] = v;
                    queue.push_back(w);
                }
            }
        }
        DependencyCycle cycle;
        for (size_t v = last; v != start; v = parent[v]) cycle.vertices.push_back(cc.vertex(v));
        cycle.vertices.push_back(cc.vertex(start));
        std::reverse(cycle.vertices.begin(), cycle.vertices.end());
        cycle.example = edges.at(dependency_key(cycle.vertices.back(), cycle.vertices.front()));
        out.push_back(std::move(cycle));
    }
    return out;
}

}  // namespace fabscope
