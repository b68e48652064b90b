#include "mesh/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "congestion/flow_congestion.h"
#include "mesh/paths_ib.h"
#include "mesh/plan.h"
#include "mesh/report.h"
#include "mesh/wire.h"
#include "model/duration.h"
#include "ranks/protocol.h"
#include "schedule/schedule.h"
#include "trace/roce_sport.h"
#include "trace/udp_probe.h"
#include "util/host_name.h"

namespace fabscope::perf {

namespace {

using json = nlohmann::json;

constexpr int kTagHello = kMeshTagHello;
constexpr int kTagPlan = 2;
constexpr int kTagTraceAsk = 3;
constexpr int kTagTraces = 4;
enum class StepMsg : int { Report = 0, Go = 1, Info = 2, Ready = 3 };
int step_tag(size_t step, StepMsg kind) {
    // Distinct per step, so a message that comes a step late is never taken
    // for the current one.
    return 16 + static_cast<int>(step % 100000) * 4 + static_cast<int>(kind);
}

/// The partner side of one round: a QP towards `partner`, connected and known
/// to be connected on the other side too.
struct PairUp {
    std::unique_ptr<TestEndpoint> ep;
    EndpointInfo remote;
    std::string error;
    bool partner_silent = false;
};

PairUp pair_up(MeshComm& comm, const VerbsDevice& dev, const MeshRunOptions& o,
               const std::vector<MeshRank>& ranks, int partner, size_t step, uint32_t label,
               uint8_t path_bits) {
    PairUp p;
    const auto deadline = MeshClock::now() + o.step_timeout;
    EndpointConfig cfg = endpoint_config(o.spec, o.peer);
    cfg.flow_label = label;
    auto ep = dev.create_endpoint(cfg);
    json mine =
        ep ? json{{"info", info_to_json((*ep)->info())}} : json{{"error", ep.error().message}};
    auto silent = [&] {
        p.partner_silent = true;
        p.error = fmt::format("{} did not answer within {}", who(ranks, partner),
                              format_duration(o.step_timeout));
        return std::move(p);
    };
    auto theirs =
        parse_message(comm.exchange(partner, step_tag(step, StepMsg::Info), mine.dump(), deadline));
    if (!theirs) return silent();
    if (!ep) {
        p.error = "creating the QP failed: " + ep.error().message;
    } else if (!theirs->contains("info")) {
        p.error = fmt::format("{} could not create its QP: {}", who(ranks, partner),
                              theirs->value("error", "no reason given"));
    } else {
        try {
            p.remote = info_from_json((*theirs)["info"]);
            // LMC: one of the partner's LIDs, which the SM may route another way.
            p.remote.lid = static_cast<uint16_t>(p.remote.lid + path_bits);
            if (auto c = (*ep)->connect(p.remote); !c)
                p.error = "connecting the QP failed: " + c.error().message;
        } catch (const std::exception& e) {
            p.error = fmt::format("{} sent bad endpoint info: {}", who(ranks, partner), e.what());
        }
    }
    // Both sides connected before either sends: a WRITE to a QP not yet
    // ready to receive is dropped and retried until the QP gives up.
    json ready = {{"ok", p.error.empty()}};
    auto their_ready = parse_message(
        comm.exchange(partner, step_tag(step, StepMsg::Ready), ready.dump(), deadline));
    if (!their_ready) return silent();
    if (p.error.empty() && !their_ready->value("ok", false))
        p.error = fmt::format("{} could not connect its QP", who(ranks, partner));
    if (p.error.empty()) p.ep = std::move(*ep);
    return p;
}

/// Rank 0's bookkeeping of one step's reports.
class Coordinator {
  public:
    Coordinator(MeshRunData& d, const RoceLimits& limits) : d_(d), limits_(limits) {}

    /// Whether the ranks still missing will not come: each one's partner
    /// has already said it is silent.
    static bool all_missing_vouched(const MeshComm::Messages& got, const std::vector<char>& skip) {
        std::vector<char> silent(got.size(), 0);
        for (const auto& m : got) {
            if (auto j = parse_message(m); j && j->contains("silent_partner")) {
                int p = (*j)["silent_partner"].get<int>();
                if (p >= 0 && static_cast<size_t>(p) < silent.size()) silent[p] = 1;
            }
        }
        for (size_t r = 0; r < got.size(); ++r) {
            if (!got[r] && !skip[r] && !silent[r]) return false;
        }
        return true;
    }

