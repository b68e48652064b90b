// fabscope perf trace HOST: the paths RoCEv2 flows to HOST take through an
// ECMP fabric, by TTL-limited UDP probes to port 4791 (trace/roce_trace.h).

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "model/json_io.h"
#include "trace/roce_sport.h"
#include "trace/roce_trace.h"
#include "trace/udp_probe.h"
#include "util/exit_status.h"

namespace fabscope::cli {
namespace {

using namespace perf;

struct TraceCommand {
    std::string host;
    std::vector<uint16_t> sports;
    int flows = 0;
    std::vector<uint32_t> qpns;  ///< --rxe-qpn LOCAL REMOTE
    std::string source;
    int max_hops = 8;
    std::string timeout = "1s";
    std::string names;
};

std::string render(const TraceReport& r) {
    std::string out =
        fmt::format("Trace {} -> {} udp/{}, {} flow{}\n",
                    r.source.empty() ? std::string("(this host)") : r.source, r.destination,
                    kRoceV2Port, r.flows.size(), r.flows.size() == 1 ? "" : "s");
    std::vector<DistinctPath> paths = distinct_paths(r.flows);
    out += fmt::format("{} distinct path{}:\n", paths.size(), paths.size() == 1 ? "" : "s");
    for (const DistinctPath& p : paths) {
        std::string hops;
        for (const std::string& h : p.hops) hops += (hops.empty() ? "" : " -> ") + h;
        std::string ports;
        for (uint16_t s : p.sports) ports += fmt::format(" {}", s);
        out += fmt::format("  {}\n    {} flow{}, source ports{}\n",
                           hops.empty() ? std::string("(no router answered)") : hops,
                           p.sports.size(), p.sports.size() == 1 ? "" : "s", ports);
    }
    for (const FlowTrace& f : r.flows) {
        if (f.end == "error" || f.end == "unreachable")
            out += fmt::format("  source port {}: {}\n", f.sport, f.error);
    }
    return out;
}

int run_trace(const TraceCommand& o, const Globals& g) {
    TraceReport rep;
    std::vector<uint16_t> sports = o.sports;
    rep.ports = "given";
    if (!o.qpns.empty()) {
        if (o.qpns.size() != 2)
            return report(make_error("--rxe-qpn takes two numbers: LOCAL_QPN REMOTE_QPN"), g);
        sports.push_back(rxe_udp_sport(o.qpns[0], o.qpns[1]));
        rep.ports = "rxe";
    }
    if (o.flows > 0) {
        if (!sports.empty())
            return report(make_error("--flows picks the ports itself: not with --sport/--rxe-qpn"),
                          g);
        if (o.flows > kMaxTraceFlows)
            return report(make_error(fmt::format("--flows: at most {}", kMaxTraceFlows)), g);
        sports = spread_udp_sports(o.flows);
        rep.ports = "spread";
    }
    if (sports.empty()) {
        sports = spread_udp_sports(8);
        rep.ports = "spread";
    }
    if (o.max_hops < 1 || o.max_hops > kMaxTraceHops)
        return report(make_error(fmt::format("--max-hops: 1 to {}", kMaxTraceHops)), g);
    auto timeout = parse_duration(o.timeout);
    if (!timeout || timeout->count() <= 0)
        return report(make_error(fmt::format("--timeout {}: use e.g. 500ms", o.timeout)), g);
    auto loaded = load_host_names(o.names);
    if (!loaded) return report(loaded.error(), g);
    const HostNames names = std::move(loaded).value();
    auto dst = resolve_ipv4(o.host);
    if (!dst) return report(dst.error(), g);
    auto transport = UdpProbeTransport::open(o.source, *dst);
    if (!transport) return report(transport.error(), g);
    rep.source = o.source;
    rep.destination = *dst;
    TraceOptions opts;
    opts.max_hops = o.max_hops;
    opts.timeout = *timeout;
    rep.flows = trace_flows(**transport, system_clock(), sports, *dst, opts, names);
    bool any = std::any_of(rep.flows.begin(), rep.flows.end(),
                           [](const FlowTrace& f) { return f.end != "error"; });
    if (g.json) {
        if (auto w = json_io::write_json_file(trace_report_to_json(rep), "-"); !w)
            return report(w.error(), g);
    } else {
        std::fputs(render(rep).c_str(), stdout);
    }
    if (!any) return report(make_error(rep.flows.front().error, kExitCannotRun), g);
    return kExitClean;
}

}  // namespace

void add_perf_trace(CLI::App* perf, Context& ctx) {
    auto o = std::make_shared<TraceCommand>();
    CLI::App* cmd = perf->add_subcommand(
        "trace", "The paths RoCEv2 flows to HOST take through the fabric (ECMP-aware)");
    cmd->add_option("host", o->host, "The peer: an IPv4 address or a name")->required();
    cmd->add_option("--sport", o->sports, "Trace this UDP source port (repeatable)")
        ->check(CLI::Range(1, 65535));
    cmd->add_option("--flows", o->flows,
                    "Trace K source ports spread over 49152-65535, to see every path (default 8)")
        ->check(CLI::Range(1, kMaxTraceFlows));
    cmd->add_option("--rxe-qpn", o->qpns,
                    "LOCAL REMOTE: trace the port Soft-RoCE gives the RC QP pair with these QPNs")
        ->expected(2);
    cmd->add_option("--source", o->source, "Send from this local address (default: as routed)");
    cmd->add_option("--max-hops", o->max_hops, "Routers at most (default 8, at most 32)");
    cmd->add_option("-t,--timeout", o->timeout, "Wait this long for each answer (default 1s)");
    cmd->add_option("--names", o->names,
                    "Name hops from an /etc/hosts-style file (ADDRESS NAME per line)");
    cmd->footer(
        R"(Each flow is a UDP source port. Probes go to HOST's port 4791 from that port
with TTL 1, 2, ...; ECMP routers hash them like the RoCE flow with the same
port, so each flow's hops are those its RDMA traffic crosses. Hops are named
from the ICMP time-exceeded answers (read from the socket's error queue: no
raw socket, no root). HOST's RoCE stack takes the probes silently, so each
flow ends one TTL after the last router ("end": "silent").
The port of a QP: Soft-RoCE derives it from the two QPNs (--rxe-qpn);
hardware NICs (mlx5) choose their own unless the QP has a flow label, so
trace several (--flows) to see every path a pair can use.
Routers rate-limit ICMP (Linux: net.ipv4.icmp_ratelimit): a hop that does
not answer ends its flow's trace early.
Exit codes: 0 traced, 2 bad flags or HOST, 3 no probe could be sent.

Examples:
  fabscope perf trace 10.2.0.1 --flows 16         # every spine a pair can use
  fabscope perf trace 10.2.0.1 --sport 49441 --json
  fabscope perf trace 10.2.0.1 --rxe-qpn 17 17    # an rxe QP pair's own path
  fabscope perf trace host7 --flows 32 --names /etc/fabscope/fabric.hosts)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_trace(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
