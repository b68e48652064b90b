// fabscope mesh plan: the schedule of a fabric-wide test (which endpoints test
// with which, round by round, and the path of every flow), from a snapshot
// with forwarding tables, without sending traffic.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "model/snapshot.h"
#include "schedule/schedule.h"
#include "schedule/schedule_json.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct MeshPlanCommand {
    std::string load;
    std::string pattern = "cover";
    size_t max_rounds = 8;
    size_t passes = 1;
    size_t incast = 0;
    std::string receiver;
    std::string pairs_file;
    bool no_paths = false;
};

Result<Schedule> make_schedule(const MeshPlanCommand& o, Pattern p, const Fabric& f,
                               const std::vector<MeshEndpoint>& eps, const PathOracle& oracle) {
    switch (p) {
        case Pattern::AllPairs: return all_pairs(eps.size());
        case Pattern::Leaf: return leaf_pairs(eps);
        case Pattern::Cover: return cover(eps, oracle, fabric_lanes(f), o.max_rounds, o.passes);
        case Pattern::Incast: {
            if (o.incast == 0)
                return make_error("mesh plan: --pattern incast needs --incast K (senders)",
                                  kExitUsage);
            size_t receiver = 0;
            if (!o.receiver.empty()) {
                auto r = find_endpoint(o.receiver, f, eps);
                if (!r)
                    return make_error("mesh plan: --receiver: " + r.error().message, kExitUsage);
                receiver = *r;
            }
            auto s = incast(eps, receiver, o.incast);
            if (!s) return make_error("mesh plan: " + s.error().message, kExitUsage);
            return s;
        }
        case Pattern::Pairs: {
            if (o.pairs_file.empty())
                return make_error("mesh plan: --pattern pairs needs --pairs FILE", kExitUsage);
            auto pairs = read_pairs_file(o.pairs_file, f, eps);
            if (!pairs) return pairs.error();
            return explicit_pairs(eps.size(), *pairs);
        }
    }
    return make_error("mesh plan: unknown pattern", kExitUsage);
}

int run_mesh_plan(const MeshPlanCommand& o, const Globals& g) {
    auto pattern = parse_pattern(o.pattern);
    if (!pattern) {
        return report(make_error(fmt::format("mesh plan: unknown pattern \"{}\" (all-pairs, "
                                             "cover, leaf, incast, pairs)",
                                             o.pattern),
                                 kExitUsage),
                      g);
    }
    auto snap = load_named_snapshot(o.load, g);
    if (!snap) return report(snap.error(), g);
    const Fabric& f = snap->fabric;
    if (!has_routes(f)) {
        return report(make_error(fmt::format("mesh plan: {} has no forwarding tables; sweep with "
                                             "routes (fabscope sweep -o FILE) and plan from that",
                                             o.load),
                                 kExitUsage),
                      g);
    }
    auto eps = endpoints_from_fabric(f);
    if (eps.size() < 2) {
        return report(make_error(fmt::format("mesh plan: {} has {} endpoint(s) with a link and "
                                             "a LID; a test needs two",
                                             o.load, eps.size()),
                                 kExitUsage),
                      g);
    }
    IbPathOracle oracle(f);
    auto s = make_schedule(o, *pattern, f, eps, oracle);
    if (!s) return report(s.error(), g);
    if (!s->coverage) s->coverage = coverage_of(*s, eps, oracle, fabric_lanes(f));
    // Unrouted pairs of patterns other than cover show up in the paths.
    if (s->unrouted.empty() && *pattern != Pattern::Cover) {
        for (const Round& r : s->rounds) {
            for (const PairTest& t : r.tests) {
                TestFlows fl = flows_of(t, eps, oracle);
                for (const FlowPath* p : {&fl.ab, &fl.ba}) {
                    if (!p->ok() && (p == &fl.ab || t.both_ways)) s->unrouted.push_back(p->error);
                }
            }
            if (s->unrouted.size() > 100) break;
        }
    }

    if (!g.quiet) {
        TextStyle st = g.err_style();
        size_t all_rounds = eps.size() - (eps.size() % 2 == 0);
        std::fprintf(stderr, "%s\n",
                     fmt::format("mesh plan {}: {} endpoints, {} round{}, {} flows (all-pairs: {} "
                                 "rounds)",
                                 name(*pattern), eps.size(), s->rounds.size(),
                                 s->rounds.size() == 1 ? "" : "s", s->flows(), all_rounds)
                         .c_str());
        std::fprintf(stderr, "  switch-to-switch lanes crossed: %zu of %zu (%.1f%%)\n",
                     s->coverage->crossed, s->coverage->lanes, 100.0 * s->coverage->fraction());
        std::fprintf(stderr, "  host links crossed: %zu of %zu endpoints sending, %zu receiving\n",
                     s->coverage->senders, s->coverage->endpoints, s->coverage->receivers);
        for (size_t i = 0; i < s->unrouted.size() && i < 5; ++i)
            std::fprintf(stderr, "  %s %s\n", st.yellow("no path:").c_str(),
                         s->unrouted[i].c_str());
        if (s->unrouted.size() > 5)
            std::fprintf(stderr, "  ... and %zu more without a path\n", s->unrouted.size() - 5);
    }
    if (g.json) {
        ScheduleJsonOptions jo;
        jo.paths = !o.no_paths;
        std::printf("%s\n", schedule_json(*s, eps, f, &oracle, jo).dump(1).c_str());
    }
    // Pairs without a path are broken routes: a finding, as for `route`.
    return s->unrouted.empty() ? kExitClean : kExitFindings;
}

}  // namespace