    void absorb(size_t round, const MeshComm::Messages& got, std::vector<char>& skip) {
        for (size_t r = 0; r < got.size(); ++r) {
            if (skip[r]) continue;
            auto j = parse_message(got[r]);
            if (!j) {
                skip[r] = 1;
                MeshRank& mr = d_.ranks[r];
                mr.gone = true;
                mr.gone_round = static_cast<int>(round);
                d_.findings.push_back(
                    {"rank-gone", static_cast<int>(r), static_cast<int>(round),
                     fmt::format("{} stopped reporting in round {}: it died or hangs; the run "
                                 "went on without it",
                                 who(d_.ranks, static_cast<int>(r)), round + 1)});
                continue;
            }
            if (j->contains("silent_partner")) note_silent(round, static_cast<int>(r), *j);
            if (j->contains("flow")) record(round, static_cast<int>(r), (*j)["flow"]);
            for (const char* side : {"tx", "rx"}) {
                if (j->contains(side)) counted(round, static_cast<int>(r), side, (*j)[side]);
            }
        }
        detect(round);
    }

  private:
    MeshFlow* flow(size_t round, int src) {
        for (MeshFlow& f : d_.flows) {
            if (f.round == round && f.src == src) return &f;
        }
        return nullptr;
    }
    MeshFlow* flow_to(size_t round, int dst) {
        for (MeshFlow& f : d_.flows) {
            if (f.round == round && f.dst == dst) return &f;
        }
        return nullptr;
    }
    /// One end's counters around its part of a flow: the sender's ("tx") or
    /// the receiver's ("rx"). A side that sent something malformed is left out.
    void counted(size_t round, int r, const std::string& side, const json& j) {
        const bool tx = side == "tx";
        MeshFlow* f = tx ? flow(round, r) : flow_to(round, r);
        if (!f || f->congestion_read || !j.is_object()) return;
        auto c = j.find("counters");
        auto s = j.find("seconds");
        auto dev = j.find("device");
        if (c == j.end() || !c->is_object() || s == j.end() || !s->is_number() || dev == j.end() ||
            !dev->is_string())
            return;
        f->counters[tx ? "local" : "remote"] = *c;
        (tx ? f->src_device : f->dst_device) = dev->get<std::string>().substr(0, 64);
        // The sender's interval is the flow's; the receiver's stands in when
        // the sender said nothing.
        if (tx || f->counted_s <= 0) f->counted_s = std::max(0.0, s->get<double>());
    }
    /// The congestion detectors over every flow of the round both ends (or
    /// the one left) have reported on; each finding is also the run's.
    void detect(size_t round) {
        for (MeshFlow& f : d_.flows) {
            if (f.round != round || f.congestion_read || !f.counters.contains("local")) continue;
            f.congestion_read = true;
            const std::string& src = d_.ranks.at(f.src).host;
            const std::string& dst = d_.ranks.at(f.dst).host;
            f.congestion = test_congestion(f.counters, {src, f.src_device, dst, f.dst_device},
                                           f.counted_s, limits_);
            for (const Finding& x : f.congestion) {
                // The receiver's device (two ranks may share a host).
                const bool at_dst = x.evidence.value("host", "") == dst &&
                                    x.evidence.value("port", "") == f.dst_device;
                d_.findings.push_back({"congestion", at_dst ? f.dst : f.src,
                                       static_cast<int>(round),
                                       fmt::format("{} -> {} in round {}: {}", who(d_.ranks, f.src),
                                                   who(d_.ranks, f.dst), round + 1, x.summary)});
            }
        }
    }
    void note_silent(size_t round, int r, const json& j) {
        int p = j["silent_partner"].get<int>();
        for (MeshFlow& f : d_.flows) {
            if (f.round != round || f.measured) continue;
            if ((f.src == r && f.dst == p) || (f.src == p && f.dst == r))
                f.error = j.value("error", "the partner did not answer");
        }
    }
    void record(size_t round, int src, const json& j) {
        MeshFlow* f = flow(round, src);
        if (!f) return;
        if (j.value("error", "") == "interrupted") {
            f->error = "not run: the run was interrupted";  // cut short, not failed
            return;
        }
        f->measured = true;
        f->ok = j.value("ok", false);
        f->error = j.value("error", "");
        f->avg_gbps = j.value("avg_gbps", 0.0);
        f->peak_gbps = j.value("peak_gbps", 0.0);
        f->min_window_gbps = j.value("min_window_gbps", 0.0);
        f->bytes = j.value("bytes", uint64_t{0});
        f->seconds = j.value("seconds", 0.0);
        if (auto p = j.find("path"); p != j.end() && p->is_object()) f->path = *p;
        if (!f->ok) {
            d_.findings.push_back({"flow-failed", src, static_cast<int>(round),
                                   fmt::format("{} -> {} in round {}: {}", who(d_.ranks, src),
                                               who(d_.ranks, f->dst), round + 1, f->error)});
        }
    }
    MeshRunData& d_;
    RoceLimits limits_;
};

/// This rank's part of the traces a cover is planned from: every source
/// port to every other rank with an address.
json trace_to_all(const MeshRunOptions& o, const std::vector<MeshRank>& ranks, int me,
                  const std::vector<uint16_t>& sports) {
    json out = json::array();
    // No ports asked: rank 0 plans from an InfiniBand snapshot's routes.
    if (!o.trace_sports || sports.empty() || static_cast<size_t>(me) >= ranks.size()) return out;
    const std::string& from = ranks[me].address;
    if (from.empty()) return out;
    for (const MeshRank& r : ranks) {
        if (r.rank == me || r.address.empty() || !r.error.empty()) continue;
        std::vector<FlowTrace> traces = o.trace_sports(from, r.address, sports);
        for (const FlowTrace& t : traces) {
            auto v = std::find(sports.begin(), sports.end(), t.sport);
            if (v == sports.end()) continue;
            out.push_back({{"dst", r.rank},
                           {"variant", v - sports.begin()},
                           {"trace", flow_trace_to_json(t)}});
        }
        // No traces: no router between (the same leaf): the pair crosses no lane.
        if (traces.empty()) {
            for (size_t v = 0; v < sports.size(); ++v)
                out.push_back({{"dst", r.rank}, {"variant", v}});
        }
    }
    return out;
}

void absorb_traces(MeshRunData& d, int src, const json& j) {
    if (!j.is_array()) return;
    for (const json& t : j) {
        try {
            MeshTrace m;
            m.src = src;
            m.dst = t.at("dst").get<int>();
            m.variant = t.at("variant").get<int>();
            if (t.contains("trace")) m.hops = flow_trace_from_json(t["trace"]).hops;
            d.traces.push_back(std::move(m));
        } catch (const std::exception&) {
            // A trace rank 0 cannot read is one path less to plan with.
        }
    }
}

json plan_json(const MeshRunData& d) {
    json ranks = json::array();
    for (const MeshRank& r : d.ranks) ranks.push_back(rank_json(r));
    return {{"ranks", ranks}, {"rounds", rounds_json(d.rounds)}};
}

/// A reading of the switch counters that failed, or left ports out, is a finding.
void note_switch_counters(MeshRunData& d, const SwitchCounterRead& r, const char* when) {
    if (!r.error.empty()) {
        d.findings.push_back(
            {"switch-counters", 0, -1,
             fmt::format("the switch ports' counters were not read {}: {} (the suspects have "
                         "no switch evidence; give rank 0 umad access, or pass "
                         "--no-switch-counters)",
                         when, r.error)});
    } else if (!r.failed.empty() && d.routes) {
        d.findings.push_back(
            {"switch-counters", 0, -1,
             fmt::format("{} switch port(s) did not answer the PMA {} (the first: {}): their "
                         "counters are no evidence",
                         r.failed.size(), when, describe(*d.routes, r.failed.front()))});
    }
}

}  // namespace

MeshRunOutcome run_mesh(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                        const StopToken& stop) {
    MeshRunOutcome out;
    MeshRunData& d = out.data;
    const auto t0 = MeshClock::now();
    const int me = comm.rank();
    const int n = comm.size();
    const bool root = me == 0;
    auto elapsed = [&] { return std::chrono::duration<double>(MeshClock::now() - t0).count(); };

    // This rank's device.
    MeshRank self;
    self.rank = me;
    self.host = o.host.empty() ? host_name() : o.host;
    self.device = o.device;
    self.port = o.port;
    if (!o.devices.empty()) {
        self.plane = comm.local_rank();
        if (static_cast<size_t>(self.plane) < o.devices.size()) {
            self.device = o.devices[self.plane];
        } else {
            self.error = fmt::format("local rank {} on {} has no device: --devices names {}",
                                     self.plane, self.host, o.devices.size());
        }
    }
    std::unique_ptr<VerbsDevice> dev;
    if (root && o.coordinator_only) {
        self.coordinator = true;
        self.device.clear();
        self.port = 0;
    } else if (self.error.empty()) {
        dev = open_rank_device(open, self);
    }

    const bool cover = o.pattern == "cover";
    if (dev) {
        // The port's LID (InfiniBand: rank 0 finds the port in its snapshot by
        // it) and, for a cover, the address the flows will come from: the
        // RoCE GID's.
        if (auto ep = dev->create_endpoint(endpoint_config(o.spec, o.peer)); ep) {
            const EndpointInfo info = (*ep)->info();
            self.lid = info.lid;
            // InfiniBand's GID 0 is the subnet prefix and the port GUID.
            if (!info.roce) {
                for (size_t i = 8; i < 16; ++i)
                    self.port_guid = (self.port_guid << 8) | info.gid[i];
            }
            if (cover) self.address = gid_ipv4(info.gid);
        }
    }

    // Everyone says hello; rank 0 plans and tells everyone.
    const Millis start_wait = o.step_timeout * 3;
    std::vector<char> skip(static_cast<size_t>(n), 0);
    auto hellos = comm.gather(kTagHello, rank_json(self).dump(), skip, t0 + start_wait, nullptr);
    std::string plan_msg;
    if (root) {
        d.spec = o.spec;
        d.ranks = ranks_from_hellos(hellos, start_wait, skip, d.findings);
        if (o.routes) {
            d.routes = o.routes;
            d.routes_from = o.routes_from;
            for (MeshFinding& f : ranks_not_in_routes(d)) d.findings.push_back(std::move(f));
        }
    }
    if (cover) {
        // Every rank traces its paths to every other; rank 0 plans from them.
        std::string ask;
        if (root) {
            // On InfiniBand the snapshot's routes are the paths: no ports to trace.
            if (!d.routes)
                d.sports = spread_udp_sports(std::clamp(o.trace_variants, 1, kMaxTraceFlows));
            json ranks = json::array();
            for (const MeshRank& r : d.ranks) ranks.push_back(rank_json(r));
            ask = json{{"ranks", ranks}, {"sports", d.sports}}.dump();
        }
        auto asked = parse_message(comm.broadcast(kTagTraceAsk, ask, skip, t0 + start_wait * 2));
        json mine = json::array();
        if (asked) {
            try {
                std::vector<MeshRank> known;
                for (const json& r : asked->at("ranks")) known.push_back(rank_from_json(r));
                mine = trace_to_all(o, known, me, asked->at("sports").get<std::vector<uint16_t>>());
            } catch (const std::exception&) {
                mine = json::array();
            }
        }
        auto traces = comm.gather(kTagTraces, mine.dump(), skip, t0 + start_wait * 3, nullptr);
        if (root) {
            for (int r = 0; r < n; ++r) {
                if (auto j = traces[r] ? json::parse(*traces[r], nullptr, false) : json();
                    !j.is_discarded())
                    absorb_traces(d, r, j);
            }
        }
    }
    if (root) {
        const std::string no_plan =
            plan_run(d, {o.pattern, o.max_cover_rounds, o.pairs, o.pairs_from});
        if (d.routes && !o.read_switch_counters)
            d.switch_counters.skipped = "not asked (--no-switch-counters)";
        if (d.routes && o.read_switch_counters && o.cannot_start.empty() && !d.rounds.empty()) {
            // Before the rounds: the other ranks wait for the plan meanwhile.
            d.switch_counters.before = o.read_switch_counters();
            note_switch_counters(d, *d.switch_counters.before, "before the rounds");
        }
        json plan = plan_json(d);
        if (!o.cannot_start.empty()) {
            plan["abort"] = o.cannot_start;
        } else if (!no_plan.empty()) {
            plan["abort"] = no_plan;
        }
        plan_msg = plan.dump();
    }
    // Tracing before a cover takes its own deadlines (the ask, the traces).
    const Millis plan_wait = start_wait * (cover ? 4 : 2) + o.plan_extra;
    auto plan = parse_message(comm.broadcast(kTagPlan, plan_msg, skip, t0 + plan_wait));
    if (!plan) {
        out.error = fmt::format("rank 0 sent no plan within {}", format_duration(plan_wait));
        return out;
    }
    std::vector<MeshRank> ranks;
    std::vector<std::vector<MeshPair>> rounds;
    try {
        for (const json& r : plan->at("ranks")) ranks.push_back(rank_from_json(r));
        rounds = rounds_from_json(plan->at("rounds"));
    } catch (const std::exception& e) {
        out.error = std::string("rank 0 sent a bad plan: ") + e.what();
        return out;
    }
    if (plan->contains("abort")) {
        d.status = "aborted";
        const json& why = (*plan)["abort"];
        out.error = "the run cannot start: " +
                    (why.is_string() ? why.get<std::string>() : std::string("rank 0 said so"));
        if (root && o.on_progress) o.on_progress(d);
        return out;
    }
    if (root) {
        // Ranks without a device take no part in the steps.
        for (const MeshRank& r : d.ranks) skip[r.rank] = skip[r.rank] || !r.error.empty();
        if (o.on_progress) o.on_progress(d);
    } else if (!self.error.empty()) {
        out.error = self.error;
        return out;
    }

    Coordinator coord(d, o.peer.congestion);
    std::vector<char> gone(static_cast<size_t>(n), 0);
    size_t step = 0;
    const Millis phase_budget = o.step_timeout * 3 + o.spec.duration + o.spec.warmup_time;
    bool stopping = false;
    for (size_t r = 0; r < rounds.size() && !stopping; ++r) {
        const MeshPair* mine = nullptr;
        for (const MeshPair& p : rounds[r]) {
            if (p.a == me || p.b == me) mine = &p;
        }
        const int partner = mine ? (mine->a == me ? mine->b : mine->a) : -1;
        const bool two_phases = std::any_of(rounds[r].begin(), rounds[r].end(),
                                            [](const MeshPair& p) { return p.both_ways; });
        PairUp pair;
        for (int phase = 0; phase < (two_phases ? 2 : 1) && !stopping; ++phase, ++step) {
            const auto phase_start = MeshClock::now();
            json report = {{"round", r}, {"phase", phase}};
            const bool active = mine && dev && !gone[partner] && (phase == 0 || mine->both_ways);
            if (active && phase == 0) {
                const bool first = mine->a == me;
                pair = pair_up(comm, *dev, o, ranks, partner, step,
                               first ? mine->label_ab : mine->label_ba,
                               first ? mine->path_bits_ab : mine->path_bits_ba);
            }
            if (pair.partner_silent && phase == 0) {
                report["silent_partner"] = partner;
                report["error"] = pair.error;
            }
            const bool sender = active && (phase == 0 ? mine->a == me : mine->b == me);
            // Both ends read their device's counters around the flow; the
            // receiver, passive under a WRITE, waits out the sender's time.
            const bool counting = active && pair.ep && !pair.partner_silent;
            const CounterMap before = counting ? dev->read_counters() : CounterMap{};
            const auto counted_from = MeshClock::now();
            if (sender && !pair.partner_silent) {
                report["flow"] = pair.ep ? measure_bandwidth(*pair.ep, o.spec, o.step_timeout, stop)
                                         : json{{"ok", false}, {"error", pair.error}};
            } else if (counting) {
                // And a little more (200 ms at the default 10 s step
                // timeout): the sender starts the clock after the handshake.
                stop.sleep_for(o.spec.warmup_time + o.spec.duration + o.step_timeout / 50);
            }
            if (counting) {
                report[sender ? "tx" : "rx"] = {
                    {"counters", counters_json(counter_deltas(before, dev->read_counters()))},
                    {"seconds",
                     std::chrono::duration<double>(MeshClock::now() - counted_from).count()},
                    {"device", fmt::format("{}/{}", dev->name(), dev->port())}};
            }
            if (sender && pair.ep && !pair.partner_silent && o.trace_flow && !stop.stop_requested())
                report["flow"]["path"] = o.trace_flow(pair.ep->info(), pair.remote);
            auto got =
                comm.gather(step_tag(step, StepMsg::Report), report.dump(), skip,
                            phase_start + phase_budget, [&](const MeshComm::Messages& so_far) {
                                return Coordinator::all_missing_vouched(so_far, skip) ||
                                       (stop.stop_requested() &&
                                        MeshClock::now() - phase_start > o.step_timeout);
                            });
            std::string go_msg;
            if (root) {
                coord.absorb(r, got, skip);
                if (phase == (two_phases ? 1 : 0)) d.rounds_done = r + 1;
                d.wall_seconds = elapsed();
                if (o.on_progress) o.on_progress(d);
                json dead = json::array();
                for (int i = 0; i < n; ++i) {
                    if (d.ranks[i].gone) dead.push_back(i);
                }
                json go = {{"gone", dead}, {"stop", stop.stop_requested()}};
                // After the planned rounds: rounds that separate what they left open.
                const bool last = r + 1 == d.rounds.size() && phase == (two_phases ? 1 : 0);
                const size_t used = d.rounds.size() - d.planned_rounds;
                if (cover && last && !stop.stop_requested() && used < o.adaptive_rounds) {
                    const MeshAnalysis so_far = analyse_mesh(d, o.slow_ratio);
                    const size_t left = o.adaptive_rounds - used;
                    auto more = plan_separating(d, so_far, left);
                    if (!more.empty()) {
                        size_t first = d.rounds.size();
                        d.rounds.insert(d.rounds.end(), more.begin(), more.end());
                        add_flows(d, first);
                        go["more"] = rounds_json(more);
                    }
                }
                go_msg = go.dump();
            }
            auto go = parse_message(comm.broadcast(step_tag(step, StepMsg::Go), go_msg, skip,
                                                   phase_start + phase_budget + o.step_timeout));
            if (!go) {
                out.error = fmt::format("rank 0 did not answer within {}: the run ended without it",
                                        format_duration(phase_budget + o.step_timeout));
                return out;
            }
            for (const json& g : (*go)["gone"]) gone[g.get<int>()] = 1;
            if (go->contains("more")) {
                try {
                    auto more = rounds_from_json((*go)["more"]);
                    rounds.insert(rounds.end(), more.begin(), more.end());
                } catch (const std::exception&) {
                    // Rank 0 wrote them: cannot happen; the run ends with the planned rounds.
                }
            }
            stopping = (*go).value("stop", false) || (!root && stop.stop_requested());
        }
    }
    if (root) {
        for (MeshFlow& f : d.flows) {
            if (f.measured || !f.error.empty()) continue;
            for (int r : {f.src, f.dst}) {
                if (d.ranks[r].gone && d.ranks[r].gone_round <= static_cast<int>(f.round)) {
                    f.error = fmt::format("not run: {} was gone", who(d.ranks, r));
                    break;
                }
            }
            if (f.error.empty() && stopping) f.error = "not run: the run was interrupted";
        }
        // A first reading that failed (no umad access) is not tried again.
        const auto& first = d.switch_counters.before;
        if (first && first->error.empty() && stop.stop_requested()) {
            d.switch_counters.skipped = "interrupted before the second reading";
        } else if (first && first->error.empty()) {
            d.switch_counters.after = o.read_switch_counters();
            note_switch_counters(d, *d.switch_counters.after, "after the rounds");
        }
        d.status = stopping ? "interrupted" : "complete";
        d.wall_seconds = elapsed();
        if (o.on_progress) o.on_progress(d);
    }
    out.peers_gone = std::count(gone.begin(), gone.end(), 1) > 0;
    if (!root && stopping && stop.stop_requested()) out.error = "interrupted";
    return out;
}

}  // namespace fabscope::perf
