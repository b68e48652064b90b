// fabscope mesh run: a fabric-wide test with one rank per endpoint, launched
// by mpirun or srun. Every rank runs this; rank 0 plans, collects, localizes
// and writes the report. The loop itself is mesh/run; this file parses
// options, starts MPI and prints.

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>
#include <ostream>

#include "cli/cli.h"
#include "cli/mesh_incast.h"
#include "cli/rank_exit.h"
#include "cli/sweep_options.h"
#include "mesh/agent.h"
#include "mesh/report.h"
#include "mesh/run.h"
#include "mesh/run_pattern.h"
#include "mesh/switch_pma.h"
#include "mesh/tracing.h"
#include "model/json_io.h"
#include "model/paths.h"
#include "net/auth.h"
#include "ranks/launcher.h"
#include "util/duration.h"
#include "util/exit_status.h"
#include "util/interrupt.h"
#ifdef FABSCOPE_HAVE_MPI
#include "ranks/comm_mpi.h"
#include "rdma/ibv_device.h"
#endif

namespace fabscope::cli {
namespace {

using perf::MeshRunData;

struct MeshRunCommand {
    std::string device;
    std::string devices;
    int port = 0;
    int gid_index = -1;
    int traffic_class = 0;
    int mtu = 0;
    std::string pattern = "all-pairs";
    std::string size = "64K";
    std::string duration = "2s";
    std::string warmup = "500ms";
    uint32_t tx_depth = 128;
    std::string step_timeout = "10s";
    double degraded_at = 0.6;
    std::string output;
    // --pattern incast (cli/cmd_mesh_incast.cpp)
    int receiver = 0;
    int prober = 1;
    std::string probe_size = "64";
    std::string probe_time = "2s";
    std::string thresholds;
    // --pattern ring
    std::string sizes = "1M,8M,64M";
    uint32_t iters = 20;
    uint32_t warmup_iters = 5;
    std::string ring_timeout = "10m";
    std::string names;  ///< hosts file naming the routers traces meet
    bool no_trace = false;
    std::string trace_timeout = "300ms";
    int trace_variants = 8;
    int trace_targets = 64;
    size_t max_rounds = 8;
    size_t passes = 1;
    size_t adaptive_rounds = 4;
    // Launched by agents (mesh/agent.h) instead of MPI.
    std::string hosts;
    uint16_t agent_port = perf::kDefaultPort;
    std::string secret_file;
    std::string connect_timeout = "5s";
    // InfiniBand: the routes (rank 0 or the coordinator) and the switch counters.
    std::string load;
    bool no_switch_counters = false;
    std::string pairs;      ///< --pattern pairs: the pairs file (rank 0)
    LiveSweepOptions umad;  ///< -C/-P: the port rank 0 reads the switch counters from
};

/// --sizes of a ring: each at least a byte, at most 1 GiB, at most 32 of them.
Result<perf::RingTest> ring_test_of(const MeshRunCommand& o) {
    perf::RingTest t;
    t.iterations = o.iters;
    t.warmup = o.warmup_iters;
    auto timeout = parse_duration(o.ring_timeout);
    if (!timeout || timeout->count() <= 0 || *timeout > std::chrono::hours(1))
        return make_error(fmt::format("mesh run: --ring-timeout {}: use e.g. 10m, 90s (at most 1h)",
                                      o.ring_timeout));
    t.timeout = *timeout;
    for (size_t at = 0; at <= o.sizes.size();) {
        size_t comma = o.sizes.find(',', at);
        if (comma == std::string::npos) comma = o.sizes.size();
        const std::string one = o.sizes.substr(at, comma - at);
        auto size = perf::parse_size(one);
        if (!size || *size == 0)
            return make_error(fmt::format(
                "mesh run: --sizes {}: a comma-separated list of sizes, e.g. 1M,8M,64M (each "
                "1 byte .. 1G)",
                o.sizes));
        t.sizes.push_back(*size);
        at = comma + 1;
    }
    if (t.sizes.size() > 32) return make_error("mesh run: --sizes: at most 32 sizes");
    return t;
}

Result<perf::MeshRunOptions> options_of(const MeshRunCommand& o) {
    perf::MeshRunOptions m;
    if (o.pattern != "all-pairs" && o.pattern != "cover" && o.pattern != "incast" &&
        o.pattern != "leaf" && o.pattern != "pairs" && o.pattern != "ring") {
        return make_error(
            fmt::format("mesh run: --pattern {}: a mesh run knows all-pairs, cover, leaf, pairs, "
                        "ring and incast",
                        o.pattern));
    }
    if (o.pattern == "cover" && !o.devices.empty())
        return make_error("mesh run: --pattern cover: one device per host (no --devices)");
    if (o.pattern == "cover" && o.no_trace && o.load.empty())
        return make_error(
            "mesh run: --pattern cover plans from traced paths: drop --no-trace "
            "(or, on InfiniBand, give --load SNAPSHOT)");
    if (o.pattern == "leaf" && o.load.empty())
        return make_error(
            "mesh run: --pattern leaf: the leaves come from a snapshot's cables; "
            "give --load SNAPSHOT (InfiniBand)");
    if (o.pattern == "pairs" && o.pairs.empty())
        return make_error(
            "mesh run: --pattern pairs: give --pairs FILE (\"SRC DST\" by host "
            "name, a pair a line)");
    if (o.pattern != "pairs" && !o.pairs.empty())
        return make_error("mesh run: --pairs FILE goes with --pattern pairs");
    if (o.load.empty() && (o.no_switch_counters || !o.umad.ca.empty() || o.umad.ca_port != 0))
        return make_error("mesh run: --no-switch-counters, -C and -P go with --load SNAPSHOT");
    if (!o.load.empty() && !o.devices.empty())
        return make_error(
            "mesh run: --load and --devices: a snapshot is one subnet; run one "
            "mesh per plane, each with its own snapshot and -d");
    m.pattern = o.pattern;
    if (o.pattern == "ring") {
        auto ring = ring_test_of(o);
        if (!ring) return ring.error();
        m.ring = std::move(*ring);
    }
    // Rank 0 loads the snapshot and reads the switch ports before it plans.
    if (!o.load.empty()) m.plan_extra = std::chrono::seconds(60);
    m.trace_variants = o.trace_variants;
    m.trace_targets = o.trace_targets;
    m.max_cover_rounds = o.max_rounds;
    m.cover_passes = o.passes;
    m.adaptive_rounds = o.adaptive_rounds;
    m.slow_ratio = o.degraded_at;
    auto size = perf::parse_size(o.size);
    if (!size)
        return make_error(fmt::format("mesh run: --size {}: use bytes, or e.g. 64K", o.size));
    auto duration = parse_duration(o.duration);
    auto warmup = parse_duration(o.warmup);
    auto step = parse_duration(o.step_timeout);
    if (!duration || duration->count() <= 0)
        return make_error(fmt::format("mesh run: --duration {}: use e.g. 2s, 500ms", o.duration));
    if (!warmup) return make_error(fmt::format("mesh run: --warmup {}: use e.g. 500ms", o.warmup));
    if (!step || step->count() <= 0)
        return make_error(fmt::format("mesh run: --step-timeout {}: use e.g. 10s", o.step_timeout));
    if (!(o.degraded_at > 0 && o.degraded_at < 1))
        return make_error(
            "mesh run: --degraded-at: a share of the median between 0 and 1, e.g. 0.6");
    if (!o.device.empty() && !o.devices.empty())
        return make_error("mesh run: -d and --devices: give one or the other");
    m.spec.op = perf::Op::Write;
    m.spec.size = *size;
    m.spec.duration = *duration;
    m.spec.warmup_time = *warmup;
    // Warm up by time: perf run's 256 messages take seconds on a slow or shared link.
    m.spec.warmup = 16;
    m.spec.tx_depth = o.tx_depth;
    m.device = o.device;
    for (size_t at = 0; !o.devices.empty() && at <= o.devices.size();) {
        size_t comma = o.devices.find(',', at);
        if (comma == std::string::npos) comma = o.devices.size();
        std::string d = o.devices.substr(at, comma - at);
        if (d.empty()) return make_error("mesh run: --devices: a comma-separated list of devices");
        m.devices.push_back(d);
        at = comma + 1;
    }
    m.port = o.port;
    if (o.gid_index >= 0) m.peer.gid_index = o.gid_index;
    m.peer.traffic_class = static_cast<uint8_t>(o.traffic_class);
    m.peer.mtu_cap = o.mtu;
    m.step_timeout = *step;
    auto trace_timeout = parse_duration(o.trace_timeout);
    if (!trace_timeout || trace_timeout->count() <= 0)
        return make_error(
            fmt::format("mesh run: --trace-timeout {}: use e.g. 300ms", o.trace_timeout));
    return m;
}

int run_incast_pattern(const MeshRunCommand& o, const Globals& g) {
    auto opts = options_of(o);
    if (!opts) return report(opts.error(), g);
    return run_mesh_incast({std::move(*opts), o.receiver, o.prober, o.probe_size, o.probe_time,
                            o.thresholds, o.output},
                           g);
}

/// The PMA counters of the snapshot's switch-to-switch ports, read through
/// this host's umad port (opened at the first reading; a port that cannot be
/// opened, without root or umad permissions, makes that reading's error).
perf::ReadSwitchCounters switch_counter_reader(const MeshRunCommand& o, const Globals& g,
                                               std::shared_ptr<const Fabric> fabric) {
    auto session = std::make_shared<std::optional<LiveSession>>();
    auto open_error = std::make_shared<std::string>();
    return [o, g, fabric, session, open_error]() {
        if (!*session && open_error->empty()) {
            auto opened = open_live_session(o.umad, g);
            if (opened)
                session->emplace(std::move(*opened));
            else
                *open_error = opened.error().message;
        }
        if (!*session) return perf::SwitchCounterRead{{}, {}, *open_error};
        return perf::read_switch_link_counters((*session)->transport(), (*session)->clock(),
                                               *fabric,
                                               (*session)->engine_options(&interrupt_token()));
    };
}

/// What rank 0 (or the coordinator) reads before the run: --pairs FILE, and
/// --load's snapshot whose routes give the flows' paths, checked, with the
/// reader of its switch counters (unless --no-switch-counters).
Status load_routes(const MeshRunCommand& o, const Globals& g, perf::MeshRunOptions& m) {
    if (!o.pairs.empty()) {
        auto pairs = read_pair_names(o.pairs);
        if (!pairs) return make_error("mesh run: --pairs " + pairs.error().message, kExitUsage);
        m.pairs = std::move(*pairs);
        m.pairs_from = o.pairs;
    }
    if (o.load.empty()) return Ok{};
    auto snap = load_named_snapshot(o.load, g);
    if (!snap) return snap.error();
    if (!has_routes(snap->fabric)) {
        return make_error(
            fmt::format("mesh run: --load {}: the snapshot has no forwarding "
                        "tables; sweep without --no-routes (fabscope sweep -o FILE) and "
                        "load that",
                        o.load),
            kExitUsage);
    }
    auto fabric = std::make_shared<const Fabric>(std::move(snap->fabric));
    m.routes = fabric;
    m.routes_from = o.load;
    if (!o.no_switch_counters) m.read_switch_counters = switch_counter_reader(o, g, fabric);
    return Ok{};
}

/// Rank 0 writes the report and prints the summary; the exit code.
int finish_mesh_run(perf::MeshRunOutcome& out, const MeshRunCommand& o, const Globals& g) {
    const TextStyle st = g.err_style();
    MeshRunData& d = out.data;
    auto a = perf::analyse_mesh(d, o.degraded_at);
    auto write = [&](std::ostream& os) { perf::write_mesh_run_json(os, d, a); };
    if (!o.output.empty()) {
        if (auto w = json_io::write_file_atomically(o.output, write); !w)
            return report(w.error(), g);
    }
    if (g.json) {
        if (auto w = json_io::write_file_atomically("-", write); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        for (const std::string& line : perf::mesh_run_summary(d, a)) {
            std::string tag;
            if (line.rfind("suspect:", 0) == 0)
                tag = st.red("suspect:") + line.substr(8);
            else if (line.rfind("finding:", 0) == 0)
                tag = st.yellow("finding:") + line.substr(8);
            else
                tag = line;
            std::fprintf(stderr, "%s\n", tag.c_str());
        }
    }
    if (d.status == "interrupted") return kExitInterrupted;
    if (d.status == "aborted")
        return report(make_error("mesh run: " + out.error, kExitCannotRun), g);
    return !a.any_suspect() && d.findings.empty() ? kExitClean : kExitFindings;
}

/// When rank 0 last wrote its report so far, and what that cost.
struct ReportWrites {
    std::chrono::steady_clock::time_point last{};
    std::chrono::steady_clock::duration cost{};
    size_t rounds_told = 0;
};

/// Rank 0's report after a step, and a line per round done. A report that
/// takes long to analyse and write (an all-pairs run of a thousand ranks:
/// a million flows) is written again only once ten times its cost has
/// passed, so rewriting it takes at most a tenth of rank 0's time; a small
/// one, after every step. The end of the run always writes it.
std::function<void(const MeshRunData&)> progress_of(const MeshRunCommand& o, const Globals& g) {
    auto told = std::make_shared<ReportWrites>();
    return [o, quiet = g.quiet, told](const MeshRunData& d) {
        using SteadyClock = std::chrono::steady_clock;
        const auto now = SteadyClock::now();
        if (!o.output.empty() && now - told->last >= told->cost * 10) {
            auto a = perf::analyse_mesh(d, o.degraded_at);
            auto w = json_io::write_file_atomically(
                o.output, [&](std::ostream& out) { perf::write_mesh_run_json(out, d, a); });
            if (!w) std::fprintf(stderr, "fabscope: %s\n", w.error().message.c_str());
            told->last = SteadyClock::now();
            told->cost = told->last - now;
        }
        if (!quiet && d.rounds_done > told->rounds_told) {
            told->rounds_told = d.rounds_done;
            std::fprintf(stderr, "mesh run: round %zu/%zu done (%.1f s)\n", d.rounds_done,
                         d.rounds.size(), d.wall_seconds);
        }
    };
}

/// The run's first line: who runs it (`ranks`: "9 ranks (Open MPI v4.1.4)")
/// and what.
void announce(const MeshRunCommand& o, const std::string& ranks) {
    if (o.pattern == "ring") {
        std::fprintf(stderr, "mesh run: %s, ring all-reduce of %s, %u iterations\n", ranks.c_str(),
                     o.sizes.c_str(), o.iters);
    } else {
        std::fprintf(stderr, "mesh run: %s, %s, WRITE %s for %s each way\n", ranks.c_str(),
                     o.pattern.c_str(), o.size.c_str(), o.duration.c_str());
    }
}

/// `mesh run --hosts FILE`: this process coordinates `perf serve` agents.
int run_mesh_agents(const MeshRunCommand& o, const Globals& g) {
    if (o.pattern == "incast")
        return report(make_error("mesh run --hosts: the incast pattern runs under MPI only"), g);
    if (!o.devices.empty()) {
        return report(make_error("mesh run --hosts: one device per agent: name it after the "
                                 "host in the hosts file, or give -d"),
                      g);
    }
    auto opts = options_of(o);
    if (!opts) return report(opts.error(), g);
    if (auto routes = load_routes(o, g, *opts); !routes) return report(routes.error(), g);
    auto connect = parse_duration(o.connect_timeout);
    if (!connect || connect->count() <= 0) {
        return report(make_error(fmt::format("mesh run: --connect-timeout {}: use e.g. 5s",
                                             o.connect_timeout)),
                      g);
    }
    auto agents = perf::load_mesh_hosts(o.hosts, o.agent_port);
    if (!agents) return report(agents.error(), g);
    auto names = perf::load_host_names(o.names);
    if (!names) return report(names.error(), g);
    perf::CoordinatorOptions c;
    if (!o.secret_file.empty()) {
        auto secret = perf::read_secret_file(o.secret_file);
        if (!secret) return report(secret.error(), g);
        c.secret = *secret;
    }
    c.run = std::move(*opts);
    c.run.on_progress = progress_of(o, g);
    c.trace = !o.no_trace;
    c.trace_timeout = *parse_duration(o.trace_timeout);
    c.names = std::move(*names);
    c.connect_timeout = *connect;
    install_interrupt_handlers();
    if (!g.quiet) {
        announce(o, fmt::format("{} agents ({})", agents->size(), o.hosts));
    }
    if (const std::string note = perf::session_note(c, agents->size()); !note.empty())
        std::fprintf(stderr, "mesh run: %s\n", note.c_str());
    perf::MeshRunOutcome out = perf::coordinate_mesh(*agents, c, interrupt_token());
    return finish_mesh_run(out, o, g);
}

#ifdef FABSCOPE_HAVE_MPI
int run_mesh_mpi(const MeshRunCommand& o, const Globals& g) {
    if (o.pattern == "incast") return run_incast_pattern(o, g);
    auto opts = options_of(o);
    if (!opts) return report(opts.error(), g);
    auto comm = perf::MpiComm::init(nullptr, nullptr);
    if (!comm) return report(comm.error(), g);
    const bool root = (*comm)->rank() == 0;
    // Only rank 0 reads the snapshot. One it cannot load ends the run on every
    // rank (rank 0 tells them instead of a plan), and is rank 0's exit code.
    Status routes = root ? load_routes(o, g, *opts) : Status{Ok{}};
    if ((*comm)->size() < 2) {
        if (!routes) return report(routes.error(), g);
        return report(make_error("mesh run: one rank per endpoint, and this is the only one: "
                                 "launch it with e.g. `mpirun -np 8 --map-by ppr:1:node fabscope "
                                 "mesh run -o mesh.json` or `srun --mpi=pmix fabscope mesh run`",
                                 kExitCannotRun),
                      g);
    }
    install_interrupt_handlers();
    opts->on_progress = progress_of(o, g);
    if (!routes) opts->cannot_start = "rank 0 could not load --load: " + routes.error().message;
    auto loaded = perf::load_host_names(o.names);
    if (!loaded) return report(loaded.error(), g);
    perf::OpenDevice open = perf::open_ibv_device;
    if (!o.no_trace) {
        perf::TraceOptions t;
        t.timeout = *parse_duration(o.trace_timeout);
        open = perf::with_mesh_tracing(*opts, std::move(open), t, *loaded);
    }
    if (root && !g.quiet)
        announce(o, fmt::format("{} ranks ({})", (*comm)->size(), perf::MpiComm::launcher()));
    perf::MeshRunOutcome out = perf::run_pattern(**comm, open, *opts, interrupt_token());
    if (out.peers_gone) (*comm)->finalize_with_peers_gone();
    if (!root) return non_root_exit(out, (*comm)->rank());
    if (!routes) return report(routes.error(), g);
    out.data.launcher = perf::MpiComm::launcher();
    return finish_mesh_run(out, o, g);
}
#else
int run_mesh_mpi(const MeshRunCommand& o, const Globals& g) {
    if (o.pattern == "incast") return run_incast_pattern(o, g);
    auto opts = options_of(o);
    if (!opts) return report(opts.error(), g);
    if (auto routes = load_routes(o, g, *opts); !routes) return report(routes.error(), g);
    return report(
        perf::built_without_mpi("mesh run",
                                ": CMake finds it. Then launch one rank per endpoint: mpirun -np N "
                                "--map-by ppr:1:node fabscope mesh run -o mesh.json"),
        g);
}
#endif

int run_mesh_run(const MeshRunCommand& o, const Globals& g) {
    if (o.pattern == "ring" && !o.pairs.empty())
        return report(make_error("mesh run: --pattern ring takes no --pairs (its pairs are the "
                                 "ring's neighbours)"),
                      g);
    if (o.pattern == "incast" && (!o.load.empty() || !o.pairs.empty())) {
        return report(make_error("mesh run: --pattern incast takes neither --load nor --pairs "
                                 "(its flows all meet at the receiver)"),
                      g);
    }
    return o.hosts.empty() ? run_mesh_mpi(o, g) : run_mesh_agents(o, g);
}

/// `mesh run --help`'s footer.
constexpr const char kMeshRunFooter[] =
    R"(Every rank opens its device and rank 0 plans the rounds (all-pairs: N-1 rounds
for N ranks, a bye per round when N is odd). In each round the paired ranks connect
an RC QP, exchanging endpoint info over MPI, and measure WRITE bandwidth one way,
then the other. After each step every rank reports to rank 0, which tells the
others to go on: a rank that dies or hangs is named and left out within
--step-timeout or so, and the run still ends. On Soft-RoCE each flow's sender
traces the flow's own path (UDP to 4791 from its addresses and source port);
rank 0 builds the switch-level fabric from the hops and localizes the slow
flows to lanes (a cable in one direction) and to endpoints (the send or
receive side of a host's NIC), and prints suspects first, the cable first.
--pattern cover: every rank first traces --trace-ports source ports to every
other; rank 0 plans rounds that cross every lane the traces show, each flow
steered by the flow label that gives the chosen port, then adds separating
rounds while suspects are confounded (--adaptive-rounds).
--load FILE (InfiniBand: a snapshot from `fabscope sweep -o FILE`): rank 0 finds
every rank's port in it by LID and takes each flow's path from the switches'
forwarding tables, so --pattern cover is planned from the routes without traces
(with LMC > 0 a flow may go to another of its partner's LIDs, routed another
way), suspects are the snapshot's cables named by port (leaf03[17] <->
spine02[5]), and rank 0 reads the PMA counters of every switch-to-switch port
before the first round and after the last (through -C/-P; without umad access
that is a finding and the run goes on): each cable suspect carries what its
two ports counted.
--pattern pairs --pairs FILE: the pairs of the file (host names as the ranks
report them), each both ways, packed into as few rounds as keep every rank in
one pair per round; a host that has no rank able to test is a finding and the
other pairs run. --pattern leaf (with --load): all pairs under each leaf of the
snapshot, every leaf at once.
Ctrl-C (SIGINT or SIGTERM to rank 0) stops after the current step; the report so
far is written with "status": "interrupted".
Without MPI (--hosts FILE): run `fabscope perf serve --allow <this host>` on every
host of FILE, then this command once, anywhere: it is rank 0 (plans, collects,
localizes, writes the report; opens no device) and sends each agent its order
(the test, the pattern, the deadlines), which the agent checks against its
bounds (--max-size, --max-duration, and the run's own length) before it joins;
the agents exchange their QPs through this process. An agent that cannot be
reached, refuses or does not join is a finding; one that dies or hangs is
named gone, and the run goes on without it.
Exit codes: 0 clean, 1 a suspect or finding (a rank gone, a flow failed), 2 bad
flags, hosts file or --load snapshot, 3 could not run (built without MPI and no --hosts, a single
rank, fewer than two ranks with a device, rank 0 lost), 130 interrupted.
--pattern incast (latency under load): the prober READs from the receiver for
--probe-time alone, then again while every other rank WRITEs toward the receiver
for --duration; the report has both medians and p99s, the rise, the senders'
bandwidth and every host's congestion counters over the loaded interval through
the RoCE detectors (docs/mesh-incast.schema.json). Exit 1 on a finding (the p99
rose past latency_under_load's limits, ECN marks without CNPs, loss, a rank gone).
--pattern ring (a collective as the job runs it): rank 0 puts the ranks in a ring,
hosts under one leaf next to each other when --load's routes tell the leaves, else
in rank order (as NCCL's rings cross nodes); each rank connects a QP to the next
rank and runs, per --sizes, --warmup-iters then --iters all-reduces of 2(N-1)
steps, each a WRITE with immediate of size/N bytes to the next rank. The report
("ring" in docs/mesh-run.schema.json) has per size the all-reduce's time, algbw
and busbw (nccl-tests' convention: busbw = algbw x 2(N-1)/N), each edge's step
times, and the slowest edge with its path and what it costs: the busbw measured
against the busbw were it as fast as the median edge. The edges are the run's
flows, localized as a mesh run's. A rank that dies stalls the ring: its
neighbours say so within --step-timeout, it is named, and the run ends; so does
a size slower than --ring-timeout. With --hosts the coordinator is in no edge.
With --devices each plane's ranks form their own ring and the rings run at once,
as a collective library runs a ring per rail ("rings"; "ring" is plane 0's); the
report says what the slowest plane's ring costs a job that splits each all-reduce
over the planes ("ring_planes").

Examples:
  mpirun -np 16 --map-by ppr:1:node --hostfile hosts fabscope mesh run -o mesh.json
  mpirun -np 9 --map-by ppr:1:node --hostfile hosts fabscope mesh run --pattern cover \
      --names /etc/fabric.hosts -o mesh.json
  mpirun -np 32 --map-by ppr:2:node fabscope mesh run --devices mlx5_0,mlx5_1 -o mesh.json
  fabscope sweep -o fabric.json    # InfiniBand: routes and counters (umad access)
  mpirun -np 648 --map-by ppr:1:node fabscope mesh run --pattern cover \
      --load fabric.json -o mesh.json
  mpirun -np 5 --map-by ppr:1:node fabscope mesh run --pattern incast --receiver 0 \
      --prober 1 --tclass 2 -s 32K -t 2 -D 4s -o incast.json
  srun -N 64 --ntasks-per-node=1 --mpi=pmix fabscope mesh run -d mlx5_0 -D 1s -o mesh.json
  mpirun -np 64 --map-by ppr:1:node fabscope mesh run --pattern ring --sizes 1M,64M,512M \
      --load fabric.json -o ring.json
  mpirun -np 64 --map-by ppr:2:node fabscope mesh run --pattern ring --devices mlx5_0,mlx5_1 \
      -o rings.json
  # agents: `fabscope perf serve --allow 10.0.0.1` on every host of agents.txt, then
  fabscope mesh run --hosts agents.txt --pattern cover --names /etc/fabric.hosts -o mesh.json
  # Open MPI: let the run outlive a rank that dies
  mpirun --enable-recovery --mca orte_abort_on_non_zero_status 0 -np 8 ... fabscope mesh run)";

/// The device and connection options: which device and port, GID, traffic
/// class and MTU.
void add_device_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("-d,--ib-dev", o.device,
                    "Every rank's RDMA device, or on RoCE the network interface it runs over "
                    "(default: the first)");
    cmd->add_option(
        "--devices", o.devices,
        "Hosts with several HCAs: local rank i takes the i-th of this comma-separated "
        "list, and is in plane i; pairs stay within a plane, each plane has its own ring");
    cmd->add_option("-i,--ib-port", o.port, "Device port (default: the first active)");
    cmd->add_option("-x,--gid-index", o.gid_index,
                    "GID index (default: a RoCE v2 IPv4 GID on RoCE, 0 on IB)");
    cmd->add_option("--tclass", o.traffic_class, "RoCE traffic class; 2 marks packets ECT(0)")
        ->check(CLI::Range(0, 255));
    cmd->add_option("-m,--mtu", o.mtu, "Path MTU at most: 256 .. 4096 (default: the port's)")
        ->check(CLI::IsMember({256, 512, 1024, 2048, 4096}));
}

/// --pattern and how cover plans its rounds.
void add_pattern_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("--pattern", o.pattern,
                    "all-pairs: N-1 rounds of disjoint pairs, both ways; cover: rounds planned to "
                    "cross every leaf-spine lane each way, from traced paths with flows steered "
                    "by their flow label (RoCE) or from --load's forwarding tables (InfiniBand), "
                    "then adaptive rounds; leaf (--load): all pairs under each leaf, leaves at "
                    "once; pairs: the pairs of --pairs FILE; ring: a ring all-reduce (--sizes, "
                    "--iters), each rank WRITEing to the next; incast: latency under load (every "
                    "rank but --receiver and --prober WRITEs toward the receiver)")
        ->capture_default_str();
    cmd->add_option("--trace-ports", o.trace_variants,
                    "cover: UDP source ports traced per pair (the paths a flow can be steered to)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
    cmd->add_option("--trace-targets", o.trace_targets,
                    "cover on RoCE: ranks each rank traces, a sample the same both ways spread "
                    "over the ranks (the cover is planned from the pairs traced); 0 = every rank")
        ->check(CLI::Range(0, 65536))
        ->capture_default_str();
    cmd->add_option("--max-rounds", o.max_rounds, "cover: planned rounds at most")
        ->check(CLI::Range(size_t{1}, size_t{64}))
        ->capture_default_str();
    cmd->add_option("--passes", o.passes,
                    "cover: cross every lane and test every rank this many times, other pairs "
                    "each time (3 localizes a cable at 0.7 of its rate through +-20 % noise)")
        ->check(CLI::Range(size_t{1}, size_t{8}))
        ->capture_default_str();
    cmd->add_option("--adaptive-rounds", o.adaptive_rounds,
                    "cover: rounds added to separate suspects the flows cannot tell apart")
        ->check(CLI::Range(size_t{0}, size_t{16}))
        ->capture_default_str();
}

/// --pattern incast's options (cli/cmd_mesh_incast.cpp).
void add_incast_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("--receiver", o.receiver, "incast: the rank the others send toward")
        ->capture_default_str();
    cmd->add_option("--prober", o.prober, "incast: the rank that probes the receiver's latency")
        ->capture_default_str();
    cmd->add_option("--probe-size", o.probe_size, "incast: the probe's READ size")
        ->capture_default_str();
    cmd->add_option("--probe-time", o.probe_time, "incast: how long the probe runs alone")
        ->capture_default_str();
    cmd->add_option("--thresholds", o.thresholds,
                    "incast: thresholds file (latency_under_load, roce; defaults in the user "
                    "guide)");
}

/// --pattern ring's options: the all-reduce's sizes and iterations, named as
/// nccl-tests names them where they can be.
void add_ring_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("--sizes", o.sizes,
                    "ring: the all-reduce's message sizes, comma-separated (each step moves a "
                    "size / N chunk)")
        ->capture_default_str();
    cmd->add_option("-n,--iters", o.iters, "ring: measured all-reduces per size")
        ->check(CLI::Range(1U, 100000U))
        ->capture_default_str();
    cmd->add_option("-w,--warmup-iters", o.warmup_iters, "ring: unmeasured all-reduces first")
        ->check(CLI::Range(0U, 10000U))
        ->capture_default_str();
    cmd->add_option("--ring-timeout", o.ring_timeout,
                    "ring: the most one size's all-reduces may take (a ring that slow is a "
                    "finding, and the run ends)")
        ->capture_default_str();
}

/// The test each flow runs, and when a flow is slow or a rank gone.
void add_test_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("-s,--size", o.size, "WRITE message size")->capture_default_str();
    cmd->add_option("-D,--duration", o.duration, "Each direction of each pair measures this long")
        ->capture_default_str();
    cmd->add_option("--warmup", o.warmup, "Run this long before measuring")->capture_default_str();
    cmd->add_option("-t,--tx-depth", o.tx_depth, "Work requests in flight")
        ->check(CLI::Range(1U, 16384U))
        ->capture_default_str();
    cmd->add_option("--step-timeout", o.step_timeout,
                    "A partner or rank silent this long is gone; the run goes on without it")
        ->capture_default_str();
    cmd->add_option("--degraded-at", o.degraded_at,
                    "A flow below this share of its plane's median bandwidth is slow")
        ->capture_default_str();
}

/// How the flows' paths are traced (RoCE).
void add_trace_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("--names", o.names,
                    "Hosts file (/etc/hosts format) naming the routers the flows' traces meet");
    cmd->add_flag("--no-trace", o.no_trace, "Do not trace the flows' paths (Soft-RoCE only)");
    cmd->add_option("--trace-timeout", o.trace_timeout, "Each trace probe waits this long")
        ->capture_default_str();
}

/// Launched by agents (--hosts) instead of MPI.
void add_agent_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("--hosts", o.hosts,
                    "Launch by agents, not MPI: `fabscope perf serve` runs on every host of FILE "
                    "(one a line: host[:port] [device]) and this process coordinates them");
    cmd->add_option("--agent-port", o.agent_port,
                    "--hosts: the agents' port where a line names none (default 18515)");
    cmd->add_option("--secret-file", o.secret_file,
                    "--hosts: the agents' shared secret (their perf serve --secret-file)");
    cmd->add_option("--connect-timeout", o.connect_timeout,
                    "--hosts: an agent that does not accept the connection this soon takes no "
                    "part")
        ->capture_default_str();
}

