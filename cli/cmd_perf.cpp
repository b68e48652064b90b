// fabscope perf serve | run: pairwise RDMA tests over RC QPs, two hosts at
// a time with a TCP rendezvous (no launcher needed).

#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <set>

#include "cli/cli.h"
#include "model/json_io.h"
#include "perf/channel.h"
#include "perf/compare.h"
#include "perf/report.h"
#include "perf/session.h"
#include "reports/severity_tag.h"
#include "util/exit_status.h"
#include "util/time_util.h"

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
    cmd->add_option("-d,--ib-dev", d.device, "RDMA device (default: the first; perftest's -d)");
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
};

int run_serve(const ServeCommand& o, const Globals& g) {
    auto dev = Device::open(o.dev.device, o.dev.port);
    if (!dev) return report(dev.error(), g);
    auto idle = parse_duration(o.idle);
    if (!idle)
        return report(make_error(fmt::format("--idle-timeout {}: not a duration", o.idle)), g);
    ServeOptions so;
    so.listen_addr = o.listen;
    so.port = o.port;
    so.peer = peer_options(o.dev);
    so.once = o.once;
    so.idle_timeout = *idle;
    return serve(*dev, so, g.quiet);
}

struct RunCommand {
    DeviceOptions dev;
    std::vector<std::string> peers;
    std::vector<std::string> tests{"write"};
    bool latency = false;
    bool bandwidth = false;
    bool all = false;
    bool bidir = false;
    std::string size;
    bool sweep = false;
    std::string max_size = "64K";
    std::string duration = "5s";
    uint64_t iterations = 0;
    uint32_t tx_depth = 128;
    uint32_t cq_mod = 100;
    uint32_t inline_max = 0;
    std::string window = "100ms";
    std::string warmup = "1s";
    double degraded_at = 0.7;
    std::string output;
};

Result<std::vector<TestSpec>> specs_of(const RunCommand& o) {
    auto duration = parse_duration(o.duration);
    if (!duration || duration->count() <= 0)
        return make_error(fmt::format("--duration {}: use e.g. 5s", o.duration));
    auto warmup = parse_duration(o.warmup);
    if (!warmup) return make_error(fmt::format("--warmup {}: use e.g. 1s", o.warmup));
    auto window = parse_duration(o.window);
    if (!window || window->count() <= 0)
        return make_error(fmt::format("--window {}: use e.g. 100ms", o.window));
    std::vector<uint32_t> sizes;
    if (o.sweep) {
        auto max = parse_size(o.max_size);
        if (!max) return make_error(fmt::format("--max-size {}: use e.g. 64K", o.max_size));
        for (uint32_t s = 2; s <= *max; s *= 2) sizes.push_back(s);
    }
    std::vector<Op> ops;
    std::vector<Measure> measures;
    if (o.all) {
        ops = {Op::Write, Op::Read, Op::Send};
        measures = {Measure::Bandwidth, Measure::Latency};
    } else {
        for (const std::string& t : o.tests) {
            auto op = parse_op(t);
            if (!op) return make_error(fmt::format("--test {}: use write, read or send", t));
            ops.push_back(*op);
        }
        if (o.latency) measures.push_back(Measure::Latency);
        if (o.bandwidth || !o.latency) measures.push_back(Measure::Bandwidth);
    }
    std::vector<TestSpec> out;
    for (Measure m : measures) {
        std::vector<uint32_t> sz = sizes;
        if (sz.empty()) {
            if (!o.size.empty()) {
                auto s = parse_size(o.size);
                if (!s)
                    return make_error(fmt::format("--size {}: use bytes, or e.g. 4K, 1M", o.size));
                sz.push_back(*s);
            } else {
                sz.push_back(m == Measure::Bandwidth ? 65536 : 2);  // perftest's defaults
            }
        }
        for (Op op : ops) {
            for (uint32_t size : sz) {
                TestSpec s;
                s.op = op;
                s.measure = m;
                s.bidirectional = o.bidir && m == Measure::Bandwidth;
                s.size = size;
                s.iterations = o.iterations;
                s.duration = *duration;
                s.tx_depth = o.tx_depth;
                s.cq_moderation = o.cq_mod;
                s.inline_max = o.inline_max;
                s.window = *window;
                s.warmup_time = *warmup;
                out.push_back(s);
            }
        }
    }
    return out;
}

