// fabscope sweep: topology, forwarding tables and port counters in one pass
// on fabscope's own MAD engine.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "model/link_checks.h"
#include "model/snapshot.h"
#include "reports/discover_summary.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

struct SweepCommand {
    LiveSweepOptions live;
    std::string output;
};

int run_sweep(const SweepCommand& o, const Globals& g) {
    auto out = run_live_sweep(o.live, g);
    if (!out) return report(out.error(), g);
    Tiers tiers = classify_tiers(out->snapshot.fabric);
    std::vector<Finding> findings = out->problems;
    auto checks = check_links(out->snapshot.fabric, tiers);
    findings.insert(findings.end(), checks.begin(), checks.end());

    nlohmann::json extra{{"findings", findings_to_json(out->snapshot.fabric, findings)}};
    if (!o.output.empty()) {
        if (auto w = save_snapshot(out->snapshot, o.output, extra); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        std::string text =
            render_discover_summary(out->snapshot, tiers, findings, SummaryOptions{g.err_style()});
        std::fputs(text.c_str(), stderr);
        if (!o.output.empty()) std::fprintf(stderr, "Snapshot written to %s\n", o.output.c_str());
    }
    if (g.json) {
        if (auto w = save_snapshot(out->snapshot, "-", extra); !w) return report(w.error(), g);
    }
    return kExitClean;
}

}  // namespace

void add_sweep(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<SweepCommand>();
    CLI::App* cmd = app.add_subcommand("sweep",
                                       "Topology, every switch's forwarding table and every active "
                                       "port's counters, in one read-only pass");
    add_live_sweep_options(cmd, o->live);
    cmd->add_option("-o,--output", o->output, "Write the snapshot (JSON) to FILE");
    cmd->footer(R"(The sweep runs on fabscope's own MAD engine: many MADs in flight, a deadline per
MAD, retries with backoff, and a failure budget per path, so an unresponsive node
costs one timeout and never stalls the rest. What it could not reach is reported
as a finding; everything else in the snapshot is complete. Only Gets are sent.

Examples:
  fabscope sweep -o fabric.json
  fabscope sweep --window 32 -t 500 --retries 3
  fabscope sweep --no-counters --no-routes          # topology only
  fabscope lab exec -- fabscope sweep -o fabric.json)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_sweep(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
