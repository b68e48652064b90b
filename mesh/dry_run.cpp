#include "mesh/dry_run.h"

#include <fmt/format.h>

#include "schedule/schedule_json.h"
#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

/// A rank a run would have on each endpoint.
std::vector<MeshRank> ranks_of(const Fabric& f, const std::vector<MeshEndpoint>& eps) {
    std::vector<MeshRank> ranks;
    ranks.reserve(eps.size());
    for (size_t i = 0; i < eps.size(); ++i) {
        const MeshEndpoint& e = eps[i];
        const Port* p = f.port(PortRef{e.node, e.port});
        ranks.push_back({.rank = static_cast<int>(i),
                         .host = e.name,
                         .port = e.port,
                         .plane = f.node(e.node)->plane,
                         .lid = e.lid,
                         .port_guid = p ? p->guid : 0});
    }
    return ranks;
}

/// The pairs file's lines, each end checked against the snapshot (as an
/// error naming the line) and named as the run's ranks name their hosts.
Result<std::vector<NamedPair>> pairs_of(const std::string& file, const Fabric& f,
                                        const std::vector<MeshEndpoint>& eps) {
    auto names = read_pair_names(file);
    if (!names) return names.error();
    for (NamedPair& p : *names) {
        size_t at[2] = {0, 0};
        for (size_t k = 0; k < 2; ++k) {
            auto i = find_endpoint(k == 0 ? p.a : p.b, f, eps);
            if (!i)
                return make_error(fmt::format("{}:{}: {}", file, p.line, i.error().message),
                                  kExitUsage);
            at[k] = *i;
        }
        // Two ports of one host are one host to a run: it pairs hosts, a plane at a time.
        if (eps[at[0]].name == eps[at[1]].name)
            return make_error(fmt::format("{}:{}: {} with itself", file, p.line, p.a), kExitUsage);
        p.a = eps[at[0]].name;
        p.b = eps[at[1]].name;
    }
    return names;
}

Result<Schedule> incast_of(const DryRunRequest& r, const Fabric& f,
                           const std::vector<MeshEndpoint>& eps) {
    if (r.incast == 0)
        return make_error("mesh plan: --pattern incast needs --incast K (senders)", kExitUsage);
    size_t receiver = 0;
    if (!r.receiver.empty()) {
        auto found = find_endpoint(r.receiver, f, eps);
        if (!found)
            return make_error("mesh plan: --receiver: " + found.error().message, kExitUsage);
        receiver = *found;
    }
    auto s = fabscope::incast(eps, receiver, r.incast);
    if (!s) return make_error("mesh plan: " + s.error().message, kExitUsage);
    return s;
}

/// The run's rounds as the scheduler's: rank i is endpoint i, a direction's
/// LMC path bits its variant.
Schedule schedule_of(const MeshRunData& d) {
    Schedule s;
    s.pattern = parse_pattern(d.pattern).value_or(Pattern::AllPairs);
    for (const auto& round : d.rounds) {
        Round& r = s.rounds.emplace_back();
        for (const MeshPair& p : round) {
            r.tests.push_back({.a = static_cast<size_t>(p.a),
                               .b = static_cast<size_t>(p.b),
                               .variant_ab = p.path_bits_ab,
                               .variant_ba = p.path_bits_ba,
                               .both_ways = p.both_ways});
        }
    }
    return s;
}

/// Pairs of the plan without a route, as a finding each (a cover names its
/// own: the pairs it wanted and left out); at most a hundred or so.
void add_unrouted(Schedule& s, const std::vector<MeshEndpoint>& eps, const PathOracle& oracle) {
    for (const Round& r : s.rounds) {
        for (const PairTest& t : r.tests) {
            TestFlows fl = flows_of(t, eps, oracle);
            for (const FlowPath* p : {&fl.ab, &fl.ba}) {
                if (!p->ok() && (p == &fl.ab || t.both_ways)) s.unrouted.push_back(p->error);
            }
        }
        if (s.unrouted.size() > 100) break;
    }
}

}  // namespace

Result<DryRun> dry_run(std::shared_ptr<const Fabric> routes, const std::string& from,
                       const DryRunRequest& r) {
    const std::string& pattern = r.plan.pattern;
    if (!parse_pattern(pattern)) {
        return make_error(fmt::format("mesh plan: unknown pattern \"{}\" (all-pairs, cover, leaf, "
                                      "incast, pairs, ring)",
                                      pattern),
                          kExitUsage);
    }
    const Fabric& f = *routes;
    if (!has_routes(f)) {
        return make_error(fmt::format("mesh plan: {} has no forwarding tables; sweep with "
                                      "routes (fabscope sweep -o FILE) and plan from that",
                                      from),
                          kExitUsage);
    }
    DryRun out;
    out.endpoints = endpoints_from_fabric(f);
    const auto& eps = out.endpoints;
    if (eps.size() < 2) {
        return make_error(fmt::format("mesh plan: {} has {} endpoint(s) with a link and a LID; "
                                      "a test needs two",
                                      from, eps.size()),
                          kExitUsage);
    }
    MeshRunData& d = out.run;
    d.ranks = ranks_of(f, eps);
    d.routes = routes;
    d.routes_from = from;
    if (pattern == "incast") {
        auto s = incast_of(r, f, eps);
        if (!s) return s.error();
        d.pattern = pattern;
        out.schedule = std::move(*s);
    } else {
        PlanRequest plan = r.plan;
        if (pattern == "pairs") {
            if (r.pairs_file.empty())
                return make_error("mesh plan: --pattern pairs needs --pairs FILE", kExitUsage);
            auto pairs = pairs_of(r.pairs_file, f, eps);
            if (!pairs) return pairs.error();
            plan.pairs = std::move(*pairs);
            plan.pairs_from = r.pairs_file;
        }
        Schedule scheduled;
        const std::string no_plan = plan_run(d, plan, &scheduled);
        if (!no_plan.empty()) return make_error("mesh plan: " + no_plan, kExitUsage);
        out.schedule = schedule_of(d);
        out.schedule.unrouted = std::move(scheduled.unrouted);
        out.schedule.coverage = scheduled.coverage;
    }
    const IbPathOracle oracle(f);
    Schedule& s = out.schedule;
    if (!s.coverage) s.coverage = coverage_of(s, eps, oracle, fabric_lanes(f));
    // A cover names the pairs it left out; the other patterns' show in their paths.
    if (s.unrouted.empty() && d.pattern != "cover") add_unrouted(s, eps, oracle);
    return out;
}

}  // namespace fabscope::perf
