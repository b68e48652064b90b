// fabscope mesh run --pattern incast: latency under load. Every rank runs
// this; rank 0 writes the report. The loop is mesh/incast_run, the analysis
// mesh/incast_report; this file checks the options, starts MPI and prints.

#include <fmt/format.h>

#include <cstdio>

#include "cli/mesh_incast.h"
#include "cli/rank_exit.h"
#include "mesh/incast_report.h"
#include "mesh/incast_run.h"
#include "model/json_io.h"
#include "model/thresholds.h"
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

struct Checked {
    perf::IncastOptions opts;
    Thresholds thresholds;
};

Result<Checked> check(const MeshIncastArgs& a) {
    Checked c;
    perf::IncastOptions& o = c.opts;
    o.spec = a.base.spec;
    // Every WRITE signalled: each sender keeps its window (-t x -s) in flight
    // as it slides, instead of draining it before posting again, so the queue
    // toward the receiver holds the senders' windows and the rise measures it.
    o.spec.cq_moderation = 1;
    o.device = a.base.device;
    o.port = a.base.port;
    o.peer = a.base.peer;
    o.step_timeout = a.base.step_timeout;
    o.receiver = a.receiver;
    o.prober = a.prober;
    if (!a.base.devices.empty())
        return make_error(
            "mesh run: --pattern incast takes one device per rank (-d), not --devices");
    auto size = perf::parse_size(a.probe_size);
    if (!size || *size == 0)
        return make_error(
            fmt::format("mesh run: --probe-size {}: use bytes, e.g. 64", a.probe_size));
    auto t = parse_duration(a.probe_time);
    if (!t || t->count() <= 0)
        return make_error(
            fmt::format("mesh run: --probe-time {}: use e.g. 2s, 500ms", a.probe_time));
    if (a.receiver == a.prober)
        return make_error("mesh run: --receiver and --prober must be two different ranks");
    o.probe.op = perf::Op::Read;
    o.probe.measure = perf::Measure::Latency;
    o.probe.size = *size;
    o.probe.warmup = 16;
    o.probe_time = *t;
    c.thresholds = default_thresholds();
    if (!a.thresholds.empty()) {
        auto th = load_thresholds(a.thresholds);
        if (!th) return th.error();
        c.thresholds = std::move(th).value();
    }
    return c;
}

}  // namespace

#ifdef FABSCOPE_HAVE_MPI
int run_mesh_incast(const MeshIncastArgs& a, const Globals& g) {
    auto c = check(a);
    if (!c) return report(c.error(), g);
    auto comm = perf::MpiComm::init(nullptr, nullptr);
    if (!comm) return report(comm.error(), g);
    if ((*comm)->size() < 3) {
        return report(make_error("mesh run --pattern incast: a receiver, a prober and at least "
                                 "one sender, one rank each: launch at least 3 ranks, e.g. "
                                 "`mpirun -np 5 --map-by ppr:1:node fabscope mesh run --pattern "
                                 "incast -o incast.json`",
                                 kExitCannotRun),
                      g);
    }
    install_interrupt_handlers();
    const bool root = (*comm)->rank() == 0;
    const Thresholds& th = c->thresholds;
    perf::IncastOptions& o = c->opts;
    o.read_host = [](const perf::VerbsDevice& dev) {
        return perf::read_local_congestion(dev, "/sys/class/infiniband");
    };
    std::string last_phase;
    o.on_progress = [&](const perf::IncastData& d) {
        if (!a.output.empty()) {
            auto an = perf::analyse_incast(d, th);
            if (auto w = json_io::write_json_file(perf::incast_json(d, an, th), a.output); !w)
                std::fprintf(stderr, "fabscope: %s\n", w.error().message.c_str());
        }
        if (!g.quiet && d.phase != last_phase) {
            last_phase = d.phase;
            std::fprintf(stderr, "mesh run: incast: %s phase (%.1f s)\n", d.phase.c_str(),
                         d.wall_seconds);
        }
    };
    if (root && !g.quiet) {
        std::fprintf(stderr,
                     "mesh run: %d ranks (%s), incast toward rank %d, probe from rank %d "
                     "(READ %s, %s alone), WRITE %s for %s\n",
                     (*comm)->size(), perf::MpiComm::launcher().c_str(), o.receiver, o.prober,
                     a.probe_size.c_str(), a.probe_time.c_str(), format_size(o.spec.size).c_str(),
                     format_duration(o.spec.duration).c_str());
    }
    perf::IncastOutcome out = perf::run_incast(**comm, perf::open_ibv_device, o, interrupt_token());
    if (out.peers_gone) (*comm)->finalize_with_peers_gone();
    if (!root) return non_root_exit(out, (*comm)->rank());
    perf::IncastData& d = out.data;
    d.launcher = perf::MpiComm::launcher();
    auto an = perf::analyse_incast(d, th);
    nlohmann::json doc = perf::incast_json(d, an, th);
    if (!a.output.empty()) {
        if (auto w = json_io::write_json_file(doc, a.output); !w) return report(w.error(), g);
    }
    if (g.json) {
        if (auto w = json_io::write_json_file(doc, "-"); !w) return report(w.error(), g);
    }
    if (!g.quiet) {
        const TextStyle st = g.err_style();
        for (const std::string& line : perf::incast_summary(d, an)) {
            if (line.rfind("finding:", 0) == 0)
                std::fprintf(stderr, "%s%s\n", st.yellow("finding:").c_str(), line.c_str() + 8);
            else
                std::fprintf(stderr, "%s\n", line.c_str());
        }
    }
    if (d.status == "interrupted") return kExitInterrupted;
    if (d.status == "aborted")
        return report(make_error("mesh run: " + out.error, kExitCannotRun), g);
    return an.failed() || !d.findings.empty() ? kExitFindings : kExitClean;
}
#else
int run_mesh_incast(const MeshIncastArgs& a, const Globals& g) {
    if (auto c = check(a); !c) return report(c.error(), g);
    return report(perf::built_without_mpi("mesh run", ""), g);
}
#endif

}  // namespace fabscope::cli
