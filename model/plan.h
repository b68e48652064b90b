#pragma once
// The expected fabric, in a file a person can write (YAML, or JSON):
//
//   fabscope_plan: 1
//   expect: {width: 4X, speed: HDR}        # every link, unless it says otherwise
//   tiers:
//     spine: [spine01, spine02]
//     leaf: [leaf01, leaf02]
//     host: [h0001, h0002]
//   links:                                  # one cable per line: node, port, node, port
//     - [h0001, 1, leaf01, 1]
//     - [leaf01, 3, spine01, 1]
//     - [leaf02, 3, spine01, 2, {width: 1X}]  # a link planned below the default
//     - [h0002, 1, leaf01, 2, {cable: {vendor: NVIDIA, part_number: MCP1650-H002E26, length_m: 2}}]
//   leaf_spine: {links_per_pair: 1}         # or: just count leaf-spine links
//   guids: {leaf01: "0x..."}                # optional: who was there (plan --from)
//   sm: {standby: 1}                        # optional: standby SMs beside the master
//   partitions:                             # optional: as OpenSM's partitions.conf
//     - {name: compute, pkey: 0x0001, full: [h0001, h0002], limited: [h0003]}
//     - {name: default, pkey: 0x7fff, full: [ALL]}   # ALL: every host
//
// Node names are node descriptions, or their first word ("h0001" for
// "h0001 HCA-1"), or GUIDs. `fabscope plan --from SNAPSHOT` writes one.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/link_rate.h"
#include "model/plan_cable.h"
#include "model/tiers.h"
#include "util/result.h"

namespace fabscope {

inline constexpr int kPlanVersion = 1;

struct PlanEnd {
    std::string node;
    uint8_t port = 0;
    // clang-tidy 14 reads the 0 that a defaulted <=> compares against as a null pointer.
    auto operator<=>(const PlanEnd&) const = default;  // NOLINT(modernize-use-nullptr)
};

struct PlanLink {
    PlanEnd a;
    PlanEnd b;
    std::optional<Width> width;  ///< overrides Plan::width for this link
    std::optional<Speed> speed;
    /// The cable planned on it (health --plan checks a host port's module against it).
    std::optional<PlanCable> cable;
};

/// A partition: its key and the hosts in it, by node name ("ALL": every CA).
struct PlanPartition {
    std::string name;
    uint16_t pkey = 0;  ///< the 15-bit key (membership bit cleared)
    std::vector<std::string> full;
    std::vector<std::string> limited;
};

struct Plan {
    std::optional<Width> width;
    std::optional<Speed> speed;
    /// Tier name ("host", "leaf", "spine", "core") -> node names.
    std::map<std::string, std::vector<std::string>> tiers;
    std::vector<PlanLink> links;
    int links_per_leaf_spine = 0;  ///< 0: no pair-count rule
    std::map<std::string, Guid> guids;
    std::optional<int> sm_standby;  ///< standby SMs expected beside the master
    std::vector<PlanPartition> partitions;

    /// Every node the plan names, in tiers or links.
    std::vector<std::string> node_names() const;
};

/// Parses a plan file; errors are "file:line:col: what is wrong", code 2.
Result<Plan> load_plan(const std::string& path);
Result<Plan> parse_plan(const std::string& text, const std::string& origin);

/// The plan of a known-good fabric: its tiers, every link, the usual rate,
/// the GUIDs, and the standby SMs and partitions where the snapshot read them. Nodes are named by
/// description (GUID where it is empty or not unique).
Plan plan_from_fabric(const Fabric& f, const Tiers& tiers);
std::string plan_to_yaml(const Plan& p);
/// The same plan as JSON (docs/plan.schema.json); load_plan() reads it back.
nlohmann::json plan_to_json(const Plan& p);

}  // namespace fabscope
