// fabscope discover --roce: this host's (or every MPI rank's) RDMA inventory
// and LLDP neighbours, assembled into the snapshot InfiniBand discovery writes.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/discover_roce.h"
#include "cli/sweep_options.h"
#include "host/roce_host_json.h"
#include "host/slurm_drain.h"
#include "model/json_io.h"
#include "util/exit_status.h"
#include "util/time_util.h"
#include "util/version.h"
#ifdef FABSCOPE_HAVE_LLDPCTL
#include "host/lldp_lldpctl.h"
#endif
#ifdef FABSCOPE_HAVE_MPI
#include "perf/mesh_comm_mpi.h"
#endif

namespace fabscope::cli {
namespace {

constexpr int kGatherTag = 0x4c4c;  // "LL"

host::RoceHost this_host(const RoceDiscoverOptions& o) {
    host::RoceHost h;
    h.name = o.host_name;
    if (h.name.empty()) {
        std::string full = host::host_name();
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

/// Every rank's host, at rank 0 (nullopt elsewhere); ranks that did not
/// report by the deadline become findings.
Result<std::optional<std::vector<host::RoceHost>>> gather_hosts(const host::RoceHost& mine,
                                                                const RoceDiscoverOptions& o,
                                                                std::vector<Finding>& missing) {
#ifdef FABSCOPE_HAVE_MPI
    auto comm = perf::MpiComm::init(nullptr, nullptr);
    if (!comm) return comm.error();
    auto deadline = perf::MeshClock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(o.gather_timeout_s * 1000));
    std::vector<char> skip(static_cast<size_t>((*comm)->size()), 0);
    auto got = (*comm)->gather(kGatherTag, host::roce_host_to_json(mine).dump(), skip, deadline,
                               [](const perf::MeshComm::Messages&) { return false; });
    if ((*comm)->rank() != 0) return std::optional<std::vector<host::RoceHost>>{};
    std::vector<host::RoceHost> hosts;
    for (size_t r = 0; r < got.size(); ++r) {
        std::optional<host::RoceHost> h;
        std::string why = "sent nothing by the deadline";
        if (got[r]) {
            auto j = json_io::parse_json_text(*got[r], fmt::format("rank {}", r));
            auto parsed = j ? host::roce_host_from_json(*j) : Result<host::RoceHost>(j.error());
            if (parsed) {
                h = std::move(*parsed);
            } else {
                why = parsed.error().message;
            }
        }
        if (h) {
            hosts.push_back(std::move(*h));
            continue;
        }
        Finding f;
        f.kind = "host_not_reporting";
        f.severity = Severity::Error;
        f.summary = fmt::format("rank {}: no host report ({})", r, why);
        f.evidence = {{"rank", r}, {"error", why}};
        missing.push_back(std::move(f));
    }
    return std::optional<std::vector<host::RoceHost>>(std::move(hosts));
#else
    (void)mine;
    (void)o;
    (void)missing;
    return make_error(
        "discover --roce --mpi: this fabscope was built without MPI. Install Open MPI "
        "(Debian, Ubuntu: apt-get install libopenmpi-dev openmpi-bin) and build again, or "
        "write one report per host (--host-report FILE) and assemble them with --merge",
        kExitCannotRun);
#endif
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
                    "RoCE with --mpi: seconds rank 0 waits for the hosts (default 60)")
        ->check(CLI::Range(0.1, 3600.0))
        ->needs(mpi);
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

int run_discover_roce(const RoceDiscoverOptions& o, const std::string& output, const Globals& g) {
    Stopwatch sw;
    std::string started = iso8601_now();
    std::vector<Finding> problems;
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
        if (o.mpi) {
            auto all = gather_hosts(mine, o, problems);
            if (!all) return report(all.error(), g);
            if (!*all) return kExitClean;  // not rank 0: rank 0 writes
            hosts = std::move(**all);
        } else {
            if (!mine.lldp_error.empty())
                return report(make_error(mine.lldp_error, kExitCannotRun), g);
            hosts.push_back(std::move(mine));
        }
    }
    auto assembled = host::assemble_roce_fabric(hosts);
    if (!assembled) return report(assembled.error(), g);
    problems.insert(problems.end(), assembled->problems.begin(), assembled->problems.end());
    Snapshot snap;
    snap.source.method = "roce-lldp";
    snap.source.tool_version = version();
    snap.source.started = started;
    snap.source.duration_s = sw.seconds();
    snap.source.input_file = o.merge.empty() ? "" : fmt::format("{}", fmt::join(o.merge, ","));
    snap.fabric = std::move(assembled->fabric);
    name_nodes(snap, g);
    print_lldp(hosts, g);
    return write_discovery(snap, std::move(problems), output, g, false, "",
                           {{"lldp", host::lldp_to_json(hosts)}});
}

}  // namespace fabscope::cli
