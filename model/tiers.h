#pragma once
// Tier classification from the graph alone: a node's tier is its distance
// from the nearest host (CA). Hosts are 0, leaves 1, spines 2, a third switch
// tier 3. Names play no part, so a miswired or misnamed switch shows as what it is.

#include <cstdint>
#include <string>
#include <vector>

#include "model/fabric.h"

namespace fabscope {

inline constexpr int kTierUnreachable = -1;

struct Tiers {
    /// Per node (same order as Fabric::nodes()): distance from the nearest CA,
    /// or kTierUnreachable for a switch with no path to any CA.
    std::vector<int> of_node;
    int max_tier = 0;

    int tier(size_t node_index) const { return of_node[node_index]; }
    size_t count(int tier) const;
};

Tiers classify_tiers(const Fabric& fabric);

/// "host", "leaf", "spine", "core" (tier 3), "tier N" above, "unreachable".
std::string tier_name(int tier);
/// The nodes of a tier, for people: "hosts", "leaves", "spines", "core
/// switches", "switches with no path to a host", "tier N" above.
std::string tier_plural(int tier);
/// "1 leaf", "36 leaves", "1 core switch", "4 in tier 5".
std::string tier_count(int tier, size_t n);

}  // namespace fabscope
