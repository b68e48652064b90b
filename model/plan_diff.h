#pragma once
// A fabric against its plan (or against a baseline snapshot turned into one):
//  - node_missing: a planned node is not there (its planned links are part
//    of this finding, not reported again);
//  - node_new: a node the plan does not name;
//  - node_replaced: a planned node answers with another GUID (info);
//  - link_down: a planned cable is not up, and neither end is cabled elsewhere;
//  - miswired: a planned port is cabled to another port than planned;
//  - cables_swapped: two planned cables are each on the other's port;
//  - unexpected_link: a cable between planned nodes that the plan does not have;
//  - degraded_link: a planned link runs below its planned width or speed;
//  - leaf_spine_links: a leaf-spine pair with another count than planned;
//  - tier_mismatch: a node in another tier than planned.
// Every finding names the ports at both ends by name, GUID and port.

#include <map>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"
#include "model/plan.h"
#include "model/port_label.h"
#include "model/tiers.h"

namespace fabscope {

struct PlanDiff {
    std::vector<Finding> findings;
    /// Ports the plan speaks for: heuristic findings about them (polling,
    /// below peers) are superseded by the plan's.
    std::vector<PortRef> planned_ports;
    /// Every planned cable, its ends named as the plan names them (with the
    /// GUID of the node that answers to the name, the planned one when it is
    /// missing).
    std::vector<std::pair<PortLabel, PortLabel>> cables;
};

/// What the plan stands for, which sets the words of the findings: a plan
/// ("planned spine01[1]", "not in the plan"), or a known-good snapshot
/// ("was spine01[1]", "not in the baseline"). The JSON evidence keys are the same.
enum class Expected { Plan, Baseline };

/// Linear in the size of the plan and the fabric (O(n log n)), apart from
/// the leaf-spine pair rule, which looks at every pair it names.
/// The node each of `names` means in `f`: the plan's GUID for the name
/// first, then a node whose description (or its first word, or GUID, or
/// LID) it is; nullptr for a name no node answers to.
std::map<std::string, const Node*> resolve_plan_names(const Plan& plan, const Fabric& f,
                                                      const std::vector<std::string>& names);

PlanDiff diff_against_plan(const Plan& plan, const Fabric& f, const Tiers& tiers,
                           Expected expected = Expected::Plan);

}  // namespace fabscope
