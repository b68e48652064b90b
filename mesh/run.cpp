#include "mesh/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>

#include "mesh/collect.h"
#include "mesh/cover_traces.h"
#include "mesh/pair_up.h"
#include "mesh/paths_ib.h"
#include "mesh/plan.h"
#include "mesh/report.h"
#include "mesh/wire.h"
#include "util/duration.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

/// The step tags' kinds: RankRun's report and go, then a pair's own two.
PairUpTags pair_tags(const RankRun& ranks, size_t step) {
    return {ranks.step_tag(step, 2), ranks.step_tag(step, 3)};
}

/// One rank's run through its phases: open, hello, (trace), plan, rounds, finish.
struct Run {
    Run(MeshComm& c, const OpenDevice& op, const MeshRunOptions& opts, const StopToken& st)
        : comm(c),
          open(op),
          o(opts),
          stop(st),
          ranks(c, {kMeshTagHello, 2, 16}, d.ranks, d.findings) {}

    MeshComm& comm;
    const OpenDevice& open;
    const MeshRunOptions& o;
    const StopToken& stop;
    MeshRunOutcome out;
    MeshRunData& d = out.data;
    RankRun ranks;
    const MeshClock::time_point t0 = MeshClock::now();
    const Millis start_wait = o.step_timeout * 3;
    const bool cover = o.pattern == "cover";
    MeshRank self;
    std::unique_ptr<VerbsDevice> dev;
    std::vector<MeshRank> known;                ///< the ranks as the plan gives them
    std::vector<std::vector<MeshPair>> rounds;  ///< every rank's copy of the plan
    bool stopping = false;

    bool root() const { return ranks.root(); }
    double elapsed() const { return std::chrono::duration<double>(MeshClock::now() - t0).count(); }
    void progress() {
        if (root() && o.on_progress) o.on_progress(d);
    }
};

/// This rank's device (the i-th of --devices for local rank i), its LID and
/// port GUID (InfiniBand: rank 0 finds the port in its snapshot by them)
/// and, for a cover, the address its flows will come from: the RoCE GID's.
void open_self(Run& r) {
    MeshRank& self = r.self;
    const MeshRunOptions& o = r.o;
    self.rank = r.ranks.me();
    self.host = o.host.empty() ? host_name() : o.host;
    self.port = o.port;
    choose_device(r.comm.local_rank(), o.device, o.devices, self);
    if (r.root() && o.coordinator_only) {
        self.coordinator = true;
        self.device.clear();
        self.port = 0;
        return;
    }
    if (!self.error.empty()) return;
    r.dev = open_rank_device(r.open, self);
    if (r.dev) learn_port(*r.dev, endpoint_config(o.spec, o.peer), self, r.cover);
}

/// Rank 0: the plan, with the switch ports read before the rounds (the
/// other ranks wait for the plan meanwhile), or why the run cannot start.
json plan_on_root(Run& r) {
    MeshRunData& d = r.d;
    const MeshRunOptions& o = r.o;
    const std::string no_plan =
        plan_run(d, {o.pattern, o.max_cover_rounds, o.cover_passes, o.pairs, o.pairs_from});
    if (o.cannot_start.empty() && !d.rounds.empty())
        read_switch_counters_before(d, o.read_switch_counters);
    json plan = {{"ranks", ranks_json(d.ranks)}};
    add_plan_rounds(d, plan);
    if (!o.cannot_start.empty()) {
        plan["abort"] = o.cannot_start;
    } else if (!no_plan.empty()) {
        plan["abort"] = no_plan;
    }
    return plan;
}

