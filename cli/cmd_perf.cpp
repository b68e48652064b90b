// fabscope perf serve | run: pairwise RDMA tests over RC QPs, two hosts at
// a time with a TCP rendezvous (no launcher needed).

#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "mesh/agent.h"
#include "model/json_io.h"
#include "net/auth.h"
#include "pairtest/matrix.h"
#include "pairtest/run.h"
#include "pairtest/server.h"
#include "rdma/ibv_device.h"
#include "reports/severity_tag.h"
#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/interrupt.h"

namespace fabscope::cli {
namespace {

using namespace perf;

struct DeviceOptions {
    std::string device;
    int port = 0;
    int gid_index = -1;
    int traffic_class = 0;
    int mtu = 0;
};

void add_device_options(CLI::App* cmd, DeviceOptions& d) {
    cmd->add_option(
        "-d,--ib-dev", d.device,
        "RDMA device, or on RoCE the network interface it runs over (default: the first; "
        "perftest's -d)");
    cmd->add_option("-i,--ib-port", d.port, "Device port (default: the first active)");
    cmd->add_option("-x,--gid-index", d.gid_index,
                    "GID index (default: a RoCE v2 IPv4 GID on RoCE, 0 on IB)");
    cmd->add_option("--tclass", d.traffic_class,
                    "RoCE traffic class; 2 marks packets ECT(0) for ECN")
        ->check(CLI::Range(0, 255));
    cmd->add_option("-m,--mtu", d.mtu,
                    "Path MTU at most: 256, 512, 1024, 2048, 4096 (default: the port's)")
        ->check(CLI::IsMember({256, 512, 1024, 2048, 4096}));
}

PeerOptions peer_options(const DeviceOptions& d) {
    PeerOptions p;
    if (d.gid_index >= 0) p.gid_index = d.gid_index;
    p.traffic_class = static_cast<uint8_t>(d.traffic_class);
    p.mtu_cap = d.mtu;
    return p;
}

struct ServeCommand {
    DeviceOptions dev;
    std::string listen;
    uint16_t port = kDefaultPort;
    bool once = false;
    std::string idle = "0";
    std::string max_size = "8M";
    std::string max_duration = "1m";
    std::string max_session = "4h";
    size_t max_queue = 4;
    std::vector<std::string> allow;
    std::string secret_file;
};

// Every flag is checked before the device is opened: a typo is exit 2, not 3.
Result<ServeOptions> serve_options(const ServeCommand& o) {
    ServeOptions so;
    if (auto c = check_listen_address(o.listen); !c) return c.error();
    so.listen_addr = o.listen;
    so.port = o.port;
    so.peer = peer_options(o.dev);
    so.once = o.once;
    auto idle = parse_duration(o.idle);
    if (!idle || idle->count() < 0)
        return make_error(fmt::format("--idle-timeout {}: not a duration (e.g. 10m)", o.idle));
    so.idle_timeout = *idle;
    auto size = parse_size(o.max_size);
    if (!size) return make_error(fmt::format("--max-size {}: use e.g. 8M", o.max_size));
    so.limits.caps.max_size = *size;
    auto dur = parse_duration(o.max_duration);
    if (!dur || dur->count() <= 0)
        return make_error(fmt::format("--max-duration {}: use e.g. 1m", o.max_duration));
    so.limits.caps.max_duration = *dur;
    so.max_queue = o.max_queue;
    if (!o.allow.empty()) {
        so.allow = AllowList();
        for (const std::string& a : o.allow) {
            if (auto s = so.allow.add(a); !s) return s.error();
        }
    }
    if (!o.secret_file.empty()) {
        auto secret = read_secret_file(o.secret_file);
        if (!secret) return secret.error();
        so.peer.secret = *secret;
    }
    return so;
}

/// What a mesh run's coordinator may order this agent to do: the defaults,
/// the whole run within --max-session (at most a week).
Result<MeshAgentBounds> agent_bounds(const ServeCommand& o) {
    MeshAgentBounds b;
    auto session = parse_duration(o.max_session);
    if (!session || session->count() <= 0 || *session > std::chrono::hours(7 * 24))
        return make_error(
            fmt::format("--max-session {}: use a duration up to 7d (e.g. 12h)", o.max_session));
    b.max_session = *session;
    return b;
}

int run_serve(const ServeCommand& o, const Globals& g) {
    auto so = serve_options(o);
    if (!so) return report(so.error(), g);
    auto bounds = agent_bounds(o);
    if (!bounds) return report(bounds.error(), g);
    // Mesh orders (mesh run --hosts): this server is an agent too.
    so->limits.hello_handlers["mesh"] = mesh_order_handler(*bounds, open_ibv_device);
    auto server = Server::open(*so);
    if (!server) return report(server.error(), g);
    auto dev = IbvDevice::open(o.dev.device, o.dev.port);
    if (!dev) return report(dev.error(), g);
    install_interrupt_handlers();
    bool quiet = g.quiet;
    return (*server)->run(*dev, interrupt_token(), [quiet](std::string_view line) {
        if (!quiet) std::fprintf(stderr, "%.*s\n", static_cast<int>(line.size()), line.data());
    });
}

struct RunCommand {
    DeviceOptions dev;
    PerfRunRequest run;
    std::string output;
};

int run_run(const RunCommand& o, const Globals& g) {
    PerfRunRequest request = o.run;
    request.device = o.dev.device;
    request.port = o.dev.port;
    request.peer = peer_options(o.dev);
    request.progress = !g.quiet;
    auto out = run_perf_matrix(request, open_ibv_device, []() -> const StopToken& {
        install_interrupt_handlers();
        return interrupt_token();
    });
    if (!out) return report(out.error(), g);
    if (!g.quiet && !out->nothing_ran) {
        for (const PerfFinding& f : out->findings) {
            TextStyle st = g.err_style();
            std::fprintf(stderr, "%s %s\n", severity_tag(st, f.severity).c_str(),
                         f.summary.c_str());
        }
        if (!out->meta.complete) {
            std::fprintf(stderr,
                         "perf run: interrupted; %zu results kept, report marked incomplete\n",
                         out->results.size());
        }
    }
    nlohmann::json doc = perf_report_to_json(out->meta, out->results, out->findings);
    if (!o.output.empty()) {
        if (auto w = json_io::write_json_file(doc, o.output); !w) return report(w.error(), g);
    }
    if (g.json) {
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    if (out->nothing_ran) {
        // Nothing ran: say why once, as the one line that matters.
        return report(make_error(out->results.front().error, kExitCannotRun), g);
    }
    return exit_code(*out);
}

/// What a server answers: where it listens, whom, how much, and how long it stays.
void add_serve_options(CLI::App* cmd, ServeCommand& o) {
    cmd->add_option("--listen", o.listen, "Address to listen on (default: all)");
    cmd->add_option("--allow", o.allow,
                    "Answer clients from ADDR or ADDR/CIDR only (repeatable; default: "
                    "loopback only, so say which networks to serve)");
    cmd->add_option("--secret-file", o.secret_file,
                    "Answer only clients that prove they know the secret in FILE (mode 600)");
    cmd->add_option("--max-size", o.max_size, "Largest message a client may ask for (default 8M)");
    cmd->add_option("--max-duration", o.max_duration,
                    "Longest test (and warm-up) a client may ask for (default 1m)");
    cmd->add_option("--max-session", o.max_session,
                    "Longest mesh run (as its order's own numbers bound it) this agent joins "
                    "(default 4h, at most 7d)");
    cmd->add_option("--max-queue", o.max_queue,
                    "Clients that may wait while one is served; more are refused (default 4)");
    cmd->add_option("-p,--port", o.port,
                    "TCP port for the rendezvous (default 18515, as perftest)");
    cmd->add_flag("--once", o.once, "Exit after one test");
    cmd->add_option("--idle-timeout", o.idle,
                    "Exit when no client comes for this long (default: never)");
}

/// `perf serve`: this host answers tests (and mesh runs) from others.
void add_perf_serve(CLI::App* perf, Context& ctx) {
    auto o = std::make_shared<ServeCommand>();
    CLI::App* cmd =
        perf->add_subcommand("serve", "Answer tests from `fabscope perf run` on other hosts");
    add_device_options(cmd, o->dev);
    add_serve_options(cmd, *o);
    cmd->footer(
        R"(A server answers loopback only until told which networks to serve with --allow.
A client it answers can make it allocate and pin up to twice --max-size, run a
test for up to --max-duration, and read its RDMA device's counters.
It is also an agent of `fabscope mesh run --hosts FILE` (fabric-wide tests without
MPI): a coordinator it answers can make it test every other agent of the run, one
flow at a time, each within --max-size and --max-duration, the whole run within
what the order's own numbers allow, at most --max-session (all-pairs over N
agents may take 2N steps: raise it for all-pairs past about 160 agents); one
session (a test or a mesh run) at a time, the others wait (--max-queue).

Examples:
  fabscope perf serve --allow 10.0.0.0/24        # on the far host
  fabscope perf serve --allow 10.1.0.0/16 --secret-file /etc/fabscope/perf.secret
  fabscope perf serve -d mlx5_0 -x 3 --port 18600 --allow 10.0.0.5
  fabscope perf serve --allow 10.1.0.0/16 --max-session 24h   # all-pairs over 2,048 agents)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_serve(*o, ctx.globals); }; });
}

/// Which tests run: the operations, latency or bandwidth, one way or both.
void add_test_choice_options(CLI::App* cmd, TestMatrixRequest& o) {
    cmd->add_option("--test", o.tests, "write, read or send (repeatable; default write)");
    cmd->add_flag("--latency", o.latency,
                  "Latency (ping-pong; READ: round trip) instead of bandwidth");
    cmd->add_flag("--bandwidth", o.bandwidth, "Bandwidth too, with --latency");
    cmd->add_flag("--all", o.all, "Every test: WRITE, READ and SEND, bandwidth and latency");
    cmd->add_flag("-b,--bidirectional", o.bidir, "Bandwidth in both directions at once");
}

/// The messages a test sends: their size or sweep of sizes, how many or how long,
/// and how they are posted.
void add_message_options(CLI::App* cmd, TestMatrixRequest& o) {
    cmd->add_option("-s,--size", o.size, "Message size (default 64K for bandwidth, 2 for latency)");
    cmd->add_flag("-a,--sweep", o.sweep, "Every size from 2 bytes to --max-size, doubling");
    cmd->add_option("--max-size", o.max_size, "Largest size of a sweep (default 64K)");
    cmd->add_option("-D,--duration", o.duration, "Bandwidth: measure for this long (default 5s)");
    cmd->add_option("-n,--iters", o.iterations,
                    "Messages to measure instead (latency default 1000)");
    cmd->add_option("-t,--tx-depth", o.tx_depth,
                    "Bandwidth: work requests in flight (default 128; lowered to what the "
                    "device and the server allow, and said so)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--cq-mod", o.cq_mod,
                    "Bandwidth: one signalled completion per N (default 100, as perftest)")
        ->check(CLI::Range(1U, 8192U));
    cmd->add_option("-I,--inline-size", o.inline_max,
                    "Send inline up to this size (default: the device's limit)");
    cmd->add_option("--warmup", o.warmup,
                    "Bandwidth for a duration: run this long before measuring (default 1s)");
    cmd->add_option("--window", o.window,
                    "Bandwidth: the short window for peak and minimum (default 100ms)");
}

/// Tracing each test's flow (Soft-RoCE) and the congestion detectors' limits.
void add_trace_and_congestion_options(CLI::App* cmd, PerfRunRequest& o) {
    cmd->add_flag("--no-trace", o.no_trace,
                  "Do not trace each routed test's flow (Soft-RoCE: its path is recorded)");
    cmd->add_option("--names", o.names,
                    "Name traced hops from an /etc/hosts-style file (ADDRESS NAME per line)");
    cmd->add_option("--thresholds", o.thresholds,
                    "The congestion detectors' limits (the file's roce: section; YAML or JSON)")
        ->type_name("FILE");
}

/// `perf run`: tests against `perf serve` hosts, compared across them.
void add_perf_run(CLI::App* perf, Context& ctx) {
    auto o = std::make_shared<RunCommand>();
    CLI::App* cmd =
        perf->add_subcommand("run", "Run tests against one or more `fabscope perf serve` hosts");
    cmd->add_option("peers", o->run.peers, "Servers: HOST or HOST:PORT; several are compared")
        ->required();
    add_device_options(cmd, o->dev);
    add_test_choice_options(cmd, o->run.tests);
    add_message_options(cmd, o->run.tests);
    cmd->add_option("--degraded-at", o->run.degraded_at,
                    "A peer below this share of the best peer's result is degraded (default 0.7)");
    cmd->add_option("-o,--output", o->output, "Write the results (JSON) to FILE");
    cmd->add_option("--secret-file", o->run.secret_file,
                    "The shared secret of servers started with --secret-file");
    add_trace_and_congestion_options(cmd, o->run);
    cmd->footer(
        R"(Results: average, peak and minimum-window bandwidth (a flapping link hides in an
average), message rate; latency min, median, p99, p99.9, max. With several peers,
each test is compared across them and peers below --degraded-at of the best are
reported, with the hardware counters that moved during their tests.
Each test's counters on both ends (hw_counters) go through the congestion
detectors over the test's interval: ECN marks with no CNP sent, CNPs while
throughput collapses, loss on the RoCE class (retransmissions, sequence errors,
timeouts). What they find is the result's "congestion" and a finding of kind
congestion (limits: the --thresholds file's roce: section).
Flags as perftest spells them: -t tx depth, -s size, -n iterations, -D duration;
the test is --test (perftest picks it by program name). A peer that is a bare
number is refused (`-q 4` is --quiet and a peer "4" otherwise).
On Soft-RoCE, each test's flow to a routed peer (not on this host's subnet) is
traced after the test from its QP's own UDP source port, and the routers it
crossed are recorded as the result's "path" (see `perf trace`); hardware NICs
choose the port themselves, so no path is recorded there.
Ctrl-C stops between tests: the results so far are written, marked
"complete": false, and the exit code is 130.
Exit codes: 0 clean, 1 a peer degraded, a test failed or congestion found, 2 bad flags,
3 no device, or no peer reachable, 130 interrupted.

Examples:
  fabscope perf run host2                                  # WRITE bandwidth, 64K, 5 s
  fabscope perf run host2 --latency --test write --test send   # ping-pong latency
  fabscope perf run host2 --all -D 2s --json > results.json
  fabscope perf run host2 --test write --sweep --max-size 1M -t 256
  fabscope perf run host2 host3 host4 --latency --bandwidth   # compare three paths)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_run(*o, ctx.globals); }; });
}

}  // namespace

void add_perf(CLI::App& app, Context& ctx) {
    CLI::App* perf = app.add_subcommand(
        "perf", "Pairwise RDMA bandwidth and latency tests (RC QPs over libibverbs)");
    perf->require_subcommand(1);
    add_perf_serve(perf, ctx);
    add_perf_run(perf, ctx);
    add_perf_trace(perf, ctx);
    add_mesh_run(perf, ctx, "mesh");  // the issue's name for `mesh run`
}

}  // namespace fabscope::cli
