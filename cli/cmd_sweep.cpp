// fabscope sweep: topology, forwarding tables and port counters in one pass
// on fabscope's own MAD engine.

#include <fmt/format.h>

#include <memory>

#include "cli/cli.h"
#include "cli/sweep_options.h"
#include "util/interrupt.h"

namespace fabscope::cli {
namespace {

struct SweepCommand {
    LiveSweepOptions live;
    std::string output;
    std::string prom;
    std::string prom_metrics = "default";
    bool all_ports = false;
};

int run_sweep(const SweepCommand& o, const Globals& g) {
    auto metrics = port_metrics_option("--prom-metrics", o.prom_metrics);
    if (!metrics) return report(metrics.error(), g);
    auto out = run_live_sweep(o.live, o.all_ports, g);
    if (!out) return report(out.error(), g);
    return write_discovery(out->snapshot, std::move(out->problems), o.output, g, out->interrupted,
                           o.prom, nlohmann::json::object(), *metrics);
}

}  // namespace

void add_sweep(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<SweepCommand>();
    CLI::App* cmd = app.add_subcommand("sweep",
                                       "Topology, every switch's forwarding table and every active "
                                       "port's counters, in one read-only pass");
    add_live_sweep_options(cmd, o->live);
    cmd->add_option("-o,--output", o->output, "Write the snapshot (JSON) to FILE");
    add_prom_options(cmd, o->prom, o->prom_metrics);
    cmd->add_flag("--all-ports", o->all_ports,
                  "Sweep every plane: every local port with a link, one snapshot with a plane "
                  "per subnet");
    cmd->footer(R"(The sweep runs on fabscope's own MAD engine: many MADs in flight, a deadline per
MAD, retries with backoff, and a failure budget per path, so an unresponsive node
costs one timeout and never stalls the rest. What it could not reach is reported
as a finding; everything else in the snapshot is complete. Only Gets are sent.
Ctrl-C stops sending, lets what is in flight end within its deadline, writes the
snapshot so far marked incomplete ("complete": false) and exits 130.

Examples:
  fabscope sweep -o fabric.json
  fabscope sweep --window 32 -t 500 --retries 3
  fabscope sweep --no-counters --no-routes          # topology only
  fabscope sweep --all-ports -o planes.json       # every plane of a rail-optimised host
  fabscope sweep -q --prom /var/lib/node_exporter/textfile/fabscope.prom
  fabscope lab exec -- fabscope sweep -o fabric.json)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_sweep(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
