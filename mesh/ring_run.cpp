#include "mesh/ring_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>

#include "mesh/collect.h"
#include "mesh/pair_up.h"
#include "mesh/paths_ib.h"
#include "mesh/plan.h"
#include "mesh/ring_plan.h"
#include "mesh/wire.h"
#include "ranks/protocol.h"
#include "rdma/stats.h"
#include "util/duration.h"
#include "util/host_name.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

constexpr RankTags kRingTags{301, 302, 400};
/// Receives kept posted for the previous rank's immediates: it runs at most
/// n - 1 steps ahead, and a receive not yet reposted costs an RNR retry.
constexpr uint32_t kRingReceives = 512;
/// The ranks' protocol steps: the three colours' pair-ups take the tags of
/// steps 0..2, the connect report step 0's; size k is step kFirstSizeStep + k.
constexpr size_t kFirstSizeStep = 3;

/// The colour of edge `e` of a ring of `n`: neighbouring edges differ, so a
/// rank pairs with one neighbour at a time (an odd ring needs a third).
int edge_colour(size_t e, size_t n) {
    return n % 2 == 1 && e + 1 == n ? 2 : static_cast<int>(e % 2);
}

/// One rank's ring through its steps.
struct Ring {
    Ring(MeshComm& c, const OpenDevice& op, const MeshRunOptions& opts, const StopToken& st)
        : comm(c),
          open(op),
          o(opts),
          t(opts.ring),
          stop(st),
          ranks(c, kRingTags, d.ranks, d.findings),
          collect(d, opts.peer.congestion) {}

    MeshComm& comm;
    const OpenDevice& open;
    const MeshRunOptions& o;
    const RingTest& t;
    const StopToken& stop;
    MeshRunOutcome out;
    MeshRunData& d = out.data;
    RankRun ranks;
    const MeshClock::time_point t0 = MeshClock::now();
    MeshRank self;
    std::unique_ptr<VerbsDevice> dev;
    std::vector<MeshRank> known;
    std::vector<int> order;  ///< every rank's copy of the plan
    std::vector<uint64_t> sizes;
    uint32_t iterations = 0;
    uint32_t warmup = 0;
    Millis timeout{0};  ///< the most one size's all-reduces may take
    int pos = -1;       ///< this rank's place in the ring (-1: not in it)
    std::unique_ptr<TestEndpoint> to_next;
    std::unique_ptr<TestEndpoint> from_prev;
    EndpointInfo next_info;
    std::map<int, json> paths;  ///< rank 0: each sender's traced edge
    /// Rank 0: each rank's ring (an index of d.rings) and the edge it sends
    /// on; -1 for a rank in none. Reports find their place at once: at 4,096
    /// ranks a search per report would be 16 million comparisons a size.
    std::vector<std::pair<int, int>> place;
    /// Rank 0: each end's counters over the ring go to its two edges' flows.
    StepCollector collect;
    CounterMap counted_before;  ///< this rank's device, before the first size
    MeshClock::time_point counted_from{};
    bool stopping = false;

    bool root() const { return ranks.root(); }
    size_t n() const { return order.size(); }
    int next_rank() const { return order[(static_cast<size_t>(pos) + 1) % n()]; }
    int prev_rank() const { return order[(static_cast<size_t>(pos) + n() - 1) % n()]; }
    double elapsed() const { return std::chrono::duration<double>(MeshClock::now() - t0).count(); }
    void progress() {
        if (root() && o.on_progress) o.on_progress(d);
    }
};

/// The endpoints' buffers hold the largest step.
EndpointConfig ring_config(const Ring& x, size_t edge) {
    TestSpec s;
    s.size = ring_chunk(*std::max_element(x.sizes.begin(), x.sizes.end()), x.n());
    s.tx_depth = 4;
    EndpointConfig c = endpoint_config(s, x.o.peer);
    c.recv_depth = kRingReceives;
    c.flow_label = ring_edge_label(edge);
    return c;
}

