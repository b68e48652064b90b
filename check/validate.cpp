#include "check/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "check/ber.h"
#include "check/counter_checks.h"
#include "check/identity_checks.h"
#include "check/link_checks.h"
#include "check/partition_checks.h"
#include "check/sm_checks.h"
#include "model/plan_diff.h"

namespace fabscope {
namespace {

bool all_in(const std::vector<PortRef>& where, const std::set<PortRef>& ports) {
    return std::all_of(where.begin(), where.end(),
                       [&](const PortRef& r) { return ports.count(r); });
}

/// Every port of `x` is named by a finding in `by` (a port-0 reference, a
/// whole switch, by any finding on that node).
bool covered(const Finding& x, const std::vector<Finding>& by) {
    return std::all_of(x.where.begin(), x.where.end(), [&](const PortRef& r) {
        return std::any_of(by.begin(), by.end(), [&](const Finding& y) {
            return std::any_of(y.where.begin(), y.where.end(), [&](const PortRef& w) {
                return r.port == 0 ? w.node == r.node : w == r;
            });
        });
    });
}

/// The subnet managers (when the sweep read SMInfo) and the partitions
/// (when the plan has some).
void check_subnet(Validation& v, const ValidationInput& in) {
    if (in.sm_read) {
        SmCheckInput sm{in.fabric, true, in.plan ? in.plan->sm_standby : std::nullopt, in.sm_after,
                        in.sm_interval_s};
        auto found = in.sm_findings ? *in.sm_findings : check_subnet_managers(sm);
        v.findings.insert(v.findings.end(), found.begin(), found.end());
        v.checks.push_back({"subnet_manager", "subnet managers: one master, standbys, activity",
                            sm_check_detail(sm)});
    }
    if (in.plan && !in.plan->partitions.empty()) {
        auto found = check_partitions(in.fabric, *in.plan);
        v.findings.insert(v.findings.end(), found.begin(), found.end());
        v.checks.push_back({"partitions", "hosts' partitions against the plan",
                            partitions_check_detail(in.fabric, *in.plan)});
    }
}

}  // namespace

Validation validate(const ValidationInput& in) {
    Validation v;
    const Fabric& f = in.fabric;
    v.findings = in.sweep_problems;
    v.checks.push_back({"inventory", "nodes and links",
                        fmt::format("{} nodes, {} links", f.nodes().size(), f.links().size())});

    std::vector<Finding> heuristics =
        in.link_findings ? *in.link_findings : check_links(f, in.tiers);
    v.checks.push_back({"links",
                        "widths and speeds against what both ends can do and against their "
                        "peers; port states",
                        ""});

    std::set<PortRef> planned;
    bool structural = in.plan || in.baseline;
    // A baseline and a plan may both see the same problem: keep one (the
    // plan's, which comes first), found by a set, not a scan per finding.
    std::set<std::pair<std::string, std::vector<PortRef>>> seen;
    for (const Finding& x : v.findings) seen.emplace(x.kind, x.where);
    for (const Plan* p : {in.plan, in.baseline}) {
        if (!p) continue;
        PlanDiff d =
            diff_against_plan(*p, f, in.tiers, p == in.plan ? Expected::Plan : Expected::Baseline);
        planned.insert(d.planned_ports.begin(), d.planned_ports.end());
        for (Finding& x : d.findings) {
            if (seen.emplace(x.kind, x.where).second) v.findings.push_back(std::move(x));
        }
        if (v.expected.empty()) {
            for (auto& [a, b] : d.cables) v.expected.push_back({std::move(a), std::move(b)});
        }
        const bool plan = p == in.plan;
        v.checks.push_back({plan ? "cabling_plan" : "cabling_baseline",
                            plan ? "cabling against the plan" : "cabling against the baseline",
                            fmt::format("{} links", p->links.size())});
    }
    std::vector<Finding> changes;
    if (in.since) {
        PlanDiff d = diff_against_plan(*in.since, f, in.tiers, Expected::Baseline);
        for (Finding& x : d.findings) {
            bool dup = std::any_of(v.findings.begin(), v.findings.end(), [&](const Finding& y) {
                return y.kind == x.kind && y.where == x.where;
            });
            if (!dup) changes.push_back(std::move(x));
        }
        v.checks.push_back({"changes", "changes since the first reading", ""});
    }
    v.findings.insert(v.findings.end(), changes.begin(), changes.end());
    for (Finding& x : heuristics) {
        // What the plan or baseline says wins over a guess without one.
        if (structural && x.kind == "link_count_asymmetry") continue;
        if ((x.kind == "port_polling" || x.kind == "link_below_peers") && all_in(x.where, planned))
            continue;
        // So does what changed since the first reading, on the same ports.
        if ((x.kind == "link_count_asymmetry" || x.kind == "port_polling" ||
             x.kind == "link_below_peers") &&
            covered(x, changes))
            continue;
        v.findings.push_back(std::move(x));
    }

    auto ids = check_identities(f);
    v.findings.insert(v.findings.end(), ids.begin(), ids.end());
    v.checks.push_back({"identities", "duplicate LIDs and GUIDs", ""});
    check_subnet(v, in);

    if (has_routes(f)) {
        const RoutingAnalysis routing = in.routing ? *in.routing : analyse_routing(f);
        auto found = routing_findings(f, routing, in.thresholds.routing.imbalance);
        v.findings.insert(v.findings.end(), found.begin(), found.end());
        v.checks.push_back({"routing", "credit loops, holes and balance of the forwarding tables",
                            routing_check_detail(routing)});
    }

    if (in.before && in.after) {
        auto rates = check_counter_rates(f, *in.before, *in.after, in.thresholds);
        v.findings.insert(v.findings.end(), rates.begin(), rates.end());
        v.checks.push_back({"counter_rates", "error counters and PortXmitWait as rates",
                            fmt::format("{} counters on {} ports", in.thresholds.counters.size(),
                                        in.after->size())});
        auto ber = check_ber(f, *in.before, *in.after, in.thresholds.ber);
        v.findings.insert(v.findings.end(), ber.begin(), ber.end());
        v.checks.push_back({"bit_error_rate",
                            "bit error rate from symbol errors, raw BER from RS-FEC",
                            ber_check_detail(f, *in.before, *in.after, in.thresholds.ber)});
        if (in.after_complete) {
            auto silent = check_unanswered(f, *in.before, *in.after);
            v.findings.insert(v.findings.end(), silent.begin(), silent.end());
        }
    } else if (in.before) {
        auto sat = check_saturated(f, *in.before);
        v.findings.insert(v.findings.end(), sat.begin(), sat.end());
        v.checks.push_back({"counter_saturation", "saturated error counters",
                            fmt::format("{} ports, one reading: no rates", in.before->size())});
    }
    sort_by_severity(v.findings);
    return v;
}

Validation diff_snapshots(const Fabric& before, const Fabric& after, const Thresholds& t) {
    Validation v;
    v.checks.push_back(
        {"inventory", "nodes and links",
         fmt::format("{} nodes, {} links before; {} nodes, {} links after", before.nodes().size(),
                     before.links().size(), after.nodes().size(), after.links().size())});
    Tiers tb = classify_tiers(before);
    Tiers ta = classify_tiers(after);
    PlanDiff d = diff_against_plan(plan_from_fabric(before, tb), after, ta, Expected::Baseline);
    v.findings = std::move(d.findings);
    v.checks.push_back({"changes", "nodes, cabling, widths and speeds", ""});
    CounterReadings rb = readings_of(before);
    CounterReadings ra = readings_of(after);
    if (!rb.empty() && !ra.empty()) {
        auto rates = check_counter_rates(after, rb, ra, t);
        v.findings.insert(v.findings.end(), rates.begin(), rates.end());
        v.checks.push_back(
            {"counter_rates", "error counters as rates", fmt::format("{} ports", ra.size())});
        auto ber = check_ber(after, rb, ra, t.ber);
        v.findings.insert(v.findings.end(), ber.begin(), ber.end());
        v.checks.push_back({"bit_error_rate",
                            "bit error rate from symbol errors, raw BER from RS-FEC",
                            ber_check_detail(after, rb, ra, t.ber)});
    }
    sort_by_severity(v.findings);
    return v;
}

}  // namespace fabscope