/// What rank 0 reads before the run (load_routes): --load's snapshot, its
/// switch counters (InfiniBand), and --pairs' file.
void add_routes_options(CLI::App* cmd, MeshRunCommand& o) {
    cmd->add_option("--load", o.load,
                    "InfiniBand: a snapshot with forwarding tables (fabscope sweep -o FILE). Rank "
                    "0 takes every flow's path from its routes (cover is planned from them, no "
                    "traces), names cables by port, and reads the switch ports' counters before "
                    "and after the rounds");
    cmd->add_option("--pairs", o.pairs,
                    "--pattern pairs: a file of \"SRC DST\" lines by host name ('#' comments); "
                    "each pair is tested both ways, in every plane both hosts have");
    cmd->add_flag("--no-switch-counters", o.no_switch_counters,
                  "--load: do not read the switch ports' PMA counters (rank 0 needs umad access "
                  "for them)");
    cmd->add_option("-C,--Ca", o.umad.ca,
                    "--load: the CA rank 0 reads the switch counters through (default: the first "
                    "with an active port)");
    cmd->add_option("-P,--Port", o.umad.ca_port, "--load: its port")->check(CLI::Range(0, 254));
}

}  // namespace

void add_mesh_run(CLI::App* mesh, Context& ctx, const std::string& name) {
    auto o = std::make_shared<MeshRunCommand>();
    CLI::App* cmd = mesh->add_subcommand(
        name,
        "Every endpoint with every other: one MPI rank per endpoint (mpirun, srun), or "
        "`perf serve` agents (--hosts)");
    add_device_options(cmd, *o);
    add_pattern_options(cmd, *o);
    add_incast_options(cmd, *o);
    add_ring_options(cmd, *o);
    add_test_options(cmd, *o);
    add_trace_options(cmd, *o);
    add_agent_options(cmd, *o);
    add_routes_options(cmd, *o);
    cmd->add_option("-o,--output", o->output,
                    "Rank 0 writes the report (JSON) to FILE, after every round and at the end");
    cmd->footer(kMeshRunFooter);
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_mesh_run(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