/// Rank 0: the ring, its sizes and its one round of flows (the edges), or "abort".
json plan_on_root(Ring& x) {
    MeshRunData& d = x.d;
    d.spec = x.o.spec;
    if (x.o.routes) {
        d.routes = x.o.routes;
        d.routes_from = x.o.routes_from;
        for (MeshFinding& f : ranks_not_in_routes(d)) d.findings.push_back(std::move(f));
    }
    const std::string no_plan = plan_run(
        d, {.pattern = "ring", .ring_sizes = x.t.sizes, .ring_iterations = x.t.iterations});
    json orders = json::array();
    for (const RingResult& ring : d.rings) orders.push_back(ring.order);
    x.place.assign(d.ranks.size(), {-1, -1});
    for (size_t ri = 0; ri < d.rings.size(); ++ri) {
        const std::vector<int>& order = d.rings[ri].order;
        for (size_t e = 0; e < order.size(); ++e)
            x.place.at(static_cast<size_t>(order[e])) = {static_cast<int>(ri), static_cast<int>(e)};
    }
    if (x.o.cannot_start.empty() && !d.rounds.empty())
        read_switch_counters_before(d, x.o.read_switch_counters);
    json plan = {{"ranks", ranks_json(d.ranks)}, {"orders", orders},
                 {"sizes", x.t.sizes},           {"iterations", x.t.iterations},
                 {"warmup", x.t.warmup},         {"timeout_ms", x.t.timeout.count()}};
    if (!x.o.cannot_start.empty())
        plan["abort"] = x.o.cannot_start;
    else if (!no_plan.empty())
        plan["abort"] = no_plan;
    return plan;
}

/// Hello and the plan. False when this rank's run ends here.
bool start(Ring& x) {
    x.self.rank = x.ranks.me();
    x.self.host = x.o.host.empty() ? host_name() : x.o.host;
    x.self.port = x.o.port;
    choose_device(x.comm.local_rank(), x.o.device, x.o.devices, x.self);
    if (x.root() && x.o.coordinator_only) {
        // Rank 0 of agents: plans and collects, in no edge.
        x.self.coordinator = true;
        x.self.device.clear();
        x.self.port = 0;
    } else if (x.self.error.empty()) {
        x.dev = open_rank_device(x.open, x.self);
        if (x.dev) learn_port(*x.dev, endpoint_config(x.o.spec, x.o.peer), x.self, false);
    }
    const Millis start_wait = x.o.step_timeout * 3;
    x.ranks.hello(x.self, x.t0 + start_wait, start_wait);
    const Millis plan_wait = start_wait * 2 + x.o.plan_extra;
    bool aborted = false;
    auto plan = x.ranks.plan(x.root() ? plan_on_root(x) : json(), x.t0 + plan_wait, plan_wait,
                             x.known, x.out, &aborted);
    if (aborted) {
        x.d.status = "aborted";
        x.progress();
    }
    if (!plan) return false;
    auto read = [&](const json& p) {
        const auto orders = plan_ring_orders(p, x.known.size());
        x.sizes = p.at("sizes").get<std::vector<uint64_t>>();
        x.iterations = p.at("iterations").get<uint32_t>();
        x.warmup = p.at("warmup").get<uint32_t>();
        x.timeout = Millis(p.at("timeout_ms").get<int64_t>());
        if (x.sizes.empty()) throw std::out_of_range("no message size");
        for (const std::vector<int>& order : orders) {
            auto at = std::find(order.begin(), order.end(), x.ranks.me());
            if (at == order.end()) continue;
            x.order = order;
            x.pos = static_cast<int>(at - order.begin());
        }
    };
    if (!x.ranks.take_plan(*plan, read, x.self, x.out)) return false;
    if (x.root()) x.progress();
    return true;
}

/// Rank 0: a rank's report of the connect step.
void absorb_connect(Ring& x, int r, const json& j) {
    for (const char* side : {"next", "prev"}) {
        const std::string why = j.value(side, "");
        if (why.empty()) continue;
        x.d.findings.push_back({"connect-failed", r, 0,
                                fmt::format("{} could not connect to the {} rank in the ring: {}",
                                            who(x.d.ranks, r), side, why)});
    }
}

