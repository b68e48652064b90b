#include "cli/sweep_options.h"

#include <fmt/format.h>

#include <cstdio>

#include "check/sweep_findings.h"
#include "discover/plane_sweep.h"
#include "model/tiers.h"
#include "reports/discover_summary.h"
#include "reports/prometheus_textfile.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#include "util/version.h"

namespace fabscope::cli {

void add_live_sweep_options(CLI::App* cmd, LiveSweepOptions& o, bool with_content) {
    cmd->add_option("-C,--Ca", o.ca, "Local CA (default: first with an active port)");
    cmd->add_option("-P,--Port", o.ca_port, "Local CA port (default: first active)");
    cmd->add_option("-t,--timeout", o.timeout_ms,
                    "First attempt's deadline per MAD, ms (default 200)")
        ->check(CLI::Range(1U, 60000U));
    cmd->add_option("--retries", o.retries,
                    "Attempts after the first, each with twice the deadline (default 2)")
        ->check(CLI::Range(0, 10));
    cmd->add_option("--window,--outstanding-mads,--outstanding-smps,--outstanding_smps", o.window,
                    "MADs in flight (default 64; at most 256 under ibsim)")
        ->check(CLI::Range(size_t{1}, size_t{4096}));
    cmd->add_option(
           "--failure-budget", o.failure_budget,
           "Failed requests to one path before it is given up, with all behind it (default 1)")
        ->check(CLI::Range(1, 100));
    cmd->add_option("--max-hops,--max_hops", o.max_hops,
                    "Longest directed route followed (default 63)")
        ->check(CLI::Range(size_t{1}, size_t{63}));
    if (with_content) {
        cmd->add_flag("--no-routes", o.no_routes, "Do not read the linear forwarding tables");
        cmd->add_flag("--no-counters", o.no_counters, "Do not read port counters");
        cmd->add_flag("--pkeys", o.pkeys,
                      "Read the P_Key tables of the host ports and of the switch ports facing "
                      "them (validate does when the plan has partitions)");
    }
}

namespace {

/// The sweep's passes on stderr: redrawn in place on a terminal, a line
/// each with -v when stderr is not one.
std::function<void(std::string_view, size_t)> sweep_progress(Progress p) {
    if (p == Progress::Off) return nullptr;
    return [p](std::string_view pass, size_t nodes) {
        if (p == Progress::Lines) {
            std::fprintf(stderr, "Sweeping: %.*s (%zu nodes)\n", static_cast<int>(pass.size()),
                         pass.data(), nodes);
        } else if (pass == "done") {
            std::fprintf(stderr, "\r%80s\r", "");
        } else {
            std::fprintf(stderr, "\rSweeping: %.*s (%zu nodes so far) ",
                         static_cast<int>(pass.size()), pass.data(), nodes);
        }
        std::fflush(stderr);
    };
}

}  // namespace

LiveOptions live_options(const LiveSweepOptions& o, const Globals& g, bool progress) {
    LiveOptions l;
    l.ca = o.ca;
    l.ca_port = o.ca_port;
    l.verbose = g.verbose > 0;
    l.node_names = g.node_names;
    l.sweep.engine.window = o.window;
    l.sweep.engine.timeout = std::chrono::milliseconds(o.timeout_ms);
    l.sweep.engine.retries = o.retries;
    l.sweep.engine.failure_budget = o.failure_budget;
    l.sweep.max_hops = o.max_hops;
    l.sweep.routes = !o.no_routes;
    l.sweep.counters = !o.no_counters;
    l.sweep.pkeys = o.pkeys;
    // Not under the TUI or in a long-running service: the screen or the log is theirs.
    if (progress) l.sweep.on_pass = sweep_progress(g.progress());
    return l;
}

Result<LiveSession> open_live_session(const LiveSweepOptions& o, const Globals& g, bool progress) {
    return LiveSession::open(live_options(o, g, progress));
}

Result<SweepOutput> run_live_sweep(const LiveSweepOptions& o, bool all_ports, const Globals& g) {
    if (all_ports && (!o.ca.empty() || o.ca_port != 0)) {
        return make_error("--all-ports sweeps every local port: it takes no -C/-P", kExitUsage);
    }
    if (all_ports) {
        install_interrupt_handlers();
        return sweep_all_ports(live_options(o, g), &interrupt_token());
    }
    auto session = open_live_session(o, g);
    if (!session) return session.error();
    install_interrupt_handlers();
    return session->sweep(&interrupt_token());
}

int write_discovery(const Snapshot& snap, std::vector<Finding> problems, const std::string& output,
                    const Globals& g, bool interrupted_now, const std::string& prom,
                    const nlohmann::json& more, uint8_t prom_metrics) {
    const Tiers tiers = classify_tiers(snap.fabric);
    const std::vector<Finding> findings = sweep_findings({snap, tiers, std::move(problems)}).all();

    nlohmann::json extra{{"findings", findings_to_json(snap.fabric, findings)}};
    extra.update(more);
    if (!output.empty()) {
        if (auto w = save_snapshot(snap, output, extra); !w) return report(w.error(), g);
    }
    if (!prom.empty()) {
        PromInput in;
        in.fabric = &snap.fabric;
        in.findings = &findings;
        in.complete = snap.source.complete;
        in.sm_read = snap.source.sm_read;
        in.sweep_duration_s = snap.source.duration_s;
        in.sweep_finished_unix_s = prom_unix_now();
        in.version = version();
        in.port_metrics = prom_metrics;
        if (auto w = write_prom_textfile(prom, in); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        std::string text =
            render_discover_summary(snap, tiers, findings, SummaryOptions{g.err_style()});
        std::fputs(text.c_str(), stderr);
        if (interrupted_now) {
            std::fputs(
                "Interrupted: the snapshot holds what was read before the stop, marked "
                "incomplete (source.complete false)\n",
                stderr);
        }
        if (!output.empty()) std::fprintf(stderr, "Snapshot written to %s\n", output.c_str());
        if (!prom.empty()) std::fprintf(stderr, "Metrics written to %s\n", prom.c_str());
    }
    if (g.json) {
        if (auto w = save_snapshot(snap, "-", extra); !w) return report(w.error(), g);
    }
    return interrupted_now ? kExitInterrupted : kExitClean;
}

void add_prom_options(CLI::App* cmd, std::string& prom, std::string& metrics) {
    cmd->add_option("--prom", prom,
                    "Write Prometheus metrics to FILE (atomically, for node_exporter's textfile "
                    "collector)");
    cmd->add_option("--prom-metrics", metrics,
                    "Per-port metric groups for --prom: link, errors, traffic, packets, lane, "
                    "default (link,errors,traffic) or all");
}

Result<uint8_t> port_metrics_option(const std::string& flag, const std::string& list) {
    auto set = parse_port_metrics(list);
    if (!set)
        return make_error(fmt::format("{} {}: {}", flag, list, set.error().message), kExitUsage);
    return set;
}

}  // namespace fabscope::cli