void add_mesh(CLI::App& app, Context& ctx) {
    CLI::App* mesh = app.add_subcommand("mesh", "Fabric-wide pairwise tests");
    mesh->require_subcommand(1);
    auto o = std::make_shared<MeshPlanCommand>();
    CLI::App* plan = mesh->add_subcommand(
        "plan", "The schedule of a fabric-wide test, with each flow's path (no traffic sent)");
    plan->add_option("--load", o->load, "Snapshot with forwarding tables (from `fabscope sweep`)")
        ->required()
        ->check(CLI::ExistingFile);
    plan->add_option("--pattern", o->pattern,
                     "all-pairs | cover (every switch-to-switch lane) | leaf | incast | pairs")
        ->capture_default_str();
    plan->add_option("--max-rounds", o->max_rounds, "cover: at most this many rounds")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    plan->add_option("--passes", o->passes,
                     "cover: cross every lane and test every endpoint this many times, other "
                     "pairs each time")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    plan->add_option("--incast", o->incast, "incast: K senders to one receiver")
        ->check(CLI::Range(1, 1000000));
    plan->add_option("--receiver", o->receiver, "incast: the receiver (default: the first host)");
    plan->add_option("--pairs", o->pairs_file, "pairs: a file of \"SRC DST\" lines")
        ->check(CLI::ExistingFile);
    plan->add_flag("--no-paths", o->no_paths, "Leave each flow's hops out of the JSON");
    plan->footer(R"(Exit code 1 when some planned flow has no route (a table without an entry,
a link down on the path); 2 when the snapshot has no forwarding tables.

Examples:
  fabscope lab exec -- fabscope sweep -o fabric.json
  fabscope mesh plan --load fabric.json
  fabscope mesh plan --load fabric.json --pattern all-pairs --json --no-paths
  fabscope mesh plan --load fabric.json --pattern incast --incast 8 --receiver h0001 --json)");
    plan->callback(
        [&ctx, o] { ctx.action = [&ctx, o] { return run_mesh_plan(*o, ctx.globals); }; });
    add_mesh_run(mesh, ctx);
}

}  // namespace fabscope::cli
