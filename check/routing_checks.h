#pragma once
// What the switches' linear forwarding tables do with the traffic between
// every pair of host ports, without sending a packet:
//  - credit loops: the channel dependency graph (a packet holding a buffer on
//    one cable while it waits for the next) has a cycle, so a full fabric can
//    deadlock with no error counter moving. All traffic is taken to be on one
//    VL (SL 0; no SL-to-VL table is read), which is also what ibdmchk assumes
//    when it checks OpenSM's dump files; where that finds a loop, a live
//    validate checks it again per VL (check/vl_credit_loops.h), with each
//    flow's SL from the SA and the switches' SL-to-VL tables;
//  - holes: a LID in use that a switch on the way has no route for, routes a
//    packet back out of the port it came in by, or sends out of a port whose
//    link is down;
//  - balance: per switch, how many destination LIDs each egress port carries;
//    per leaf, the spread over its uplinks of the destinations under other
//    leaves (after a spine link fails, a reroute can pile them onto one).

#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"
#include "model/paths.h"

namespace fabscope {

/// How many destination LIDs each egress port of a switch carries.
struct PortLoad {
    PortRef port;
    Guid peer = 0;        ///< the node at the other end (0: not cabled)
    bool uplink = false;  ///< a leaf's port toward another switch
    size_t destinations = 0;
};

struct SwitchBalance {
    Guid node = 0;
    bool leaf = false;               ///< a switch with host ports cabled to it
    std::vector<PortLoad> ports;     ///< egress ports that carry at least one LID, by number
    size_t uplink_destinations = 0;  ///< a leaf's destinations routed up
    size_t uplinks_active = 0;       ///< its uplinks whose link is up
    size_t uplink_most = 0;          ///< what the busiest of them carries
    double uplink_spread = 0;        ///< max / mean over its active uplinks (0: none)
    /// Above `limit` and worse than the most even split could be (a leaf
    /// with 8 destinations over 3 uplinks carries 3, 3, 2 at best).
    bool imbalanced(double limit) const;
};

struct CreditLoop {
    std::vector<Lane> lanes;  ///< the cables in dependency order; the last depends on the first
    int vl = 0;
    /// The VL is each flow's SL through the switches' SL-to-VL tables, not
    /// the one VL assumed for all traffic.
    bool per_vl = false;
    std::vector<int> vls;  ///< per VL: each lane's VL (a loop may change VL on the way)
    /// A flow whose route holds the loop's last lane and waits for its first.
    Guid example_source = 0;
    Lid example_dlid = 0;
};

struct RoutingAnalysis {
    size_t destinations = 0;  ///< host LIDs routed to
    size_t sources = 0;       ///< host ports routed from
    size_t dependencies = 0;  ///< edges of the channel dependency graph between switch cables
    std::vector<CreditLoop> loops;
    /// The lanes of every cyclic component of the one-VL graph (empty
    /// without a loop): what a check per VL must look at again.
    std::vector<Lane> cyclic_lanes;
    /// How the loops' VLs were found: "" (one VL assumed), or what the check
    /// per VL read ("per VL: the SLs of 20 flows from the SA, 12 SL-to-VL tables").
    std::string vl_basis;
    std::vector<Finding> holes;  ///< "route_hole" findings
    std::vector<SwitchBalance> balance;
};

/// The whole analysis; an empty one when the fabric has no forwarding tables.
RoutingAnalysis analyse_routing(const Fabric& f);

/// "credit_loop" (error) per loop, "route_hole" per hole, and
/// "route_imbalance" (warning) for each leaf that SwitchBalance::imbalanced.
std::vector<Finding> routing_findings(const Fabric& f, const RoutingAnalysis& a, double imbalance);

/// For validate's check list: "48 host LIDs from 48 ports, 312 dependencies:
/// no credit loop; uplink spread at most 1.0x".
std::string routing_check_detail(const RoutingAnalysis& a);

}  // namespace fabscope
