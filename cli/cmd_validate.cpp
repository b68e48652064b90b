// fabscope validate: after a maintenance window, is the fabric as it should
// be? Sweep, read counters again after an interval, check everything, diff
// against a plan and/or a baseline; one verdict and an exit code.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "check/live/validate_run.h"
#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "model/json_io.h"
#include "model/plan.h"
#include "model/snapshot.h"
#include "model/validation.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/prometheus_textfile.h"
#include "reports/report_model.h"
#include "reports/validation_report.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#include "util/time_util.h"
#include "util/version.h"

namespace fabscope::cli {
namespace {

struct ValidateCommand {
    LiveSweepOptions live;
    std::string plan;
    std::string baseline;
    std::string thresholds;
    std::string interval = "30s";
    std::string load;
    std::string output;
    std::string prom;
    std::string prom_metrics = "default";
    std::string snapshot;  ///< the fabric checked, as sweep -o writes it
    std::string junit;
    std::string html;
    std::string md;
    std::string command_line;
};

/// --junit, --html, --md: what `fabscope report` makes of the snapshot and
/// the validation, written from this run so that the two always belong
/// together.
Status write_reports(const ValidateCommand& o, const Snapshot& snap, const nlohmann::json& doc) {
    if (o.junit.empty() && o.html.empty() && o.md.empty()) return Ok{};
    auto v = validation_doc_from_json(doc);
    if (!v) return v.error();
    ReportMeta meta;
    meta.tool_version = version();
    meta.command_line = o.command_line;
    meta.generated = iso8601_now();
    ReportModel m = build_report(snap, std::move(v).value(), {}, meta);
    const std::pair<const std::string*, std::string (*)(const ReportModel&)> outputs[] = {
        {&o.junit, render_junit_report},
        {&o.html, render_html_report},
        {&o.md, render_markdown_report}};
    for (const auto& [path, render] : outputs) {
        if (path->empty()) continue;
        std::string text = render(m);
        auto w = json_io::write_file_atomically(*path, [&](std::ostream& out) { out << text; });
        if (!w) return w;
    }
    return Ok{};
}

/// The snapshot file the report names, absolute, so `report` finds it from
/// anywhere; "" for none or standard input/output.
std::string snapshot_named(const std::string& file) {
    if (file.empty() || file == "-") return "";
    std::error_code ec;
    std::filesystem::path p = std::filesystem::absolute(file, ec);
    return ec ? file : p.lexically_normal().string();
}

/// The live fabric (a sweep, the counters again after the interval), or the
/// snapshot of --load, checked.
Result<ValidateOutcome> check(const ValidateCommand& o, const ValidateInputs& in,
                              const Globals& g) {
    if (!o.load.empty()) {
        auto s = load_named_snapshot(o.load, g);
        if (!s) return s.error();
        return validate_snapshot(std::move(s).value(), o.load, in);
    }
    LiveSweepOptions live = o.live;
    live.pkeys = live.pkeys || (in.plan && !in.plan->partitions.empty());
    auto session = open_live_session(live, g);
    if (!session) return session.error();
    // From here on a Ctrl-C keeps the report: whatever was read is checked and written.
    install_interrupt_handlers();
    return validate_live(*session, in, g.progress(), interrupt_token());
}

int run_validate(const ValidateCommand& o, const Globals& g) {
    // Every input first: a typo in a file must not cost a sweep and an interval.
    auto interval_ms = parse_duration_ms(o.interval);
    if (!interval_ms) {
        return report(make_error(fmt::format("--interval {}: not a duration; use one such as 10s, "
                                             "1m, 500ms (0 = one counter reading)",
                                             o.interval)),
                      g);
    }
    if (*interval_ms > 0 && *interval_ms < 1) {
        return report(make_error(fmt::format("--interval {}: shorter than 1 ms; use at least 1ms, "
                                             "or 0 for one counter reading",
                                             o.interval)),
                      g);
    }
    auto metrics = port_metrics_option("--prom-metrics", o.prom_metrics);
    if (!metrics) return report(metrics.error(), g);
    auto interval = parse_duration(o.interval);
    ValidateInputs in;
    in.interval = *interval;
    in.thresholds = default_thresholds();
    if (!o.plan.empty()) {
        auto p = load_plan(o.plan);
        if (!p) return report(p.error(), g);
        in.plan = std::move(p).value();
    }
    if (!o.baseline.empty()) {
        auto b = load_named_snapshot(o.baseline, g);
        if (!b) return report(b.error(), g);
        in.baseline = plan_from_fabric(b->fabric, classify_tiers(b->fabric));
    }
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return report(t.error(), g);
        in.thresholds = std::move(t).value();
    }

    ValidationMeta meta;
    meta.command = "validate";
    meta.started = iso8601_now();
    meta.plan = o.plan;
    meta.baseline = o.baseline;
    meta.thresholds = o.thresholds;
    meta.snapshot = snapshot_named(o.snapshot.empty() ? o.load : o.snapshot);
    Stopwatch sw;
    auto checked = check(o, in, g);
    if (!checked) return report(checked.error(), g);
    const Snapshot& snap = checked->snapshot;
    const Validation& v = checked->validation;
    meta.fabric_from = checked->fabric_from;
    meta.interrupted = checked->interrupted;
    meta.counter_readings = checked->counter_readings;
    meta.interval_s = checked->interval_s;
    meta.duration_s = sw.seconds();

