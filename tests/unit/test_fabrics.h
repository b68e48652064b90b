#pragma once
// In-memory fabrics for the analysis tests, shaped like the lab's.

#include <string>

#include "model/fabric.h"

namespace fabscope::testing {

struct LeafSpineShape {
    int spines = 2;
    int leaves = 4;
    int hosts_per_leaf = 4;
    int links_per_pair = 1;
    /// Hosts' node GUIDs start after this; past 4,095 hosts they would run
    /// into the leaves' (0x2000+l), so big fabrics move them up.
    Guid host_guid_base = 0x1000;
};

/// Nodes of a leaf-spine fabric, every port LinkUp/Active at 4X HDR with
/// 1X|4X enabled. GUIDs: hosts 0x1000+i, leaves 0x2000+l, spines 0x3000+s.
/// Leaf ports 1..H to hosts, then uplinks; names h0001, leaf01, spine01.
std::vector<Node> leaf_spine_nodes(const LeafSpineShape& shape);
Fabric leaf_spine(const LeafSpineShape& shape);

/// Forwarding tables as a D-mod-K subnet manager would write them: a leaf
/// sends a LID that is not below it up port (LID mod uplinks), a spine down
/// to the LID's leaf. With `lmc` > 0 hosts get 2^lmc aligned LIDs first, so
/// each of a host's LIDs is reached over another spine.
void add_dmodk_routes(std::vector<Node>& nodes, uint8_t lmc = 0);
Fabric routed_leaf_spine(const LeafSpineShape& shape, uint8_t lmc = 0);

/// `switches` switches in a ring (port 1 to the previous, 2 to the next),
/// each with one host on port 3: "host0 HCA-1".., "ring0"..; no tables.
std::vector<Node> switch_ring(int switches);

/// Finds a node by description in a node list (for editing before build).
Node& node_named(std::vector<Node>& nodes, const std::string& name);
/// Disconnects a cable: both ends Down/Polling, no peers.
void unplug(std::vector<Node>& nodes, const std::string& node, uint8_t port);
/// Swaps the cables at node[p1] and node[p2] (each far end now on the other port).
void swap_cables(std::vector<Node>& nodes, const std::string& node, uint8_t p1, uint8_t p2);
/// Sets both ends of the cable at node[port] to run `w`, with `enabled` widths enabled.
void set_link_width(std::vector<Node>& nodes, const std::string& node, uint8_t port, Width w,
                    WidthSet enabled);

}  // namespace fabscope::testing
