// fabscope discover: topology to a snapshot and a short summary, on the
// same MAD engine (and deadlines) as sweep; or from a file.

#include <fmt/format.h>

#include <memory>

#include "cli/cli.h"
#include "cli/discover_roce.h"
#include "cli/sweep_options.h"
#include "discover/ibnetdisc_discovery.h"
#include "model/snapshot.h"
#include "util/exit_status.h"
#include "util/interrupt.h"

namespace fabscope::cli {
namespace {

struct DiscoverOptions {
    LiveSweepOptions live;
    std::string output;
    std::vector<std::string> load;
    std::string load_cache;
    RoceDiscoverOptions roce;
    bool all_ports = false;
};

// Several --load files are planes of one fabric, joined into one snapshot.
Result<Snapshot> load_planes(const std::vector<std::string>& files) {
    std::vector<Snapshot> parts;
    for (const auto& file : files) {
        auto snap = load_snapshot(file);
        if (!snap) return snap.error();
        parts.push_back(std::move(snap).value());
    }
    if (parts.size() == 1) return std::move(parts.front());
    auto merged = merge_planes(std::move(parts));
    if (!merged) return make_error(fmt::format("--load: {}", merged.error().message), kExitUsage);
    return merged;
}

int run_discover(const DiscoverOptions& o, const Globals& g) {
    if (o.roce.enabled) return run_discover_roce(o.roce, o.output, g);
    if (!o.load.empty() || !o.load_cache.empty()) {
        auto snap =
            !o.load.empty() ? load_planes(o.load) : import_ibnetdiscover_cache(o.load_cache);
        if (!snap) return report(snap.error(), g);
        name_nodes(*snap, g);
        return write_discovery(*snap, {}, o.output, g);
    }
    LiveSweepOptions live = o.live;
    live.no_routes = true;  // topology, as ibnetdiscover: `sweep` adds routes and counters
    live.no_counters = true;
    auto out = run_live_sweep(live, o.all_ports, g);
    if (!out) return report(out.error(), g);
    return write_discovery(out->snapshot, std::move(out->problems), o.output, g, out->interrupted);
}

}  // namespace

void add_discover(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<DiscoverOptions>();
    CLI::App* cmd = app.add_subcommand(
        "discover", "Discover the fabric topology into a snapshot, with a summary");
    add_live_sweep_options(cmd, o->live, false);
    cmd->add_option("-o,--output", o->output, "Write the snapshot (JSON) to FILE");
    auto* load =
        cmd->add_option("--load", o->load,
                        "Read a fabscope snapshot instead of the fabric (several: planes of one "
                        "fabric, joined into one snapshot)")
            ->check(CLI::ExistingFile);
    cmd->add_option("--load-cache", o->load_cache,
                    "Import an `ibnetdiscover --cache` file instead of the fabric")
        ->check(CLI::ExistingFile)
        ->excludes(load);
    add_roce_discover_options(cmd, o->roce);
    cmd->add_flag("--all-ports", o->all_ports,
                  "Discover every plane: every local port with a link, one snapshot with a plane "
                  "per subnet (planes told apart by subnet prefix and SM)")
        ->excludes(load);
    cmd->footer(
        R"(Discovery runs on fabscope's own MAD engine, as `sweep` does (topology only):
a deadline per MAD (-t), retries with backoff (--retries), a failure budget per
path, so a silent node costs one deadline chain and never stalls the rest. What
could not be reached is a finding, and says why (MADs lost at a port, a node
that stays silent, a path given up). Ctrl-C writes the snapshot so far, marked
incomplete, and exits 130. libibnetdisc serves --load-cache only.

RoCE (--roce): each host's RDMA devices and ports from sysfs (--sysfs-root), and
from lldpd (liblldpctl; --lldp-socket) the LLDP neighbour of each RDMA netdev:
its system name is the leaf, its port ID (or description) the leaf port, whose
number is the digits that end its name (swp12 -> 12). Several hosts: one MPI
rank per host with --mpi (rank 0 writes), or one --host-report FILE per host
assembled with --merge. The snapshot is the InfiniBand one (plus "lldp"), so
plan, validate --plan and diff work on it unchanged.

The summary (stderr) gives tiers, links by tier and rate, and anything odd: a link
below the width or speed both ends can run, a link slower than its peers between the
same tiers, a switch pair missing a link, a port in Polling.

Examples:
  fabscope discover -o fabric.json
  fabscope discover -C mlx5_0 -P 1 --json > fabric.json
  fabscope discover -t 100 --retries 1          # give up on silent nodes sooner
  fabscope discover --load fabric.json
  fabscope discover --all-ports -o planes.json    # every plane of a rail-optimised host
  fabscope discover --load plane1.json --load plane2.json -o planes.json
  ibnetdiscover --cache fabric.cache && fabscope discover --load-cache fabric.cache
  fabscope lab exec -- fabscope discover       # on the simulated lab fabric
  fabscope discover --roce -o roce.json        # this host and its leaf (lldpd)
  mpirun -np 64 --map-by ppr:1:node fabscope discover --roce --mpi -o roce.json
  fabscope discover --roce --host-report $(hostname).json   # on each host, then:
  fabscope discover --roce --merge *.json -o roce.json)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_discover(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
