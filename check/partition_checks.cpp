#include "check/partition_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/partitions.h"
#include "model/plan.h"
#include "model/plan_diff.h"

namespace fabscope {
namespace {

constexpr size_t kNamedInSummary = 4;

/// "h0003[1], h0007[1] and 5 more".
std::string some_ports(const Fabric& f, const std::vector<PortRef>& where) {
    std::string s;
    for (size_t i = 0; i < where.size() && i < kNamedInSummary; ++i)
        s += (i ? ", " : "") + describe(f, where[i]);
    if (where.size() > kNamedInSummary)
        s += fmt::format(" and {} more", where.size() - kNamedInSummary);
    return s;
}

/// Each CA's planned membership per partition base key.
std::map<Guid, std::map<uint16_t, Membership>> planned_members(const Fabric& f, const Plan& plan,
                                                               std::vector<std::string>& unknown) {
    std::vector<std::string> names;
    for (const PlanPartition& p : plan.partitions) {
        for (const auto* list : {&p.full, &p.limited}) {
            for (const std::string& n : *list)
                if (n != "ALL") names.push_back(n);
        }
    }
    auto nodes = resolve_plan_names(plan, f, names);
    std::map<Guid, std::map<uint16_t, Membership>> out;
    for (const PlanPartition& p : plan.partitions) {
        for (Membership m : {Membership::Limited, Membership::Full}) {
            for (const std::string& n : m == Membership::Full ? p.full : p.limited) {
                if (n == "ALL") {
                    for (const Node& node : f.nodes())
                        if (node.type == NodeType::CA) out[node.guid][p.pkey] = m;
                } else if (const Node* node = nodes[n]) {
                    out[node->guid][p.pkey] = m;
                } else {
                    unknown.push_back(n);
                }
            }
        }
    }
    return out;
}

struct Group {
    std::string kind;
    uint16_t pkey = 0;
    Membership planned = Membership::None;
    Membership found = Membership::None;
    // clang-tidy 14 reads the 0 that a defaulted <=> compares against as a null pointer.
    auto operator<=>(const Group&) const = default;  // NOLINT(modernize-use-nullptr)
};

std::string partition_name(const Plan& plan, uint16_t base) {
    for (const PlanPartition& p : plan.partitions)
        if (p.pkey == base) return fmt::format("{} ({})", p.name, format_pkey(base));
    return fmt::format("{} (not in the plan)", format_pkey(base));
}

Finding group_finding(const Fabric& f, const Plan& plan, const Group& g,
                      const std::vector<PortRef>& where) {
    const std::string part = partition_name(plan, g.pkey);
    const std::string ports = some_ports(f, where);
    std::string summary;
    if (g.kind == "partition_missing") {
        summary = fmt::format(
            "{}: not in partition {}, planned as a {} member: cut off from the "
            "partition's peers",
            ports, part, name(g.planned));
    } else if (g.kind == "partition_unexpected") {
        summary = fmt::format("{}: {} member of partition {}, which the plan does not give {}",
                              ports, name(g.found), part, where.size() > 1 ? "them" : "the host");
    } else if (g.kind == "partition_membership") {
        summary = fmt::format("{}: {} member of partition {} where the plan says {}", ports,
                              name(g.found), part, name(g.planned));
    } else {
        summary = fmt::format(
            "{}: the switch port does not pass partition {} that the host is "
            "in: its traffic in that partition is dropped at the switch",
            ports, part);
    }
    nlohmann::json ev{{"pkey", format_pkey(g.pkey)}, {"ports", where.size()}};
    if (g.planned != Membership::None) ev["planned"] = name(g.planned);
    if (g.found != Membership::None) ev["found"] = name(g.found);
    return make_finding(g.kind, Severity::Error, std::move(summary), where, std::move(ev));
}

/// One host port against its planned memberships; `plan_keys` the keys the
/// plan's partitions have.
void compare_port(const Fabric& f, const Node& n, const Port& p,
                  const std::map<uint16_t, Membership>& planned,
                  const std::set<uint16_t>& plan_keys,
                  std::map<Group, std::vector<PortRef>>& groups) {
    const PortRef at{n.guid, p.num};
    std::set<uint16_t> bases = plan_keys;
    for (uint16_t k : *p.pkeys) bases.insert(k & kPkeyBaseMask);
    const bool default_planned = plan_keys.count(kDefaultPkeyBase) != 0;
    // The switch port facing the host, where its table was read (it enforces).
    const Port* sw = p.peer ? f.port(*p.peer) : nullptr;
    const bool enforced = sw && sw->pkeys;
    for (uint16_t base : bases) {
        const Membership got = membership_of(*p.pkeys, base);
        if (enforced && got != Membership::None &&
            membership_of(*sw->pkeys, base) == Membership::None)
            groups[Group{"partition_filtered", base, {}, {}}].push_back(*p.peer);
        if (base == kDefaultPkeyBase && !default_planned) continue;
        auto it = planned.find(base);
        const Membership want = it == planned.end() ? Membership::None : it->second;
        if (want == got) continue;
        const char* kind = got == Membership::None    ? "partition_missing"
                           : want == Membership::None ? "partition_unexpected"
                                                      : "partition_membership";
        groups[Group{kind, base, want, got}].push_back(at);
    }
}

}  // namespace

std::vector<Finding> check_partitions(const Fabric& f, const Plan& plan) {
    std::vector<Finding> out;
    if (plan.partitions.empty()) return out;
    std::vector<std::string> unknown;
    auto planned = planned_members(f, plan, unknown);
    for (const std::string& n : std::set<std::string>(unknown.begin(), unknown.end())) {
        out.push_back(make_finding("partition_member_missing", Severity::Warning,
                                   fmt::format("{} is planned in a partition, but no node answers "
                                               "to that name",
                                               n),
                                   {}, {{"node", n}}));
    }
    std::set<uint16_t> plan_keys;
    for (const PlanPartition& part : plan.partitions) plan_keys.insert(part.pkey);
    std::map<Group, std::vector<PortRef>> groups;
    static const std::map<uint16_t, Membership> kNone;
    for (const Node& n : f.nodes()) {
        if (n.type != NodeType::CA) continue;
        auto it = planned.find(n.guid);
        for (const Port& p : n.ports) {
            if (p.pkeys && p.link_up())
                compare_port(f, n, p, it == planned.end() ? kNone : it->second, plan_keys, groups);
        }
    }
    for (const auto& [g, where] : groups) out.push_back(group_finding(f, plan, g, where));
    return out;
}

std::string partitions_check_detail(const Fabric& f, const Plan& plan) {
    size_t ports = 0;
    for (const Node& n : f.nodes()) {
        if (n.type != NodeType::CA) continue;
        for (const Port& p : n.ports) ports += p.pkeys && p.link_up() ? 1 : 0;
    }
    if (ports == 0)
        return fmt::format(
            "{} partitions planned; no P_Key table read (a live validate reads "
            "them, or sweep --pkeys)",
            plan.partitions.size());
    return fmt::format("{} partitions, {} host ports", plan.partitions.size(), ports);
}

}  // namespace fabscope
