// fabscope validate: after a maintenance window, is the fabric as it should
// be? Sweep, read counters again after an interval, check everything, diff
// against a plan and/or a baseline; one verdict and an exit code.

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "congestion/pma_counter_source.h"
#include "congestion/xmit_wait_tree.h"
#include "model/duration.h"
#include "model/json_io.h"
#include "model/plan.h"
#include "model/snapshot.h"
#include "model/validation.h"
#include "reports/prometheus_textfile.h"
#include "reports/validation_report.h"
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
};

/// Waits `d`, showing a countdown on a terminal; false if stopped.
bool wait_interval(Millis d, const StopToken& stop, const Globals& g) {
    const bool progress = !g.quiet && is_terminal(2);
    const auto end = std::chrono::steady_clock::now() + d;
    bool whole = true;
    for (;;) {
        auto left =
            std::chrono::ceil<std::chrono::milliseconds>(end - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        if (progress) {
            std::fprintf(
                stderr,
                "\rReading the counters again in %3lld s (Ctrl-C stops; what was read is kept) ",
                static_cast<long long>((left.count() + 999) / 1000));
        }
        if (!stop.sleep_for(std::min(left, std::chrono::milliseconds(1000)))) {
            whole = false;
            break;
        }
    }
    if (progress) std::fprintf(stderr, "\r%80s\r", "");
    return whole;
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
    auto interval = parse_duration(o.interval);
    std::optional<Plan> plan;
    std::optional<Plan> baseline;
    Thresholds thresholds = default_thresholds();
    if (!o.plan.empty()) {
        auto p = load_plan(o.plan);
        if (!p) return report(p.error(), g);
        plan = std::move(p).value();
    }
    if (!o.baseline.empty()) {
        auto b = load_named_snapshot(o.baseline, g);
        if (!b) return report(b.error(), g);
        baseline = plan_from_fabric(b->fabric, classify_tiers(b->fabric));
    }
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return report(t.error(), g);
        thresholds = std::move(t).value();
    }

    ValidationMeta meta;
    meta.command = "validate";
    meta.started = iso8601_now();
    meta.plan = o.plan;
    meta.baseline = o.baseline;
    meta.thresholds = o.thresholds;
    Stopwatch sw;

    Snapshot snap;
    std::vector<Finding> problems;
    std::optional<CounterReadings> after;
    bool after_complete = false;
    if (!o.load.empty()) {
        auto s = load_named_snapshot(o.load, g);
        if (!s) return report(s.error(), g);
        snap = std::move(s).value();
        meta.fabric_from = o.load;
    } else {
        LiveSweepOptions live = o.live;
        live.no_routes = true;  // cabling and counters, not routes
        auto session = open_live_session(live, g);
        if (!session) return report(session.error(), g);
        // From here on a Ctrl-C keeps the report: whatever was read is checked and written.
        install_interrupt_handlers();
        const StopToken& stop = interrupt_token();
        auto swept = session->sweep(&stop);
        if (!swept) return report(swept.error(), g);
        snap = std::move(swept->snapshot);
        problems = std::move(swept->problems);
        meta.interrupted = swept->interrupted;
        meta.fabric_from = fmt::format("{} port {}", snap.source.ca, snap.source.ca_port);
        if (interval->count() > 0 && !meta.interrupted) {
            if (wait_interval(*interval, stop, g)) {
                PmaSourceOptions po;
                po.engine = session->engine_options(&stop);
                PmaRead second =
                    PmaCounterSource(session->transport(), session->clock(), snap.fabric, po)
                        .read_ports();
                after = std::move(second.readings);
                meta.interrupted = second.interrupted;
                after_complete = !second.interrupted;
            } else {
                meta.interrupted = true;
            }
        }
    }
    Tiers tiers = classify_tiers(snap.fabric);
    CounterReadings before = readings_of(snap.fabric);
    ValidationInput in{snap.fabric,
                       tiers,
                       problems,
                       before.empty() ? nullptr : &before,
                       after ? &*after : nullptr,
                       plan ? &*plan : nullptr,
                       baseline ? &*baseline : nullptr,
                       thresholds};
    in.after_complete = after_complete;
    Validation v = validate(in);
    if (after) {
        // PortXmitWait as congestion trees (roots and victims), as `fabscope
        // congestion` reports it, in place of one xmit_wait finding per port.
        auto trees = congestion_trees(
            snap.fabric,
            xmit_wait_shares(snap.fabric, before, *after, thresholds.xmit_wait.tick_multiplier),
            thresholds.xmit_wait.warn);
        std::erase_if(v.findings, [](const Finding& x) { return x.kind == "xmit_wait"; });
        auto tree_findings = congestion_findings(snap.fabric, trees, thresholds.xmit_wait);
        v.findings.insert(v.findings.end(), tree_findings.begin(), tree_findings.end());
        sort_by_severity(v.findings);
    }
    meta.counter_readings = after ? 2 : before.empty() ? 0 : 1;
    if (after) meta.interval_s = mean_interval_s(before, *after);
    meta.duration_s = sw.seconds();

    nlohmann::json doc = validation_to_json(snap.fabric, v, meta);
    if (!o.output.empty()) {
        if (auto w = json_io::write_json_file(doc, o.output); !w) return report(w.error(), g);
    }
    if (!o.prom.empty()) {
        PromInput pin;
        pin.fabric = &snap.fabric;
        pin.findings = &v.findings;
        pin.counters = after ? &*after : nullptr;
        pin.complete = !meta.interrupted;
        pin.sweep_duration_s = meta.duration_s;
        pin.sweep_finished_unix_s = prom_unix_now();
        pin.version = version();
        if (auto w = write_prom_textfile(o.prom, pin); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        std::fputs(render_validation_summary(v, meta, g.err_style()).c_str(), stderr);
        if (!o.output.empty()) std::fprintf(stderr, "Report written to %s\n", o.output.c_str());
        if (!o.prom.empty()) std::fprintf(stderr, "Metrics written to %s\n", o.prom.c_str());
    }
    if (g.json) {
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    if (meta.interrupted) return kExitInterrupted;
    return v.failed() ? kExitFindings : kExitClean;
}

}  // namespace

void add_validate(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<ValidateCommand>();
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
    cmd->add_option("--prom", o->prom,
                    "Write Prometheus metrics to FILE (atomically, for node_exporter's textfile "
                    "collector)");
    add_live_sweep_options(cmd, o->live, false);
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
  fabscope validate --baseline good.json --interval 10s --json | jq '.findings[].summary'
  fabscope validate --load fabric.json --plan fabric-plan.yaml      # offline
  fabscope validate --plan fabric-plan.yaml -q --prom /var/lib/node_exporter/textfile/fabscope.prom)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_validate(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