std::string render_row(const TestResult& r) {
    std::string peer = r.peer_host.empty() || r.peer_host == r.peer
                           ? r.peer
                           : fmt::format("{} ({})", r.peer, r.peer_host);
    std::string head =
        fmt::format("  {:<28} {:<16} {:>6}", peer, r.spec.name(), format_size(r.spec.size));
    if (!r.ok) return head + "  FAILED: " + r.error;
    if (r.spec.measure == Measure::Bandwidth) {
        return head + fmt::format("  {:>9.3f} {:>9.3f} {:>9.3f} {:>9.1f} {:>8.4f}", r.avg_gbps,
                                  r.min_window_gbps, r.peak_gbps, r.avg_gbps * 1e3 / 8,
                                  r.msg_rate_mpps);
    }
    const LatencyStats& l = r.latency;
    return head + fmt::format("  {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}", l.min_us,
                              l.median_us, l.p99_us, l.p999_us, l.max_us);
}

int run_run(const RunCommand& o, const Globals& g) {
    auto specs = specs_of(o);
    if (!specs) return report(specs.error(), g);
    if (!(o.degraded_at > 0 && o.degraded_at <= 1)) {
        return report(make_error("--degraded-at: a share between 0 and 1, e.g. 0.7"), g);
    }
    auto dev = Device::open(o.dev.device, o.dev.port);
    if (!dev) return report(dev.error(), g);
    PeerOptions po = peer_options(o.dev);
    std::vector<TestResult> results;
    size_t unreachable = 0;
    bool progress = !g.quiet;
    std::string started = iso8601_now();
    // Test by test, every peer in turn: each comparison is measured close in time.
    std::set<std::string> down;
    std::optional<Measure> shown;
    for (const TestSpec& s : *specs) {
        for (const std::string& peer : o.peers) {
            if (down.count(peer)) {
                TestResult skipped;
                skipped.spec = s;
                skipped.peer = peer;
                skipped.error = "not run: the server could not be reached";
                results.push_back(skipped);
                continue;
            }
            bool reachable = false;
            TestResult r = run_client(*dev, peer, s, po, &reachable);
            if (!reachable) {
                down.insert(peer);
                ++unreachable;
            }
            if (progress && reachable) {
                if (shown != s.measure) {
                    if (s.measure == Measure::Bandwidth) {
                        std::fprintf(stderr, "  %-28s %-16s %6s  %9s %9s %9s %9s %8s\n", "peer",
                                     "test", "size", "avg Gb/s", "min win", "peak", "avg MB/s",
                                     "Mmsg/s");
                    } else {
                        std::fprintf(stderr, "  %-28s %-16s %6s  %9s %9s %9s %9s %9s  (us)\n",
                                     "peer", "test", "size", "min", "median", "p99", "p99.9",
                                     "max");
                    }
                    shown = s.measure;
                }
                std::fprintf(stderr, "%s\n", render_row(r).c_str());
            }
            results.push_back(std::move(r));
        }
    }
    bool nothing_ran = unreachable == o.peers.size();
    auto findings = compare_peers(results, o.degraded_at);
    if (!g.quiet && !nothing_ran) {
        for (const PerfFinding& f : findings) {
            TextStyle st = g.err_style();
            std::fprintf(stderr, "%s %s\n", severity_tag(st, f.severity).c_str(),
                         f.summary.c_str());
        }
    }
    nlohmann::json doc = perf_report_to_json(
        {started, hostname(), dev->name(), dev->port(), o.degraded_at}, results, findings);
    if (!o.output.empty()) {
        if (auto w = json_io::write_json_file(doc, o.output); !w) return report(w.error(), g);
    }
    if (g.json) {
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    if (nothing_ran) {
        // Nothing ran: say why once, as the one line that matters.
        return report(make_error(results.front().error, kExitCannotRun), g);
    }
    return findings.empty() ? kExitClean : kExitFindings;
}

}  // namespace