/// One step of the ranks' protocol: rank 0 answers stop when the run is
/// interrupted or `broken` says the ring cannot go on.
bool step(Ring& x, size_t number, const std::string& where, const json& report,
          MeshDeadline report_by, MeshDeadline go_by,
          const std::function<void(int, const json&)>& absorb,
          const std::function<bool()>& broken) {
    RankRun::Step s;
    s.number = number;
    s.round = 0;
    s.where = where;
    s.report_by = report_by;
    s.go_by = go_by;
    s.go_waited = std::chrono::duration_cast<Millis>(go_by - MeshClock::now());
    const auto began = MeshClock::now();
    s.give_up = [&](const MeshComm::Messages&) {
        return x.stop.stop_requested() && MeshClock::now() > began + x.o.step_timeout;
    };
    auto go = x.ranks.step(
        s, report, absorb,
        [&](json& g) {
            // A rank gone before the ring (not in it) does not end it; one of
            // the ring's own leaves its edges unmeasured, which `broken` sees.
            const bool ring_broken = broken && broken();
            x.d.wall_seconds = x.elapsed();
            x.progress();
            g["stop"] = x.stop.stop_requested() || ring_broken;
        },
        x.out);
    if (!go) return false;
    x.stopping = go->value("stop", false) || (!x.root() && x.stop.stop_requested());
    return true;
}

/// Each rank pairs with the next rank (its sending endpoint) and with the
/// previous (its receiving one), colour by colour; posts its receives.
bool connect(Ring& x) {
    const auto started = MeshClock::now();
    json report = json::object();
    if (x.pos >= 0 && x.dev) {
        const size_t n = x.n();
        const auto send_edge = static_cast<size_t>(x.pos);
        const size_t recv_edge = (send_edge + n - 1) % n;
        for (int c = 0; c < 3; ++c) {
            const PairUpTags tags{x.ranks.step_tag(static_cast<size_t>(c), 2),
                                  x.ranks.step_tag(static_cast<size_t>(c), 3)};
            const auto by = MeshClock::now() + x.o.step_timeout;
            if (edge_colour(send_edge, n) == c) {
                PairUp up = pair_up(x.comm, *x.dev, ring_config(x, send_edge), x.known,
                                    x.next_rank(), tags, by, x.o.step_timeout);
                x.to_next = std::move(up.ep);
                x.next_info = up.remote;
                if (!up.error.empty()) report["next"] = up.error;
            }
            if (edge_colour(recv_edge, n) == c) {
                PairUp up = pair_up(x.comm, *x.dev, ring_config(x, recv_edge), x.known,
                                    x.prev_rank(), tags, by, x.o.step_timeout);
                x.from_prev = std::move(up.ep);
                if (!up.error.empty()) report["prev"] = up.error;
            }
        }
        const uint32_t receives = std::min(kRingReceives, x.dev->limits().max_qp_wr);
        if (x.from_prev && !x.from_prev->post_receives(receives, 1))
            report["prev"] = "posting the receives for the previous rank's steps failed";
    } else if (x.pos >= 0) {
        report["next"] = report["prev"] = "no device";
    }
    const auto by = started + x.o.step_timeout * 4;
    bool failed = false;
    return step(
        x, 0, "the ring's connect step", report, by, by + x.o.step_timeout,
        [&](int r, const json& j) {
            absorb_connect(x, r, j);
            failed = failed || j.contains("next") || j.contains("prev");
        },
        [&] { return failed; });
}

/// This rank's all-reduces of one size, as it reports them.
json my_size(Ring& x, size_t k) {
    const uint64_t bytes = x.sizes[k];
    RingSteps s{.chunk = ring_chunk(bytes, x.n()),
                .steps = ring_steps(x.n()),
                .iterations = x.iterations,
                .warmup = x.warmup,
                .stall = x.o.step_timeout};
    const auto deadline = MeshClock::now() + x.timeout;
    auto keep_going = [&]() -> std::string {
        if (x.stop.stop_requested()) return "interrupted";
        if (MeshClock::now() <= deadline) return "";
        return fmt::format(
            "the all-reduces of {} took longer than {} (--ring-timeout; or fewer --iters)",
            format_size(bytes), format_duration(x.timeout));
    };
    RingOutcome r = x.to_next->run_ring(*x.from_prev, s, keep_going);
    json j = {{"size", k}, {"error", r.error}};
    if (!r.error.empty() || r.iteration_us.empty()) return j;
    const LatencyStats it = latency_stats(r.iteration_us);
    const LatencyStats edge = latency_stats(r.edge_us);
    j["iteration_us"] = it.mean_us;
    j["edge"] = {{"steps", edge.samples},
                 {"mean_us", edge.mean_us},
                 {"median_us", edge.median_us},
                 {"max_us", edge.max_us}};
    return j;
}

