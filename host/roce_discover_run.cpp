#include "host/roce_discover_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>

#include "host/roce_gather.h"
#include "host/roce_host_json.h"
#include "model/json_io.h"
#include "trace/roce_sport.h"
#include "trace/traced_switches.h"

namespace fabscope::host {
namespace {

constexpr int kGatherTag = 0x4c4c;  // "LL"
constexpr int kDoneTag = 0x4c44;    // "LD"

perf::MeshDeadline after_seconds(double s) {
    return perf::MeshClock::now() + std::chrono::milliseconds(static_cast<int64_t>(s * 1000));
}

/// What rank 0 has of the ranks' hosts.
struct Gathered {
    std::vector<RoceHost> hosts;
    std::vector<int> rank_of_host;
    std::vector<char> gone;  ///< per rank: sent nothing readable
};

/// Rank 0: every rank's host; ranks that did not report by the deadline
/// become findings. Other ranks: their host sent, nothing back.
Gathered gather_hosts(perf::MeshComm& comm, const RoceHost& mine, const RoceRanksRequest& o,
                      std::vector<Finding>& missing) {
    Gathered out;
    out.gone.assign(static_cast<size_t>(comm.size()), 0);
    auto got = comm.gather(kGatherTag, roce_host_to_json(mine).dump(), out.gone,
                           after_seconds(o.gather_timeout_s),
                           [](const perf::MeshComm::Messages&) { return false; });
    for (size_t r = 0; r < got.size(); ++r) {
        std::optional<RoceHost> h;
        std::string why = "sent nothing by the deadline";
        if (got[r]) {
            auto j = json_io::parse_json_text(*got[r], fmt::format("rank {}", r));
            auto parsed = j ? roce_host_from_json(*j) : Result<RoceHost>(j.error());
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
        Finding f = make_finding("host_not_reporting", Severity::Error,
                                 fmt::format("rank {}: no host report ({})", r, why), {},
                                 {{"rank", r}, {"error", why}});
        missing.push_back(std::move(f));
    }
    return out;
}

/// Where each rank's traces start and end, and the leaf above it.
struct TraceEnds {
    std::vector<perf::RankAddress> addresses;
    std::map<int, PortRef> port_of_rank;
    std::map<int, uint64_t> leaf_of_rank;
    std::map<int, std::string> host_of_rank;
};

/// Rank 0: the hosts' RoCE v2 ports in the assembled fabric; a host
/// without one is a finding and is not traced.
TraceEnds trace_ends(const Gathered& g, RoceAssembly& assembled) {
    TraceEnds e;
    for (size_t i = 0; i < g.hosts.size(); ++i) {
        e.host_of_rank[g.rank_of_host[i]] = g.hosts[i].name;
        auto a = roce_v2_address(g.hosts[i].inventory);
        const Node* n =
            a ? assembled.fabric.find(fmt::format("{} {}", g.hosts[i].name, a->device)) : nullptr;
        if (!n) {
            Finding f =
                make_finding("host_not_traced", Severity::Info,
                             fmt::format("{}: no active RoCE port with an IPv4 RoCE v2 GID to "
                                         "trace from or to",
                                         g.hosts[i].name),
                             {}, {{"host", g.hosts[i].name}});
            assembled.problems.push_back(std::move(f));
            continue;
        }
        PortRef ref{n->guid, static_cast<uint8_t>(a->port)};
        e.addresses.push_back({g.rank_of_host[i], a->address});
        e.port_of_rank[g.rank_of_host[i]] = ref;
        const Port* p = assembled.fabric.port(ref);
        e.leaf_of_rank[g.rank_of_host[i]] = p && p->peer ? p->peer->node : 0;
    }
    return e;
}

/// Rank 0: the routers the traces show, added to the fabric; the ranks
/// whose traces are missing marked gone. The snapshot's traced section.
nlohmann::json place_traces(const perf::RankTraces& got, TraceEnds& e, Gathered& g,
                            RoceAssembly& assembled) {
    for (int r : got.missing) {
        g.gone[static_cast<size_t>(r)] = 1;
        Finding f = make_finding(
            "host_traces_missing", Severity::Warning,
            fmt::format("rank {} ({}): no path traces by the deadline; the routers above "
                        "its leaf may be missing",
                        r, e.host_of_rank[r]),
            {}, {{"rank", r}, {"host", e.host_of_rank[r]}});
        if (auto p = e.port_of_rank.find(r); p != e.port_of_rank.end()) f.where = {p->second};
        assembled.problems.push_back(std::move(f));
    }
    std::vector<perf::HostPathTrace> paths;
    for (const perf::RankTrace& rt : got.traces) {
        auto src = e.port_of_rank.find(rt.src);
        auto dst = e.port_of_rank.find(rt.dst);
        if (src == e.port_of_rank.end() || dst == e.port_of_rank.end()) continue;
        paths.push_back({src->second, dst->second, rt.trace.hops});
    }
    auto traced = perf::add_traced_switches(assembled.fabric, paths);
    if (!traced) {
        Finding f =
            make_finding("traced_routers_not_placed", Severity::Warning, traced.error().message);
        assembled.problems.push_back(std::move(f));
        return nullptr;
    }
    assembled.fabric = std::move(traced->fabric);
    assembled.problems.insert(assembled.problems.end(), traced->problems.begin(),
                              traced->problems.end());
    return traced->summary;
}

/// Every rank: traces between the hosts (one per other leaf); rank 0 adds
/// the routers they show to the assembled fabric. The traced section of the
/// snapshot, at rank 0.
nlohmann::json trace_spines(perf::MeshComm& comm, const RoceRanksRequest& o, Gathered& g,
                            RoceAssembly* assembled) {
    TraceEnds e;
    if (assembled) e = trace_ends(g, *assembled);
    perf::TraceOptions t;
    t.timeout = o.trace_timeout;
    auto got = perf::trace_between_ranks(
        comm, e.addresses, perf::one_host_per_leaf(e.leaf_of_rank, o.tracers_per_leaf),
        perf::spread_udp_sports(std::clamp(o.trace_ports, 1, perf::kMaxTraceFlows)),
        perf::udp_tracer(t, o.names), g.gone, after_seconds(o.gather_timeout_s * 2 + 5),
        after_seconds(o.gather_timeout_s));
    if (!got || !assembled) return nullptr;
    return place_traces(*got, e, g, *assembled);
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

}  // namespace

RoceRanksOutcome discover_roce_over_ranks(perf::MeshComm& comm, const RoceHost& mine,
                                          const RoceRanksRequest& request) {
    RoceRanksOutcome out;
    out.root = comm.rank() == 0;
    Gathered got = gather_hosts(comm, mine, request, out.problems);
    if (out.root) {
        // Two devices with one GUID: the snapshot cannot be written, but the
        // other ranks still wait for the traces' ask, which then says nothing.
        auto a = assemble_roce_fabric(got.hosts);
        if (a) {
            out.assembled = std::move(*a);
        } else {
            out.not_built = a.error().message;
        }
    }
    if (out.root && !request.quiet) {
        std::fprintf(stderr, "discover: %zu of %d hosts reported%s\n", got.hosts.size(),
                     comm.size(),
                     request.trace ? "; tracing paths to one host under each other leaf" : "");
    }
    if (request.trace)
        out.traced = trace_spines(comm, request, got, out.assembled ? &*out.assembled : nullptr);
    out.peers_gone = agree_on_gone(comm, got.gone, request.gather_timeout_s);
    out.hosts = std::move(got.hosts);
    return out;
}

}  // namespace fabscope::host