/// Hello, the traces of a cover, and the plan. False when this rank's run
/// ends here (no plan, an abort, no device).
bool start(Run& r) {
    MeshRunData& d = r.d;
    r.ranks.hello(r.self, r.t0 + r.start_wait, r.start_wait);
    if (r.root()) {
        d.spec = r.o.spec;
        if (r.o.routes) {
            d.routes = r.o.routes;
            d.routes_from = r.o.routes_from;
            for (MeshFinding& f : ranks_not_in_routes(d)) d.findings.push_back(std::move(f));
        }
    }
    if (r.cover) trace_for_cover(r.ranks, r.o, d, r.t0 + r.start_wait * 2, r.t0 + r.start_wait * 3);
    // Tracing before a cover takes its own deadlines (the ask, the traces).
    const Millis plan_wait = r.start_wait * (r.cover ? 4 : 2) + r.o.plan_extra;
    bool aborted = false;
    auto plan = r.ranks.plan(r.root() ? plan_on_root(r) : json(), r.t0 + plan_wait, plan_wait,
                             r.known, r.out, &aborted);
    if (aborted) {
        d.status = "aborted";
        r.progress();
    }
    if (!plan) return false;
    auto read = [&](const json& p) { r.rounds = plan_rounds(p, r.known.size()); };
    if (!r.ranks.take_plan(*plan, read, r.self, r.out)) return false;
    if (r.root()) r.progress();
    return true;
}

/// This rank's part of one phase of a round: pair up (phase 0), send or
/// stay up as the target, and read the device's counters around the flow.
json my_part(Run& r, size_t round, int phase, size_t step, const MeshPair* mine, PairUp& pair) {
    const MeshRunOptions& o = r.o;
    const int me = r.ranks.me();
    const int partner = mine ? (mine->a == me ? mine->b : mine->a) : -1;
    json report = {{"round", round}, {"phase", phase}};
    const bool active = mine && r.dev && !r.ranks.gone(partner) && (phase == 0 || mine->both_ways);
    if (active && phase == 0) {
        const bool first = mine->a == me;
        EndpointConfig cfg = endpoint_config(o.spec, o.peer);
        cfg.flow_label = first ? mine->label_ab : mine->label_ba;
        pair = pair_up(r.comm, *r.dev, cfg, r.known, partner, pair_tags(r.ranks, step),
                       MeshClock::now() + o.step_timeout, o.step_timeout,
                       first ? mine->path_bits_ab : mine->path_bits_ba);
        if (pair.partner_silent) {
            report["silent_partner"] = partner;
            report["error"] = pair.error;
        }
    }
    const bool sender = active && (phase == 0 ? mine->a == me : mine->b == me);
    // Both ends read their device's counters around the flow; the receiver,
    // passive under a WRITE, waits out the sender's time.
    const bool counting = active && pair.ep && !pair.partner_silent;
    const CounterMap before = counting ? r.dev->read_counters() : CounterMap{};
    const auto counted_from = MeshClock::now();
    if (sender && !pair.partner_silent) {
        report["flow"] = pair.ep ? measure_bandwidth(*pair.ep, o.spec, o.step_timeout, r.stop)
                                 : json{{"ok", false}, {"error", pair.error}};
    } else if (counting) {
        // And a little more (200 ms at the default 10 s step timeout): the
        // sender starts the clock after the handshake.
        r.stop.sleep_for(o.spec.warmup_time + o.spec.duration + o.step_timeout / 50);
    }
    if (counting) {
        report[sender ? "tx" : "rx"] = {
            {"counters", counters_json(counter_deltas(before, r.dev->read_counters()))},
            {"seconds", std::chrono::duration<double>(MeshClock::now() - counted_from).count()},
            {"device", fmt::format("{}/{}", r.dev->name(), r.dev->port())}};
    }
    if (sender && pair.ep && !pair.partner_silent && o.trace_flow && !r.stop.stop_requested())
        report["flow"]["path"] = o.trace_flow(pair.ep->info(), pair.remote);
    return report;
}

/// Rank 0, after the last planned round: rounds that separate what the
/// rounds so far left open, added to its plan and sent in the "go".
void plan_more(Run& r, json& go) {
    MeshRunData& d = r.d;
    const size_t used = d.rounds.size() - d.planned_rounds;
    if (!r.cover || r.stop.stop_requested() || used >= r.o.adaptive_rounds) return;
    auto more = plan_separating(d, analyse_mesh(d, r.o.slow_ratio), r.o.adaptive_rounds - used);
    if (more.empty()) return;
    const size_t first = d.rounds.size();
    d.rounds.insert(d.rounds.end(), more.begin(), more.end());
    add_flows(d, first);
    go["more"] = rounds_json(more);
}