/// Rank 0: the ring rank `r` is in and the edge it sends on; nullptr for a
/// rank in none (rank 0 of agents).
RingResult* ring_at(Ring& x, int r, size_t* edge) {
    if (r < 0 || static_cast<size_t>(r) >= x.place.size() ||
        x.place[static_cast<size_t>(r)].first < 0)
        return nullptr;
    const auto [ring, e] = x.place[static_cast<size_t>(r)];
    *edge = static_cast<size_t>(e);
    return &x.d.rings[static_cast<size_t>(ring)];
}

/// Rank 0: one rank's report of size k.
void absorb_size(Ring& x, size_t k, int r, const json& j) {
    size_t at = 0;
    RingResult* ring = ring_at(x, r, &at);
    if (!ring) return;
    RingSize& s = ring->sizes[k];
    const std::string error = j.value("error", "");
    if (j.contains("path")) x.paths[r] = j["path"];
    RingEdge& e = s.edges.at(at);
    e.error = error;
    if (error.empty() && j.contains("edge")) {
        const json& edge = j["edge"];
        e.steps = edge.value("steps", uint64_t{0});
        e.mean_us = edge.value("mean_us", 0.0);
        e.median_us = edge.value("median_us", 0.0);
        e.max_us = edge.value("max_us", 0.0);
        e.gbps = e.mean_us > 0 ? s.chunk * 8.0 / e.mean_us / 1e3 : 0;
    }
    if (!error.empty() && error != "interrupted") {
        x.d.findings.push_back({"ring-failed", r, 0,
                                fmt::format("{}'s all-reduces of {} failed: {}", who(x.d.ranks, r),
                                            format_size(s.bytes), error)});
    }
    s.time_us = std::max(s.time_us, j.value("iteration_us", 0.0));
}

/// Rank 0, once every rank reported size k: whether every ring's ran, and
/// the bandwidths.
bool settle_size(Ring& x, size_t k) {
    bool all = true;
    for (RingResult& ring : x.d.rings) {
        RingSize& s = ring.sizes[k];
        s.measured = s.time_us > 0 &&
                     std::all_of(s.edges.begin(), s.edges.end(),
                                 [](const RingEdge& e) { return e.error.empty() && e.steps > 0; });
        if (s.measured) {
            s.algbw_gbs = static_cast<double>(s.bytes) / s.time_us / 1e3;
            s.busbw_gbs = s.algbw_gbs * bus_factor(ring.order.size());
        }
        all = all && s.measured;
    }
    return all;
}

/// This rank's device's counters over the ring, as a mesh run's ends report
/// theirs: as the sender of its edge ("tx") and the receiver of the previous
/// ("rx"). One device carries both edges, so both say the same.
json counted_json(const Ring& x) {
    const json c = {
        {"counters", counters_json(counter_deltas(x.counted_before, x.dev->read_counters()))},
        {"seconds", std::chrono::duration<double>(MeshClock::now() - x.counted_from).count()},
        {"device", fmt::format("{}/{}", x.dev->name(), x.dev->port())}};
    return {{"tx", c}, {"rx", c}};
}

/// The all-reduces, size by size; after the last, each sender traces its
/// edge, and every rank reports its device's counters over the ring.
bool run_sizes(Ring& x) {
    if (x.to_next && x.from_prev) {
        x.counted_before = x.dev->read_counters();
        x.counted_from = MeshClock::now();
    }
    for (size_t k = 0; k < x.sizes.size() && !x.stopping; ++k) {
        json report = {{"size", k}};
        const bool in_ring = x.to_next && x.from_prev;
        if (in_ring) report = my_size(x, k);
        const bool last = k + 1 == x.sizes.size();
        if (last && in_ring) report.update(counted_json(x));
        if (last && x.to_next && x.o.trace_flow && !x.stop.stop_requested() &&
            report.value("error", "").empty())
            report["path"] = x.o.trace_flow(x.to_next->info(), x.next_info);
        // A rank in no edge (rank 0 of agents) waits out the others' ring.
        const auto now = MeshClock::now() + (in_ring ? Millis(0) : x.timeout);
        bool ran = true;
        if (!step(
                x, kFirstSizeStep + k,
                fmt::format("the all-reduces of {}", format_size(x.sizes[k])), report,
                now + x.o.step_timeout * 2, now + x.o.step_timeout * 4,
                [&](int r, const json& j) {
                    absorb_size(x, k, r, j);
                    if (last) x.collect.absorb(0, r, j);
                },
                [&] {
                    if (last) x.collect.detect(0);
                    return !(ran = settle_size(x, k));
                }))
            return false;
        if (x.root() && ran) x.d.rounds_done = 1;
    }
    return true;
}

