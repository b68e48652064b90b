// fabscope probe: the probe agent that watches the fabric between jobs. The
// engine, the hellos and the service are probe/; this reads the flags,
// checks their bounds and opens the UD port.

#include <fmt/format.h>

#include <memory>

#include "cli/cli.h"
#include "net/auth.h"
#include "probe/service.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/host_name.h"
#include "util/interrupt.h"
#include "util/version.h"

namespace fabscope::cli {
namespace {

using namespace probe;

struct ProbeCommand {
    std::string pinglist;
    std::string name;
    std::string listen = "127.0.0.1:9776";
    std::string hello_addr;
    int hello_port = kDefaultHelloPort;
    std::vector<std::string> allow;
    std::string secret_file;
    std::string device;
    int port = 0;
    int gid_index = -1;
    std::string interval = "10s";
    std::string timeout = "1s";
    uint32_t count = 10;
    uint32_t window = 5;
    uint32_t baseline = 10;
    uint32_t cross_hosts = 2;
    uint32_t cross_probers = 2;
    ProbeThresholds thresholds;
};

constexpr double kMaxProbeRate = 20000;  // probes a second an agent may send

Result<std::chrono::milliseconds> duration_between(const char* flag, const std::string& text,
                                                   int64_t min_ms, int64_t max_ms) {
    auto d = parse_duration(text);
    if (!d || d->count() < min_ms || d->count() > max_ms) {
        return make_error(fmt::format("{} {}: use a duration from {} to {}", flag, text,
                                      format_duration(Millis(min_ms)),
                                      format_duration(Millis(max_ms))));
    }
    return *d;
}

Result<ProbeServiceOptions> service_options(const ProbeCommand& o) {
    ProbeServiceOptions so;
    auto hosts = load_pinglist(o.pinglist, static_cast<uint16_t>(o.hello_port));
    if (!hosts) return hosts.error();
    so.hosts = std::move(*hosts);
    const std::string name = o.name.empty() ? host_name() : o.name;
    so.self = find_host(so.hosts, name);
    if (so.self == so.hosts.size()) {
        return make_error(
            fmt::format("this host ({}) is not in the pinglist {}: --name says "
                        "which of its hosts this is",
                        name.empty() ? "no name" : name, o.pinglist));
    }
    auto interval = duration_between("--interval", o.interval, 100, 3600000);
    if (!interval) return interval.error();
    auto timeout = duration_between("--timeout", o.timeout, 10, 60000);
    if (!timeout) return timeout.error();
    ProbeConfig& c = so.config;
    c.interval = *interval;
    c.timeout = *timeout;
    c.count = o.count;
    c.window = o.window;
    c.baseline = o.baseline;
    c.pinglist = {o.cross_hosts, o.cross_probers};
    c.thresholds = o.thresholds;
    const Pinglist p = make_pinglist(so.hosts, so.self, c.pinglist);
    const size_t peers = round_peers(p, 0, o.cross_hosts).size();
    const double rate =
        static_cast<double>(peers) * o.count / std::chrono::duration<double>(c.interval).count();
    if (rate > kMaxProbeRate) {
        return make_error(
            fmt::format("{} peers x --count {} every {} is {:.0f} probes a second, "
                        "more than {:.0f}: fewer probes or a longer --interval",
                        peers, o.count, o.interval, rate, kMaxProbeRate));
    }
    so.hello_addr = o.hello_addr;
    so.hello_port = static_cast<uint16_t>(o.hello_port);
    if (!o.allow.empty()) {
        so.allow = perf::AllowList();
        for (const std::string& a : o.allow) {
            if (auto s = so.allow.add(a); !s) return s.error();
        }
    }
    if (!o.secret_file.empty()) {
        auto secret = perf::read_secret_file(o.secret_file);
        if (!secret) return secret.error();
        so.hello.secret = *secret;
    }
    auto listen = parse_listen_address(o.listen);
    if (!listen) return listen.error();
    so.http = *listen;
    so.version = version();
    return so;
}

int run_probe_command(const ProbeCommand& o, const Globals& g) {
    auto so = service_options(o);
    if (!so) return report(so.error(), g);
    so->quiet = g.quiet;
    so->verbose = g.verbose;
    perf::UdPortConfig pc;
    pc.device = o.device;
    pc.port = o.port;
    if (o.gid_index >= 0) pc.gid_index = o.gid_index;
    pc.qkey = probe_qkey(so->hello.secret, pc.qkey);
    auto port = perf::open_ud_port(pc);
    if (!port) return report(port.error(), g);
    install_interrupt_handlers();
    if (auto r = run_probe_service(*so, **port, interrupt_token()); !r) return report(r.error(), g);
    return kExitClean;  // SIGTERM or Ctrl-C: the service's normal end
}

void add_probe_flags(CLI::App* cmd, ProbeCommand& o) {
    cmd->add_option("--pinglist", o.pinglist,
                    "Every host of the fabric, one a line: HOST[:PORT] NAME [LEAF]")
        ->required();
    cmd->add_option("--name", o.name,
                    "Which host of the pinglist this is (default: the host name)");
    cmd->add_option("--listen", o.listen,
                    "ADDR:PORT to serve /metrics and /probe.json on (default 127.0.0.1:9776)");
    cmd->add_option("--hello-port", o.hello_port, "TCP port of the hellos (default 18516)")
        ->check(CLI::Range(1, 65535));
    cmd->add_option("--hello-addr", o.hello_addr, "Address the hellos listen on (default: all)");
    cmd->add_option("--allow", o.allow,
                    "Answer hellos from ADDR or ADDR/CIDR only (repeatable; default: loopback)");
    cmd->add_option("--secret-file", o.secret_file,
                    "Say and answer hellos only with the secret in FILE (mode 600)");
    cmd->add_option("-d,--ib-dev", o.device, "RDMA device (default: the first)");
    cmd->add_option("-i,--ib-port", o.port, "Device port (default: the first active)");
    cmd->add_option("-x,--gid-index", o.gid_index, "GID index (default: RoCE v2 on IPv4)");
    cmd->add_option("--interval", o.interval, "One round of probes (default 10s)");
    cmd->add_option("-c,--count", o.count, "Probes a peer per interval (default 10)")
        ->check(CLI::Range(1, 1000));
    cmd->add_option("--timeout", o.timeout, "A probe unanswered this long is lost (default 1s)");
    cmd->add_option("--window", o.window,
                    "Intervals a peer's loss and p99 are judged over (default 5)")
        ->check(CLI::Range(1, 100));
    cmd->add_option("--baseline", o.baseline,
                    "Intervals before the window that make a peer's baseline p99 (default 10)")
        ->check(CLI::Range(0, 1000));
    cmd->add_option("--cross-hosts", o.cross_hosts,
                    "Hosts of each covered leaf probed an interval (default 2)")
        ->check(CLI::Range(1, 64));
    cmd->add_option("--cross-probers", o.cross_probers,
                    "Hosts of a leaf that cover each other leaf (default 2)")
        ->check(CLI::Range(1, 64));
    cmd->add_option("--loss-ratio", o.thresholds.loss_ratio,
                    "A peer loses probes at this ratio over the window (default 0.001)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--min-lost", o.thresholds.min_lost,
                    "... and at least this many probes (default 2)")
        ->check(CLI::Range(1, 1000000));
    cmd->add_option("--p99-rise", o.thresholds.p99_rise,
                    "A p99 this many times its baseline has risen (default 3)")
        ->check(CLI::Range(1.1, 1000.0));
}

}  // namespace

void add_probe(CLI::App& app, Context& ctx) {
    auto o = std::make_shared<ProbeCommand>();
    CLI::App* cmd = app.add_subcommand(
        "probe",
        "Probe the fabric between jobs: RDMA latency and loss to a pinglist, served to Prometheus");
    add_probe_flags(cmd, *o);
    cmd->footer(R"(A long-running agent, one per host. Every --interval it sends --count small
RDMA probes (UD datagrams: a lost probe stays lost) to every host under its own
leaf and, for the other leaves it covers, to --cross-hosts of their hosts,
rotating; it answers the probes of the agents that said hello to it (TCP,
--allow, --secret-file). Per peer under its leaf and per leaf pair it keeps the
loss and p50/p99 round trip over the last --window intervals, and serves them on
/metrics and /probe.json. Findings (stderr, the JSON, fabscope_probe_findings):
this host's own link losing probes (most of its peers lose them), one peer's,
a leaf pair's uplinks, a p99 above --p99-rise x the pair's own baseline, a peer
with no agent. SIGTERM or Ctrl-C stops it (exit 0). Bad flags or pinglist exit 2;
no device or a port in use exits 3.

Examples:
  fabscope probe --pinglist /etc/fabscope/hosts --allow 10.0.0.0/8 --listen 0.0.0.0:9776
  fabscope probe --pinglist hosts --interval 2s -c 50 --secret-file /etc/fabscope/probe.secret
  curl -s http://127.0.0.1:9776/probe.json | jq .findings)");
    cmd->callback(
        [&ctx, o] { ctx.action = [&ctx, o] { return run_probe_command(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
