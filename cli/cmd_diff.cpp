// fabscope diff A B: what changed between two snapshots.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "check/validate.h"
#include "cli/cli.h"
#include "model/json_io.h"
#include "model/snapshot.h"
#include "reports/validation_report.h"
#include "util/exit_status.h"
#include "util/time_util.h"

namespace fabscope::cli {
namespace {

struct DiffCommand {
    std::string before;
    std::string after;
    std::string thresholds;
    std::string output;
};

int run_diff(const DiffCommand& o, const Globals& g) {
    auto a = load_named_snapshot(o.before, g);
    if (!a) return report(a.error(), g);
    auto b = load_named_snapshot(o.after, g);
    if (!b) return report(b.error(), g);
    Thresholds t = default_thresholds();
    if (!o.thresholds.empty()) {
        auto loaded = load_thresholds(o.thresholds);
        if (!loaded) return report(loaded.error(), g);
        t = std::move(loaded).value();
    }
    Validation v = diff_snapshots(a->fabric, b->fabric, t);
    ValidationMeta m;
    m.command = "diff";
    m.started = iso8601_now();
    m.fabric_from = o.after;
    m.baseline = o.before;
    m.thresholds = o.thresholds;
    // Rates come from the counters of the two snapshots, over the time between them.
    CounterReadings ra = readings_of(a->fabric);
    CounterReadings rb = readings_of(b->fabric);
    m.counter_readings = static_cast<int>(!ra.empty()) + static_cast<int>(!rb.empty());
    if (m.counter_readings == 2) m.interval_s = mean_interval_s(ra, rb);
    nlohmann::json doc = validation_to_json(b->fabric, v, m);
    if (!o.output.empty()) {
        if (auto w = json_io::write_json_file(doc, o.output); !w) return report(w.error(), g);
    }
    if (!g.quiet) std::fputs(render_validation_summary(v, m, g.err_style()).c_str(), stderr);
    if (g.json) {
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    return v.failed() ? kExitFindings : kExitClean;
}

}  // namespace

void add_diff(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<DiffCommand>();
    CLI::App* cmd =
        app.add_subcommand("diff", "What changed between two snapshots (cabling, rates, counters)");
    cmd->add_option("before", o->before, "The earlier snapshot")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("after", o->after, "The later snapshot")->required()->check(CLI::ExistingFile);
    cmd->add_option("--thresholds", o->thresholds, "Counter thresholds file")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", o->output, "Write the report (JSON) to FILE");
    cmd->footer(R"(Exit codes: 0 nothing changed for the worse, 1 changes found, 2 bad input.

Examples:
  fabscope diff before.json after.json
  fabscope diff monday.json friday.json --json | jq '.findings[] | select(.kind=="counter_rising")')");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_diff(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