/// The rounds, each in one or two phases (a then b sends), every phase a
/// step of the ranks' protocol. False when rank 0 stopped answering.
bool run_rounds(Run& r) {
    const MeshRunOptions& o = r.o;
    StepCollector collect(r.d, o.peer.congestion);
    const Millis phase_budget = o.step_timeout * 3 + o.spec.duration + o.spec.warmup_time;
    size_t step = 0;
    for (size_t round = 0; round < r.rounds.size() && !r.stopping; ++round) {
        const MeshPair* mine = nullptr;
        for (const MeshPair& p : r.rounds[round]) {
            if (p.a == r.ranks.me() || p.b == r.ranks.me()) mine = &p;
        }
        const bool two_phases = std::any_of(r.rounds[round].begin(), r.rounds[round].end(),
                                            [](const MeshPair& p) { return p.both_ways; });
        const int last_phase = two_phases ? 1 : 0;
        PairUp pair;
        for (int phase = 0; phase <= last_phase && !r.stopping; ++phase, ++step) {
            const auto phase_start = MeshClock::now();
            const json report = my_part(r, round, phase, step, mine, pair);
            RankRun::Step s;
            s.number = step;
            s.round = static_cast<int>(round);
            s.where = fmt::format("round {}", round + 1);
            s.gone_note = "; the run went on without it";
            s.report_by = phase_start + phase_budget;
            s.go_by = phase_start + phase_budget + o.step_timeout;
            s.go_waited = phase_budget + o.step_timeout;
            s.give_up = [&](const MeshComm::Messages& so_far) {
                return StepCollector::all_missing_vouched(so_far, r.ranks.skip()) ||
                       (r.stop.stop_requested() && MeshClock::now() - phase_start > o.step_timeout);
            };
            auto absorb = [&](int rank, const json& j) { collect.absorb(round, rank, j); };
            auto answer = [&](json& go) {
                collect.detect(round);
                if (phase == last_phase) r.d.rounds_done = round + 1;
                r.d.wall_seconds = r.elapsed();
                r.progress();
                go["stop"] = r.stop.stop_requested();
                if (round + 1 == r.d.rounds.size() && phase == last_phase) plan_more(r, go);
            };
            auto go = r.ranks.step(s, report, absorb, answer, r.out);
            if (!go) return false;
            if (go->contains("more")) {
                try {
                    auto more = rounds_from_json((*go)["more"]);
                    r.rounds.insert(r.rounds.end(), more.begin(), more.end());
                } catch (const std::exception&) {
                    // Rank 0 wrote them: cannot happen; the run ends with the planned rounds.
                }
            }
            r.stopping = go->value("stop", false) || (!r.root() && r.stop.stop_requested());
        }
    }
    return true;
}

/// Rank 0: why each flow not run was not, the switch ports read after the
/// rounds, and the run's status.
void finish(Run& r) {
    MeshRunData& d = r.d;
    for (MeshFlow& f : d.flows) {
        if (f.measured || !f.error.empty()) continue;
        for (int k : {f.src, f.dst}) {
            if (d.ranks[k].gone && d.ranks[k].gone_round <= static_cast<int>(f.round)) {
                f.error = fmt::format("not run: {} was gone", who(d.ranks, k));
                break;
            }
        }
        if (f.error.empty() && r.stopping) f.error = "not run: the run was interrupted";
    }
    read_switch_counters_after(d, r.o.read_switch_counters, r.stop.stop_requested());
    d.status = r.stopping ? "interrupted" : "complete";
    d.wall_seconds = r.elapsed();
    r.progress();
}

}  // namespace

MeshRunOutcome run_mesh(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                        const StopToken& stop) {
    Run r(comm, open, o, stop);
    open_self(r);
    if (!start(r) || !run_rounds(r)) return std::move(r.out);
    if (r.root()) finish(r);
    if (!r.root() && r.stopping && stop.stop_requested()) r.out.error = "interrupted";
    return std::move(r.out);
}

}  // namespace fabscope::perf
