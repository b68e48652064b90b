// fabscope discover --roce: this host's (or every MPI rank's) RDMA inventory
// and LLDP neighbours, assembled into the snapshot InfiniBand discovery writes.

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/discover_roce.h"
#include "cli/sweep_options.h"
#include "host/roce_host_json.h"
#include "host/slurm_drain.h"
#include "model/duration.h"
#include "model/json_io.h"
#include "util/exit_status.h"
#include "util/time_util.h"
#include "util/version.h"
#ifdef FABSCOPE_HAVE_LLDPCTL
#include "host/lldp_lldpctl.h"
#endif
#ifdef FABSCOPE_HAVE_MPI
#include "host/roce_gather.h"
#include "ranks/comm_mpi.h"
#include "trace/roce_sport.h"
#include "trace/traced_switches.h"
#include "util/host_name.h"
#endif

namespace fabscope::cli {
namespace {

constexpr int kGatherTag = 0x4c4c;  // "LL"

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

#ifdef FABSCOPE_HAVE_MPI
constexpr int kDoneTag = 0x4c44;  // "LD"

perf::MeshDeadline after_seconds(double s) {
    return perf::MeshClock::now() + std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

/// What rank 0 has of the ranks' hosts.
struct Gathered {
    std::vector<host::RoceHost> hosts;
    std::vector<int> rank_of_host;
    std::vector<char> gone;  ///< per rank: sent nothing readable
};

/// Rank 0: every rank's host; ranks that did not report by the deadline
/// become findings. Other ranks: their host sent, nothing back.
Gathered gather_hosts(perf::MeshComm& comm, const host::RoceHost& mine,
                      const RoceDiscoverOptions& o, std::vector<Finding>& missing) {
    Gathered out;
    out.gone.assign(static_cast<size_t>(comm.size()), 0);
    auto got = comm.gather(kGatherTag, host::roce_host_to_json(mine).dump(), out.gone,
                           after_seconds(o.gather_timeout_s),
                           [](const perf::MeshComm::Messages&) { return false; });
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
            out.hosts.push_back(std::move(*h));
            out.rank_of_host.push_back(static_cast<int>(r));
            continue;
        }
        out.gone[r] = 1;
        Finding f;
        f.kind = "host_not_reporting";
        f.severity = Severity::Error;
        f.summary = fmt::format("rank {}: no host report ({})", r, why);
        f.evidence = {{"rank", r}, {"error", why}};
        missing.push_back(std::move(f));
    }
    return out;
}

/// Every rank: traces between the hosts (one per other leaf); rank 0 adds
/// the routers they show to the assembled fabric. The traced section of the
/// snapshot, at rank 0.
nlohmann::json trace_spines(perf::MeshComm& comm, const RoceDiscoverOptions& o,
                            const perf::HostNames& names, Gathered& g,
                            host::RoceAssembly* assembled) {
    std::vector<perf::RankAddress> addresses;
    std::map<int, PortRef> port_of_rank;
    std::map<int, uint64_t> leaf_of_rank;
    std::map<int, std::string> host_of_rank;
    if (assembled) {
        for (size_t i = 0; i < g.hosts.size(); ++i) {
            host_of_rank[g.rank_of_host[i]] = g.hosts[i].name;
            auto a = host::roce_v2_address(g.hosts[i].inventory);
            const Node* n =
                a ? assembled->fabric.find(fmt::format("{} {}", g.hosts[i].name, a->device))
                  : nullptr;
            if (!n) {
                Finding f;
                f.kind = "host_not_traced";
                f.severity = Severity::Info;
                f.summary = fmt::format(
                    "{}: no active RoCE port with an IPv4 RoCE v2 GID to "
                    "trace from or to",
                    g.hosts[i].name);
                f.evidence = {{"host", g.hosts[i].name}};
                assembled->problems.push_back(std::move(f));
                continue;
            }
            PortRef ref{n->guid, static_cast<uint8_t>(a->port)};
            addresses.push_back({g.rank_of_host[i], a->address});
            port_of_rank[g.rank_of_host[i]] = ref;
            const Port* p = assembled->fabric.port(ref);
            leaf_of_rank[g.rank_of_host[i]] = p && p->peer ? p->peer->node : 0;
        }
    }
    perf::TraceOptions t;
    t.timeout = *parse_duration(o.trace_timeout);
    auto got = perf::trace_between_ranks(
        comm, addresses, perf::one_host_per_leaf(leaf_of_rank),
        perf::spread_udp_sports(std::clamp(o.trace_ports, 1, perf::kMaxTraceFlows)),
        perf::udp_tracer(t, names), g.gone, after_seconds(o.gather_timeout_s * 2 + 5),
        after_seconds(o.gather_timeout_s));
    if (!got || !assembled) return nullptr;
    for (int r : got->missing) {
        g.gone[static_cast<size_t>(r)] = 1;
        Finding f;
        f.kind = "host_traces_missing";
        f.severity = Severity::Warning;
        f.summary = fmt::format(
            "rank {} ({}): no path traces by the deadline; the routers above "
            "its leaf may be missing",
            r, host_of_rank[r]);
        f.evidence = {{"rank", r}, {"host", host_of_rank[r]}};
        if (auto p = port_of_rank.find(r); p != port_of_rank.end()) f.where = {p->second};
        assembled->problems.push_back(std::move(f));
    }
    std::vector<perf::HostPathTrace> paths;
    for (const perf::RankTrace& rt : got->traces) {
        auto src = port_of_rank.find(rt.src);
        auto dst = port_of_rank.find(rt.dst);
        if (src == port_of_rank.end() || dst == port_of_rank.end()) continue;
        paths.push_back({src->second, dst->second, rt.trace.hops});
    }
    auto traced = perf::add_traced_switches(assembled->fabric, paths);
    if (!traced) {
        Finding f;
        f.kind = "traced_routers_not_placed";
        f.severity = Severity::Warning;
        f.summary = traced.error().message;
        assembled->problems.push_back(std::move(f));
        return nullptr;
    }
    assembled->fabric = std::move(traced->fabric);
    assembled->problems.insert(assembled->problems.end(), traced->problems.begin(),
                               traced->problems.end());
    return traced->summary;
}

/// Rank 0 tells the others whether a rank is gone: MPI_Finalize waits for
/// every rank, so with one dead the others must leave without it. The others
/// wait as long as rank 0 may take for both steps.
bool agree_on_gone(perf::MeshComm& comm, const std::vector<char>& gone, double timeout_s) {
    bool any = std::count(gone.begin(), gone.end(), 1) > 0;
    auto done =
        comm.broadcast(kDoneTag, any ? "gone" : "all", gone, after_seconds(timeout_s * 2 + 5));
    return !done || *done != "all";
}
#endif

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
    perf::HostNames names;
    if (o.trace) {
        auto loaded = perf::load_host_names(o.names);
        if (!loaded) return report(loaded.error(), run.g);
        names = std::move(*loaded);
    }
    auto comm = perf::MpiComm::init(nullptr, nullptr);
    if (!comm) return report(comm.error(), run.g);
    const bool root = (*comm)->rank() == 0;
    std::vector<Finding> problems;
    Gathered got = gather_hosts(**comm, mine, o, problems);
    std::optional<host::RoceAssembly> assembled;
    std::string not_built;
    if (root) {
        // Two devices with one GUID: the snapshot cannot be written, but the
        // other ranks still wait for the traces' ask, which then says nothing.
        auto a = host::assemble_roce_fabric(got.hosts);
        if (a) {
            assembled = std::move(*a);
        } else {
            not_built = a.error().message;
        }
    }
    if (root && !run.g.quiet) {
        std::fprintf(stderr, "discover: %zu of %d hosts reported%s\n", got.hosts.size(),
                     (*comm)->size(),
                     o.trace ? "; tracing paths to one host under each other leaf" : "");
    }
    nlohmann::json traced;
    if (o.trace) traced = trace_spines(**comm, o, names, got, assembled ? &*assembled : nullptr);
    if (agree_on_gone(**comm, got.gone, o.gather_timeout_s)) (*comm)->finalize_with_peers_gone();
    if (!root) return kExitClean;  // rank 0 writes
    if (!assembled) return report(make_error(not_built, kExitUsage), run.g);
    return write_roce_snapshot(run, got.hosts, std::move(*assembled), std::move(problems), traced);
#else
    (void)mine;
    return report(
        make_error("discover --roce --mpi: this fabscope was built without MPI. Install Open MPI "
                   "(Debian, Ubuntu: apt-get install libopenmpi-dev openmpi-bin) and build "
                   "again, or write one report per host (--host-report FILE) and assemble them "
                   "with --merge",
                   kExitCannotRun),
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