    nlohmann::json doc = validation_to_json(snap.fabric, v, meta);
    if (!o.output.empty()) {
        if (auto w = json_io::write_json_file(doc, o.output); !w) return report(w.error(), g);
    }
    if (!o.snapshot.empty()) {
        if (auto w = save_snapshot(snap, o.snapshot); !w) return report(w.error(), g);
    }
    if (auto w = write_reports(o, snap, doc); !w) return report(w.error(), g);
    if (!o.prom.empty()) {
        PromInput pin;
        pin.fabric = &snap.fabric;
        pin.findings = &v.findings;
        pin.counters = checked->after ? &*checked->after : nullptr;
        pin.complete = !meta.interrupted;
        pin.sm_read = snap.source.sm_read;
        pin.sweep_duration_s = meta.duration_s;
        pin.sweep_finished_unix_s = prom_unix_now();
        pin.version = version();
        pin.port_metrics = *metrics;
        if (auto w = write_prom_textfile(o.prom, pin); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        std::fputs(render_validation_summary(v, meta, g.err_style()).c_str(), stderr);
        if (!o.output.empty()) std::fprintf(stderr, "Report written to %s\n", o.output.c_str());
        if (!o.prom.empty()) std::fprintf(stderr, "Metrics written to %s\n", o.prom.c_str());
        for (const std::string* f : {&o.snapshot, &o.junit, &o.html, &o.md}) {
            if (!f->empty()) std::fprintf(stderr, "Written to %s\n", f->c_str());
        }
    }
    if (g.json) {
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    if (meta.interrupted) return kExitInterrupted;
    return v.failed() ? kExitFindings : kExitClean;
}

}  // namespace

void add_validate(CLI::App& app, Context& ctx, const std::vector<std::string>& argv) {
    auto o = std::make_shared<ValidateCommand>();
    o->command_line = "fabscope";
    for (size_t i = 1; i < argv.size(); ++i) o->command_line += " " + argv[i];
    CLI::App* cmd = app.add_subcommand(
        "validate", "Is the fabric as it should be? One verdict, an exit code, a report");
    cmd->add_option("--plan", o->plan,
                    "The expected fabric (YAML or JSON; `fabscope plan --from` writes one)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--baseline", o->baseline, "A snapshot of the fabric when it was good")
        ->check(CLI::ExistingFile);
    cmd->add_option("--thresholds", o->thresholds,
                    "Counter thresholds (YAML or JSON; defaults in the user guide)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--interval", o->interval,
                    "Time between the two counter readings (default 30s; 0 = one reading)");
    cmd->add_option("--load", o->load,
                    "Validate a snapshot instead of the live fabric (one counter reading)")
        ->check(CLI::ExistingFile);
    cmd->add_option("-o,--output", o->output, "Write the report (JSON) to FILE");
    cmd->add_option("--snapshot", o->snapshot,
                    "Write the fabric it checked to FILE (a snapshot, as sweep -o writes it)");
    cmd->add_option("--junit", o->junit,
                    "Write JUnit XML to FILE (as report --format junit: one case per cable and "
                    "per check)");
    cmd->add_option("--html", o->html, "Write the HTML report to FILE (as report)");
    cmd->add_option("--md", o->md, "Write the Markdown report to FILE (as report --format md)");
    add_prom_options(cmd, o->prom, o->prom_metrics);
    add_live_sweep_options(cmd, o->live, false);
    cmd->add_flag("--no-routes", o->live.no_routes,
                  "Do not read the forwarding tables (no routing check: credit loops, holes, "
                  "balance)");
    cmd->footer(
        R"(Checks: links below the width or speed both ends can do, below their peers or below
the plan; ports down that should be up; cabling against the plan or baseline (missing,
unexpected and miswired links, swapped cables, nodes gone or new); duplicate GUIDs and
LIDs; error counters as rates over the interval (saturation and clears handled,
64-bit counters preferred) and PortXmitWait as a share of it.

Exit codes: 0 no problems, 1 problems (warnings or errors), 2 bad flags or input
files, 3 could not reach the fabric, 130 interrupted (the report so far is written).

Examples:
  fabscope sweep -o good.json && fabscope plan --from good.json -o fabric-plan.yaml
  fabscope validate --plan fabric-plan.yaml --interval 30s -o report.json
  fabscope validate --plan fabric-plan.yaml --junit fabscope-junit.xml --snapshot fabric.json
  fabscope validate --baseline good.json --interval 10s --json | jq '.findings[].summary'
  fabscope validate --load fabric.json --plan fabric-plan.yaml      # offline
  fabscope validate --plan fabric-plan.yaml -q --prom /var/lib/node_exporter/textfile/fabscope.prom)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_validate(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
