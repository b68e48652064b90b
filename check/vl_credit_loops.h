#pragma once
// Credit loops per VL. The one-VL check (check/routing_checks.h) takes all
// traffic to be on one VL, as ibdmchk does; a subnet manager that breaks
// loops with VLs (LASH, DFSSSP, torus-2QoS) gives each path an SL, and each
// switch maps (input port, output port, SL) to the VL the packet leaves on
// (SLtoVLMappingTable). A loop on VLs is a cycle of (cable, VL) channels.
// Any such cycle projects onto a cycle of the one-VL graph, so only the
// flows that cross a cyclic component of it are looked at again: a fabric
// without a one-VL loop needs no SL and no table. Pure: the SLs (the SA's
// PathRecords) and the tables are read by discover/vl_inputs.h.

#include <array>
#include <cstdint>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "check/routing_checks.h"
#include "model/paths.h"

namespace fabscope {

/// A switch's SLtoVLMappingTable for one input and one output port.
struct Sl2VlKey {
    Guid node = 0;
    uint8_t in = 0;
    uint8_t out = 0;
    friend bool operator<(const Sl2VlKey& a, const Sl2VlKey& b) {
        return std::tie(a.node, a.in, a.out) < std::tie(b.node, b.in, b.out);
    }
    friend bool operator==(const Sl2VlKey& a, const Sl2VlKey& b) = default;
};
using Sl2VlTable = std::array<uint8_t, 16>;  ///< the VL of SL 0..15 (15: dropped)
using Sl2VlTables = std::map<Sl2VlKey, Sl2VlTable>;

/// A flow: its source port's LID and its destination LID.
using LidPair = std::pair<Lid, Lid>;
/// The SL the SA gives each flow's path.
using FlowSls = std::map<LidPair, uint8_t>;

/// A flow leaving a switch on a cyclic lane, and the table that gives the
/// VL it leaves on.
struct VlHop {
    LidPair flow;
    Guid source = 0;  ///< the flow's source node
    Lane lane = 0;
    Sl2VlKey table;        ///< the switch, the port the flow came in by, the port it leaves by
    bool follows = false;  ///< the hop before it (the same flow's) is on the lane just before
};

struct VlNeeds {
    std::vector<LidPair> flows;    ///< whose routes cross a cyclic lane
    std::vector<Sl2VlKey> tables;  ///< where those routes leave a switch on one
    std::vector<VlHop> hops;       ///< every such hop, each flow's in route order
    bool too_many = false;         ///< more than `max_flows`: the lists stop there
};

/// What checking `a`'s loops per VL needs (nothing when it has no loop);
/// the walk stops once more than `max_flows` flows cross the loops.
VlNeeds vl_needs(const Fabric& f, const RoutingAnalysis& a, size_t max_flows = SIZE_MAX);

/// Replaces a.loops with the loops per VL and says so in a.vl_basis; when a
/// flow's SL or a table is missing, leaves the loops and says what was
/// missing in a.vl_basis.
void check_loops_per_vl(RoutingAnalysis& a, const VlNeeds& needs, const FlowSls& sls,
                        const Sl2VlTables& tables);

}  // namespace fabscope
