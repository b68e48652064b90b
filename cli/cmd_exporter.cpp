// fabscope exporter: the fabric as Prometheus metrics, swept every interval
// and served on /metrics. The loop and the server are exporter/; this only
// reads the flags and opens the session.

#include <fmt/format.h>

#include <memory>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "exporter/exporter.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#include "util/version.h"

namespace fabscope::cli {
namespace {

struct ExporterCommand {
    LiveSweepOptions live;
    std::string listen = "127.0.0.1:9775";
    std::string interval = "30s";
    std::string metrics = "default";
};

int run_exporter_command(const ExporterCommand& o, const Globals& g) {
    auto listen = parse_listen_address(o.listen);
    if (!listen) return report(listen.error(), g);
    auto metrics = port_metrics_option("--metrics", o.metrics);
    if (!metrics) return report(metrics.error(), g);
    auto interval = parse_duration(o.interval);
    if (!interval || interval->count() < 100) {
        return report(make_error(fmt::format("--interval {}: use a duration of at least 100ms, "
                                             "such as 30s or 1m",
                                             o.interval)),
                      g);
    }
    LiveSweepOptions live = o.live;
    live.no_routes = true;  // the metrics need ports and counters, not forwarding tables
    auto session = open_live_session(live, g, false);
    if (!session) return report(session.error(), g);
    install_interrupt_handlers();

    ExporterOptions eo;
    eo.listen = *listen;
    eo.interval = *interval;
    eo.version = version();
    eo.quiet = g.quiet;
    eo.port_metrics = *metrics;
    eo.verbose = g.verbose;
    LiveSession& s = *session;
    auto sweep = [&s](const StopToken* stop) { return s.sweep(stop); };
    if (auto r = run_exporter(eo, sweep, interrupt_token()); !r) return report(r.error(), g);
    // Stopped by SIGTERM or Ctrl-C: the service's normal end, nothing was lost.
    return kExitClean;
}

}  // namespace

void add_exporter(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<ExporterCommand>();
    CLI::App* cmd = app.add_subcommand(
        "exporter", "Serve the fabric's port counters, links and findings to Prometheus");
    cmd->add_option("--listen", o->listen,
                    "ADDR:PORT to serve /metrics on (default 127.0.0.1:9775; [::1]:PORT for IPv6, "
                    "port 0 = any free one)");
    cmd->add_option("--interval", o->interval,
                    "Time from one sweep's start to the next (default 30s)");
    cmd->add_option("--metrics", o->metrics,
                    "Per-port metric groups: link, errors, traffic, packets, lane, default "
                    "(link,errors,traffic) or all; e.g. default,packets");
    add_live_sweep_options(cmd, o->live, false);
    cmd->footer(R"(A sweeper sweeps the fabric (topology, PortInfo and port counters; read-only)
every --interval, one sweep at a time; /metrics answers at once from the last
complete sweep, and a scrape never starts one. A failed sweep counts in
fabscope_sweep_failures_total and the last good one is still served. Only GET and
HEAD of / and /metrics are answered. Per port it serves, by default, the link's
state, width and rates, every error, discard and wait counter and the bytes each
way (20 series a port: 328,000 on a 4,096-host fabric); --metrics default,packets
adds the packet counters, all adds those and one lane's rate. It listens on 127.0.0.1 unless told otherwise:
the metrics name every node and cable of the fabric.
SIGTERM or Ctrl-C stops it (exit 0). Bad flags exit 2; no device or an address
that cannot be bound exits 3.

Examples:
  fabscope exporter                                  # http://127.0.0.1:9775/metrics
  fabscope exporter --listen 0.0.0.0:9775 --interval 1m --node-name-map /etc/fabric/names
  fabscope lab exec -- fabscope exporter --interval 5s
  curl -s http://127.0.0.1:9775/metrics | grep symbol_errors)");
    cmd->callback(
        [&ctx, o] { ctx.action = [&ctx, o] { return run_exporter_command(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
