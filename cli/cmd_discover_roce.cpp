// fabscope discover --roce: this host's (or every MPI rank's) RDMA inventory
// and LLDP neighbours, assembled into the snapshot InfiniBand discovery writes.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/discover_roce.h"
#include "cli/sweep_options.h"
#include "host/roce_host_json.h"
#include "model/json_io.h"
#include "ranks/launcher.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/host_name.h"
#include "util/time_util.h"
#include "util/version.h"
#ifdef FABSCOPE_HAVE_LLDPCTL
#include "host/lldp_lldpctl.h"
#endif
#ifdef FABSCOPE_HAVE_MPI
#include "host/roce_discover_run.h"
#include "ranks/comm_mpi.h"
#endif

namespace fabscope::cli {
namespace {

host::RoceHost this_host(const RoceDiscoverOptions& o) {
    host::RoceHost h;
    h.name = o.host_name;
    if (h.name.empty()) {
        std::string full = host_name();
        h.name = full.substr(0, full.find('.'));
    }
    h.inventory = host::read_inventory(o.sysfs_root);
#ifdef FABSCOPE_HAVE_LLDPCTL
    auto raw = host::read_lldpd_neighbours(o.lldp_socket);
    if (raw) {
        h.neighbours = host::rdma_netdev_neighbours(h.inventory, host::to_neighbours(*raw));
    } else {
        h.lldp_error = raw.error().message;
    }
#else
    h.lldp_error =
        "this fabscope was built without liblldpctl (Debian, Ubuntu: apt-get install "
        "liblldpctl-dev, and build again)";
#endif
    return h;
}

/// Per host port, where LLDP says it is cabled: the lines the summary adds.
void print_lldp(const std::vector<host::RoceHost>& hosts, const Globals& g) {
    if (g.quiet) return;
    for (const host::RoceHost& h : hosts) {
        for (const host::LldpNeighbour& n : h.neighbours) {
            std::string port = n.port_number
                                   ? fmt::format("{} (port {})", n.port_name, *n.port_number)
                                   : n.port_name;
            std::string dcb;
            if (n.pfc)
                dcb = fmt::format(", PFC on {}", n.pfc->priorities());
            else if (!n.dcbx.empty())
                dcb = ", DCBX TLVs without PFC";
            std::fprintf(stderr, "LLDP: %s %s -> %s %s, chassis %s%s\n", h.name.c_str(),
                         n.netdev.c_str(), n.system_name.c_str(), port.c_str(),
                         n.chassis_id.c_str(), dcb.c_str());
        }
    }
}

}  // namespace

void add_roce_discover_options(CLI::App* cmd, RoceDiscoverOptions& o) {
    auto* roce = cmd->add_flag("--roce", o.enabled,
                               "RoCE: hosts from their RDMA inventory, leaves and cabling from "
                               "LLDP (lldpd), instead of an InfiniBand sweep");
    cmd->add_option("--sysfs-root", o.sysfs_root, "RoCE: read sysfs under DIR (default /)")
        ->needs(roce);
    cmd->add_option("--lldp-socket", o.lldp_socket,
                    "RoCE: lldpd's control socket (default lldpd's own; `lldpd -u PATH`)")
        ->needs(roce);
    cmd->add_option("--host-name", o.host_name, "RoCE: this host's name (default: hostname)")
        ->needs(roce);
    auto* mpi = cmd->add_flag("--mpi", o.mpi,
                              "RoCE: one MPI rank per host (mpirun, srun) sends its part to rank "
                              "0, which writes the snapshot")
                    ->needs(roce);
    cmd->add_option("--gather-timeout", o.gather_timeout_s,
                    "RoCE with --mpi: seconds rank 0 waits for the hosts, and with --trace "
                    "again for their traces (default 60)")
        ->check(CLI::Range(0.1, 3600.0))
        ->needs(mpi);
    auto* trace = cmd->add_flag("--trace", o.trace,
                                "RoCE with --mpi: trace paths between the hosts (one per other "
                                "leaf) and add the routers above the leaves (spines) and their "
                                "cables")
                      ->needs(mpi);
    cmd->add_option("--names", o.names,
                    "RoCE with --trace: hosts file (/etc/hosts format) naming the routers by the "
                    "addresses they answer from")
        ->needs(trace);
    cmd->add_option("--trace-ports", o.trace_ports,
                    "RoCE with --trace: UDP source ports traced per pair (ECMP: the more spines, "
                    "the more ports; default 8)")
        ->check(CLI::Range(1, 256))
        ->needs(trace);
    cmd->add_option("--tracers-per-leaf", o.tracers_per_leaf,
                    "RoCE with --trace: hosts of each leaf that trace, each to one host under "
                    "every other leaf (0: every host; default 2)")
        ->check(CLI::Range(0, 1024))
        ->needs(trace);
    cmd->add_option("--trace-timeout", o.trace_timeout,
                    "RoCE with --trace: each probe waits this long (default 300ms)")
        ->check([](const std::string& v) {
            auto d = parse_duration(v);
            return d && d->count() > 0 && d->count() <= 10000
                       ? std::string()
                       : std::string("a duration from 1ms to 10s, e.g. 300ms");
        })
        ->needs(trace);
    auto* report = cmd->add_option("--host-report", o.host_report,
                                   "RoCE: write this host's part (inventory, LLDP) to FILE "
                                   "instead of a snapshot, for --merge")
                       ->needs(roce)
                       ->excludes(mpi);
    cmd->add_option("--merge", o.merge,
                    "RoCE: assemble the snapshot from these host reports (--host-report)")
        ->needs(roce)
        ->excludes(mpi)
        ->excludes(report)
        ->check(CLI::ExistingFile);
}

namespace {

/// What every way of gathering the hosts ends with: the snapshot written.
struct RoceRun {
    const RoceDiscoverOptions& o;
    const std::string& output;
    const Globals& g;
    std::string started = iso8601_now();
    Stopwatch sw;
};

int write_roce_snapshot(const RoceRun& run, const std::vector<host::RoceHost>& hosts,
                        host::RoceAssembly assembled, std::vector<Finding> problems,
                        const nlohmann::json& traced) {
    problems.insert(problems.end(), assembled.problems.begin(), assembled.problems.end());
    Snapshot snap;
    snap.source.method = traced.is_null() ? "roce-lldp" : "roce-lldp-trace";
    snap.source.tool_version = version();
    snap.source.started = run.started;
    snap.source.duration_s = run.sw.seconds();
    snap.source.input_file =
        run.o.merge.empty() ? "" : fmt::format("{}", fmt::join(run.o.merge, ","));
    snap.fabric = std::move(assembled.fabric);
    name_nodes(snap, run.g);
    print_lldp(hosts, run.g);
    if (!traced.is_null() && !run.g.quiet) {
        for (const auto& c : traced["cables"])
            std::fprintf(stderr, "traced: %s [%s] <-> %s [%s]\n", c["a"].get<std::string>().c_str(),
                         c["a_address"].get<std::string>().c_str(),
                         c["b"].get<std::string>().c_str(),
                         c["b_address"].get<std::string>().c_str());
    }
    nlohmann::json extra = {{"lldp", host::lldp_to_json(hosts)}};
    if (!traced.is_null()) extra["traced"] = traced;
    return write_discovery(snap, std::move(problems), run.output, run.g, false, "", extra);
}

/// One rank per host: rank 0 gathers, traces when asked, and writes.
int run_discover_roce_mpi(const RoceRun& run, const host::RoceHost& mine) {
#ifdef FABSCOPE_HAVE_MPI
    const RoceDiscoverOptions& o = run.o;
    host::RoceRanksRequest request;
    request.gather_timeout_s = o.gather_timeout_s;
    request.trace = o.trace;
    request.trace_ports = o.trace_ports;
    request.tracers_per_leaf = o.tracers_per_leaf;
    request.trace_timeout = *parse_duration(o.trace_timeout);
    request.quiet = run.g.quiet;
    if (o.trace) {
        auto loaded = perf::load_host_names(o.names);
        if (!loaded) return report(loaded.error(), run.g);
        request.names = std::move(*loaded);
    }
    auto comm = perf::MpiComm::init(nullptr, nullptr);
    if (!comm) return report(comm.error(), run.g);
    host::RoceRanksOutcome got = host::discover_roce_over_ranks(**comm, mine, request);
    if (got.peers_gone) (*comm)->finalize_with_peers_gone();
    if (!got.root) return kExitClean;  // rank 0 writes
    if (!got.assembled) return report(make_error(got.not_built, kExitUsage), run.g);
    return write_roce_snapshot(run, got.hosts, std::move(*got.assembled), std::move(got.problems),
                               got.traced.value_or(nullptr));
#else
    (void)mine;
    return report(perf::built_without_mpi("discover --roce --mpi",
                                          ", or write one report per host (--host-report FILE) "
                                          "and assemble them with --merge"),
                  run.g);
#endif
}

}  // namespace

int run_discover_roce(const RoceDiscoverOptions& o, const std::string& output, const Globals& g) {
    RoceRun run{o, output, g};
    std::vector<host::RoceHost> hosts;
    if (!o.merge.empty()) {
        for (const std::string& path : o.merge) {
            auto h = host::load_roce_host(path);
            if (!h) return report(h.error(), g);
            hosts.push_back(std::move(*h));
        }
    } else {
        host::RoceHost mine = this_host(o);
        if (!o.host_report.empty()) {
            auto w = json_io::write_json_file(host::roce_host_to_json(mine), o.host_report);
            if (!w) return report(w.error(), g);
            if (!mine.lldp_error.empty() && !g.quiet)
                std::fprintf(stderr, "fabscope: %s\n", mine.lldp_error.c_str());
            return kExitClean;
        }
        if (o.mpi) return run_discover_roce_mpi(run, mine);
        if (!mine.lldp_error.empty()) return report(make_error(mine.lldp_error, kExitCannotRun), g);
        hosts.push_back(std::move(mine));
    }
    auto assembled = host::assemble_roce_fabric(hosts);
    if (!assembled) return report(assembled.error(), g);
    return write_roce_snapshot(run, hosts, std::move(*assembled), {}, nullptr);
}

}  // namespace fabscope::cli