void add_perf(CLI::App& app, Context& ctx) {
    CLI::App* perf = app.add_subcommand(
        "perf", "Pairwise RDMA bandwidth and latency tests (RC QPs over libibverbs)");
    perf->require_subcommand(1);
    {
        auto o = std::make_shared<ServeCommand>();
        CLI::App* cmd =
            perf->add_subcommand("serve", "Answer tests from `fabscope perf run` on other hosts");
        add_device_options(cmd, o->dev);
        cmd->add_option("--listen", o->listen, "Address to listen on (default: all)");
        cmd->add_option("-p,--port", o->port,
                        "TCP port for the rendezvous (default 18515, as perftest)");
        cmd->add_flag("--once", o->once, "Exit after one test");
        cmd->add_option("--idle-timeout", o->idle,
                        "Exit when no client comes for this long (default: never)");
        cmd->footer(R"(Examples:
  fabscope perf serve                       # on the far host
  fabscope perf serve -d mlx5_0 -x 3 --port 18600)");
        cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_serve(*o, ctx.globals); }; });
    }
    {
        auto o = std::make_shared<RunCommand>();
        CLI::App* cmd = perf->add_subcommand(
            "run", "Run tests against one or more `fabscope perf serve` hosts");
        cmd->add_option("peers", o->peers, "Servers: HOST or HOST:PORT; several are compared")
            ->required();
        add_device_options(cmd, o->dev);
        cmd->add_option("-t,--test", o->tests, "write, read or send (repeatable; default write)");
        cmd->add_flag("--latency", o->latency,
                      "Latency (ping-pong; READ: round trip) instead of bandwidth");
        cmd->add_flag("--bandwidth", o->bandwidth, "Bandwidth too, with --latency");
        cmd->add_flag("--all", o->all, "Every test: WRITE, READ and SEND, bandwidth and latency");
        cmd->add_flag("-b,--bidirectional", o->bidir, "Bandwidth in both directions at once");
        cmd->add_option("-s,--size", o->size,
                        "Message size (default 64K for bandwidth, 2 for latency)");
        cmd->add_flag("-a,--sweep", o->sweep, "Every size from 2 bytes to --max-size, doubling");
        cmd->add_option("--max-size", o->max_size, "Largest size of a sweep (default 64K)");
        cmd->add_option("-D,--duration", o->duration,
                        "Bandwidth: measure for this long (default 5s)");
        cmd->add_option("-n,--iters", o->iterations,
                        "Messages to measure instead (latency default 1000)");
        cmd->add_option("--tx-depth", o->tx_depth,
                        "Bandwidth: work requests in flight (default 128)")
            ->check(CLI::Range(1U, 8192U));
        cmd->add_option("--cq-mod", o->cq_mod,
                        "Bandwidth: one signalled completion per N (default 100, as perftest)")
            ->check(CLI::Range(1U, 8192U));
        cmd->add_option("-I,--inline-size", o->inline_max,
                        "Send inline up to this size (default: the device's limit)");
        cmd->add_option("--warmup", o->warmup,
                        "Bandwidth for a duration: run this long before measuring (default 1s)");
        cmd->add_option("--window", o->window,
                        "Bandwidth: the short window for peak and minimum (default 100ms)");
        cmd->add_option(
            "--degraded-at", o->degraded_at,
            "A peer below this share of the best peer's result is degraded (default 0.7)");
        cmd->add_option("-o,--output", o->output, "Write the results (JSON) to FILE");
        cmd->footer(
            R"(Results: average, peak and minimum-window bandwidth (a flapping link hides in an
average), message rate; latency min, median, p99, p99.9, max. With several peers,
each test is compared across them and peers below --degraded-at of the best are
reported, with the hardware counters that moved during their tests.
Exit codes: 0 clean, 1 a peer degraded or a test failed, 2 bad flags,
3 no device, or no peer reachable.

Examples:
  fabscope perf run host2                                  # WRITE bandwidth, 64K, 5 s
  fabscope perf run host2 --latency -t write -t send       # ping-pong latency
  fabscope perf run host2 --all -D 2s --json > results.json
  fabscope perf run host2 -t write --sweep --max-size 1M
  fabscope perf run host2 host3 host4 --latency --bandwidth   # compare three paths)");
        cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_run(*o, ctx.globals); }; });
    }
}

}  // namespace fabscope::cli
