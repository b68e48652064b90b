#pragma once
// Cycles of a channel dependency graph: vertices are channels (a cable one
// way, or a cable one way on one VL), an edge says a packet holding the
// first waits for the second. One cycle per strongly connected component
// (Boost.Graph), found breadth first so it is a shortest one through its
// first vertex, with the flow that made its closing dependency.

#include <cstdint>
#include <set>
#include <unordered_map>
#include <vector>

#include "model/fabric.h"

namespace fabscope {

/// The first source and destination LID whose route made a dependency.
struct DependencyExample {
    Guid source = 0;
    Lid dlid = 0;
};

/// Edges by dependency_key(from, to).
using Dependencies = std::unordered_map<uint64_t, DependencyExample>;

constexpr uint64_t dependency_key(uint32_t from, uint32_t to) {
    return (static_cast<uint64_t>(from) << 32U) | to;
}

struct DependencyCycle {
    std::vector<uint32_t> vertices;  ///< in dependency order; the last depends on the first
    DependencyExample example;       ///< a flow that holds the last and waits for the first
};

/// One cycle per strongly connected component that has one, in a stable
/// order (whatever the hash order of `edges`); with `cyclic`, also every
/// vertex of those components: what a finer analysis (per VL) must look at
/// again.
std::vector<DependencyCycle> find_dependency_cycles(const Dependencies& edges,
                                                    std::set<uint32_t>* cyclic = nullptr);

}  // namespace fabscope
