// fabscope congestion: where is the fabric slow, and why? Two PMA readings of
// every port an interval apart, PortXmitWait as a share of the interval, and
// the congestion trees it forms over the routes: the root named first, the
// ports waiting behind it as its victims.

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "congestion/congestion_report.h"
#include "congestion/ib_run.h"
#include "congestion/roce_run.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/interrupt.h"

namespace fabscope::cli {
namespace {

struct CongestionCommand {
    LiveSweepOptions live;
    std::string interval = "10s";
    std::string thresholds;
    bool watch = false;
    bool roce = false;
    std::string sysfs_root;
    std::string before, after;
};

/// RoCE: asked for, a fixture tree or saved readings given, or every local
/// RDMA port is Ethernet.
bool wants_roce(const CongestionCommand& o) {
    return o.roce || !o.sysfs_root.empty() || !o.before.empty() || !o.after.empty() ||
           local_devices_are_roce("/sys/class/infiniband");
}

int run_congestion(const CongestionCommand& o, const Globals& g) {
    auto interval = parse_duration(o.interval);
    if (!interval || interval->count() < 1) {
        return report(
            make_error(fmt::format(
                "--interval {}: not a duration of at least 1ms; use one such as 10s, 1m, 500ms",
                o.interval)),
            g);
    }
    Thresholds thresholds = default_thresholds();
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return report(t.error(), g);
        thresholds = std::move(t).value();
    }
    if (wants_roce(o)) {
        if (o.before.empty() != o.after.empty())
            return report(make_error("--before and --after go together: the two saved readings"),
                          g);
        RoceRunOptions r;
        // DIR stands for / as in `health --sysfs-root`: one tree serves both.
        if (!o.sysfs_root.empty()) r.sysfs_root = o.sysfs_root + "/sys/class/infiniband";
        r.interval = *interval;
        r.watch = o.watch && o.before.empty();
        r.thresholds = std::move(thresholds);
        r.before_dir = o.before;
        r.after_dir = o.after;
        r.json = g.json;
        r.quiet = g.quiet;
        r.progress = g.progress();
        r.style = g.err_style();
        install_interrupt_handlers();
        return run_roce_congestion(r, interrupt_token());
    }
    LiveSweepOptions live = o.live;
    live.no_routes = false;  // the trees follow the forwarding tables
    live.no_counters = false;
    auto session = open_live_session(live, g);
    if (!session) return report(session.error(), g);
    IbRunOptions r;
    r.interval = *interval;
    r.watch = o.watch;
    r.thresholds = std::move(thresholds);
    r.json = g.json;
    r.quiet = g.quiet;
    r.progress = g.progress();
    r.style = g.err_style();
    install_interrupt_handlers();
    auto run = run_ib_congestion(*session, r, interrupt_token());
    return run ? *run : report(run.error(), g);
}

}  // namespace

void add_congestion(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<CongestionCommand>();
    CLI::App* cmd = app.add_subcommand(
        "congestion",
        "Where is the fabric slow? PortXmitWait over an interval, congestion trees "
        "with their root named first");
    cmd->add_option("--interval", o->interval,
                    "Time between the two counter readings (default 10s)");
    cmd->add_flag("--watch", o->watch,
                  "Measure again and again until Ctrl-C (with --json: one JSON document per line)");
    cmd->add_option("--thresholds", o->thresholds,
                    "xmit_wait thresholds (YAML or JSON; defaults in the user guide)")
        ->check(CLI::ExistingFile);
    cmd->add_flag("--roce", o->roce,
                  "This host's RoCE devices (the default when every local RDMA port is Ethernet)");
    cmd->add_option(
           "--sysfs-root", o->sysfs_root,
           "RoCE: read DIR/sys/... instead of /sys (as health does: a fixture tree, a copied host)")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--before", o->before,
                    "RoCE: analyse two saved readings: the first (a host folder or a folder of "
                    "hosts; see the user guide)")
        ->check(CLI::ExistingDirectory);
    cmd->add_option("--after", o->after,
                    "RoCE: the second saved reading, taken --interval after --before")
        ->check(CLI::ExistingDirectory);
    add_live_sweep_options(cmd, o->live, false);
    cmd->footer(
        R"(Sweeps the fabric (topology, forwarding tables, counters), reads every port's
PMA counters again after --interval and turns the PortXmitWait rise into the
share of the interval each port waited with data to send. Ports waiting at
least xmit_wait.warn form congestion trees over the routes: the bottom-most
waiting port is the root (a slow receiver when it feeds a host, else a
bottleneck link) and is named first; the ports waiting toward it are victims,
each with its chain of ports. A port that does not answer the second reading
is a finding (counters_unanswered), never left out silently. Both readings
also ask for the per-VL PortXmitWait (PortVLXmitWaitCounters): the lanes a
waiting port waited on are shown with it; a port that refuses them is
counted as per-VL not supported, no finding.

On RoCE (--roce, or when every local RDMA port is Ethernet) it reads this
host's RDMA hw_counters, the ethtool statistics of the netdev behind each
port (SIOCETHTOOL) and its DCB settings (dcbnl) twice, --interval apart, and
reports PFC storms (pause time per priority), who sends pauses and who only
receives them, ECN marks without CNPs, CNPs with collapsing throughput, and
loss on the lossless class. --before/--after analyse two saved readings
(fixture trees) as if taken --interval apart.

Exit codes: 0 no congestion, 1 findings, 2 bad flags or input files, 3 could
not reach the fabric, 130 interrupted (rounds already measured are printed;
stopped before the first round's second reading, its report without rates).

Examples:
  fabscope congestion --interval 10s
  fabscope congestion --interval 2s --json | jq '.trees[] | .root.node'
  fabscope congestion --watch --interval 30s --json > congestion.ndjson
  fabscope lab exec -- fabscope congestion --interval 2s
  fabscope congestion --roce --interval 5s --json
  fabscope congestion --before saved/before --after saved/after --interval 10s)");
    cmd->callback(
        [&ctx, o] { ctx.action = [&ctx, o] { return run_congestion(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
