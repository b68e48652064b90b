// fabscope mesh plan: the schedule of a fabric-wide test (which endpoints test
// with which, round by round, and the path of every flow), from a snapshot
// with forwarding tables, without sending traffic.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "mesh/dry_run.h"
#include "model/snapshot.h"
#include "schedule/schedule_json.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct MeshPlanCommand {
    std::string load;
    perf::DryRunRequest request{.plan = {.pattern = "cover"}};
    bool no_paths = false;
};

int run_mesh_plan(const MeshPlanCommand& o, const Globals& g) {
    auto snap = load_named_snapshot(o.load, g);
    if (!snap) return report(snap.error(), g);
    auto fabric = std::make_shared<const Fabric>(std::move(snap->fabric));
    auto planned = perf::dry_run(fabric, o.load, o.request);
    if (!planned) return report(planned.error(), g);
    const Fabric& f = *fabric;
    const Schedule& s = planned->schedule;
    const auto& eps = planned->endpoints;
    if (!g.quiet) {
        TextStyle st = g.err_style();
        size_t all_rounds = eps.size() - (eps.size() % 2 == 0);
        std::fprintf(stderr, "%s\n",
                     fmt::format("mesh plan {}: {} endpoints, {} round{}, {} flows (all-pairs: {} "
                                 "rounds)",
                                 name(s.pattern), eps.size(), s.rounds.size(),
                                 s.rounds.size() == 1 ? "" : "s", s.flows(), all_rounds)
                         .c_str());
        std::fprintf(stderr, "  switch-to-switch lanes crossed: %zu of %zu (%.1f%%)\n",
                     s.coverage->crossed, s.coverage->lanes, 100.0 * s.coverage->fraction());
        std::fprintf(stderr, "  host links crossed: %zu of %zu endpoints sending, %zu receiving\n",
                     s.coverage->senders, s.coverage->endpoints, s.coverage->receivers);
        for (const perf::MeshFinding& x : planned->run.findings)
            std::fprintf(stderr, "  %s\n", x.message.c_str());
        for (size_t i = 0; i < s.unrouted.size() && i < 5; ++i)
            std::fprintf(stderr, "  %s %s\n", st.yellow("no path:").c_str(), s.unrouted[i].c_str());
        if (s.unrouted.size() > 5)
            std::fprintf(stderr, "  ... and %zu more without a path\n", s.unrouted.size() - 5);
    }
    if (g.json) {
        ScheduleJsonOptions jo;
        jo.paths = !o.no_paths;
        const IbPathOracle oracle(f);
        std::printf("%s\n", schedule_json(s, eps, f, &oracle, jo).dump(1).c_str());
    }
    // Pairs without a path are broken routes: a finding, as for `route`.
    return s.unrouted.empty() ? kExitClean : kExitFindings;
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
    plan->add_option("--pattern", o->request.plan.pattern,
                     "all-pairs | cover (every switch-to-switch lane) | leaf | incast | pairs | "
                     "ring")
        ->capture_default_str();
    plan->add_option("--max-rounds", o->request.plan.max_cover_rounds,
                     "cover: at most this many rounds")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    plan->add_option("--passes", o->request.plan.cover_passes,
                     "cover: cross every lane and test every endpoint this many times, other "
                     "pairs each time")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    plan->add_option("--incast", o->request.incast, "incast: K senders to one receiver")
        ->check(CLI::Range(1, 1000000));
    plan->add_option("--receiver", o->request.receiver,
                     "incast: the receiver (default: the first host)");
    plan->add_option("--pairs", o->request.pairs_file, "pairs: a file of \"SRC DST\" lines")
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
