// fabscope plan --from SNAPSHOT: the expected fabric, from a known-good one.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "model/json_io.h"
#include "model/plan.h"
#include "model/snapshot.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct PlanCommand {
    std::string from;
    std::string output;
    int links_per_pair = 0;
};

int run_plan(const PlanCommand& o, const Globals& g) {
    auto snap = load_named_snapshot(o.from, g);
    if (!snap) return report(snap.error(), g);
    Plan p = plan_from_fabric(snap->fabric, classify_tiers(snap->fabric));
    p.links_per_leaf_spine = o.links_per_pair;
    // --json: the plan as JSON (docs/plan.schema.json) wherever it goes.
    std::string text = g.json ? plan_to_json(p).dump(1) + "\n" : plan_to_yaml(p);
    auto written = json_io::write_file_atomically(o.output.empty() ? "-" : o.output,
                                                  [&](std::ostream& out) { out << text; });
    if (!written) return report(written.error(), g);
    if (!g.quiet) {
        std::fprintf(stderr, "Plan: %zu nodes in %zu tiers, %zu links%s\n", p.guids.size(),
                     p.tiers.size(), p.links.size(),
                     o.output.empty() ? "" : fmt::format(", written to {}", o.output).c_str());
    }
    return kExitClean;
}

}  // namespace

void add_plan(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<PlanCommand>();
    CLI::App* cmd =
        app.add_subcommand("plan", "Write the plan (expected fabric) of a known-good snapshot");
    cmd->add_option("--from", o->from, "A snapshot of the fabric when it was good")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", o->output, "Write the plan to FILE (default: stdout)");
    cmd->add_option("--links-per-pair", o->links_per_pair,
                    "Also check every leaf-spine pair has N links")
        ->check(CLI::Range(0, 64));
    cmd->footer(
        R"(The plan lists the tiers, every cable (node, port, node, port), the usual width and
speed (and any link planned off it), and the GUIDs. Edit it freely: it is YAML.
With --json the plan is written as JSON instead (docs/plan.schema.json); validate
reads either.

Examples:
  fabscope plan --from good.json -o fabric-plan.yaml
  fabscope plan --from good.json --json | jq '.links | length'
  fabscope validate --plan fabric-plan.yaml)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_plan(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