/// Rank 0: edges below `slow_ratio` of the median edge at the verdict size
/// are a finding, with what they cost the ring.
void note_slow_edges(MeshRunData& d, const RingResult& ring, const RingSize& at,
                     double slow_ratio) {
    const RingCost c = ring_cost(at, ring.order.size(), slow_ratio);
    if (!c.found || !(c.gbps < slow_ratio * c.median_gbps)) return;
    const RingEdge& e = at.edges[c.edge];
    d.findings.push_back(
        {"ring-slow-edge", e.src, 0,
         fmt::format("{} -> {}{} below {:.2f} of the median edge ({:.3g} Gb/s against {:.3g}): "
                     "{} lost {:.0f} % of its bus bandwidth at {} to {}",
                     who(d.ranks, e.src), who(d.ranks, e.dst),
                     c.slow.size() > 1 ? fmt::format(" and {} more edge(s)", c.slow.size() - 1)
                                       : std::string(),
                     slow_ratio, c.gbps, c.median_gbps, ring_name(d.rings, ring), c.share * 100,
                     format_size(at.bytes), c.slow.size() > 1 ? "them" : "it")});
}

/// Rank 0: the edges as flows at the largest size measured, and the status.
void finish(Ring& x) {
    MeshRunData& d = x.d;
    for (size_t i = 0; i < d.flows.size(); ++i) {
        MeshFlow& f = d.flows[i];
        if (auto p = x.paths.find(f.src); p != x.paths.end()) f.path = p->second;
        size_t e = 0;
        const RingResult* ring = ring_at(x, f.src, &e);
        const RingSize* at = ring ? ring_verdict_size(*ring) : nullptr;
        if (!at || e >= at->edges.size()) {
            f.error =
                d.ranks[static_cast<size_t>(f.src)].gone || d.ranks[static_cast<size_t>(f.dst)].gone
                    ? "not run: a rank of the ring was gone"
                : x.stopping ? "not run: the run was interrupted"
                             : "not run: the ring did not complete a size";
            continue;
        }
        const RingEdge& edge = at->edges[e];
        f.measured = f.ok = true;
        f.avg_gbps = f.peak_gbps = f.min_window_gbps = edge.gbps;
        f.bytes = static_cast<uint64_t>(at->chunk) * edge.steps;
        f.seconds = edge.mean_us * static_cast<double>(edge.steps) / 1e6;
    }
    for (const RingResult& ring : d.rings)
        if (const RingSize* at = ring_verdict_size(ring))
            note_slow_edges(d, ring, *at, x.o.slow_ratio);
    read_switch_counters_after(d, x.o.read_switch_counters, x.stop.stop_requested());
    d.status = x.stopping && x.stop.stop_requested() ? "interrupted" : "complete";
    d.wall_seconds = x.elapsed();
    x.progress();
}

}  // namespace

MeshRunOutcome run_ring(MeshComm& comm, const OpenDevice& open, const MeshRunOptions& o,
                        const StopToken& stop) {
    Ring x(comm, open, o, stop);
    try {
        if (!start(x) || !connect(x)) return std::move(x.out);
        if (!x.stopping && !run_sizes(x)) return std::move(x.out);
    } catch (const std::exception& e) {
        x.out.error = fmt::format("internal error: {}", e.what());
        return std::move(x.out);
    }
    if (x.root()) finish(x);
    if (!x.root() && x.stopping && stop.stop_requested()) x.out.error = "interrupted";
    return std::move(x.out);
}

}  // namespace fabscope::perf
