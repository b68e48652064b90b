#pragma once
// The routing section of a report: what the snapshot's forwarding tables do
// with the traffic (check/routing_checks.h, the analysis validate makes),
// named for people: per leaf, how many destinations each uplink carries and
// their spread; per credit loop, its cables in dependency order, each from
// the port that sends to the port that receives, for the table and for the
// arrows the drawing puts on the fabric.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace fabscope {

class Fabric;

/// One uplink of a leaf and the destinations it carries.
struct UplinkLoad {
    std::string port;  ///< "leaf02[5]"
    std::string peer;  ///< "spine01[2]"
    size_t destinations = 0;
};

struct LeafBalanceRow {
    std::string leaf;         ///< "leaf02"
    size_t destinations = 0;  ///< routed up, to hosts under other leaves
    size_t uplinks_up = 0;
    double spread = 0;                ///< the busiest uplink over the mean (0: none up)
    bool imbalanced = false;          ///< over the limit and worse than the most even split
    std::vector<UplinkLoad> uplinks;  ///< the active ones, by port
};

/// One cable of a credit loop, in the direction the loop holds it.
struct LoopStep {
    size_t link = 0;  ///< index into the snapshot fabric's links
    bool a_to_b = true;
    std::string from;  ///< "spine01[3]"
    std::string to;    ///< "spine02[1]"
};

struct LoopDoc {
    int vl = 0;
    std::vector<LoopStep> steps;  ///< each waits for the next; the last for the first
    std::string example;          ///< "h0001 to LID 12"
};

struct RoutingDoc {
    std::string summary;  ///< validate's check line: "48 host LIDs from 48 ports, ..."
    double limit = 1.5;   ///< the uplink spread over which a leaf is imbalanced
    /// Imbalanced leaves first, then by spread, worst first.
    std::vector<LeafBalanceRow> leaves;
    std::vector<LoopDoc> loops;
    size_t holes = 0;
};

/// The section, or nothing when the fabric has no forwarding tables (a
/// snapshot swept without routes, or a RoCE one).
std::optional<RoutingDoc> routing_doc(const Fabric& f, double imbalance_limit);

}  // namespace fabscope
