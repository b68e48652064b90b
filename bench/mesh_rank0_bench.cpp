// bench/mesh_rank0_bench: what rank 0 (or the agents' coordinator) of a mesh
// run costs on a big fabric, stage by stage: planning (on InfiniBand from the
// snapshot's routes; on RoCE from the paths every rank traced first),
// collecting every rank's report of every round (the reports built
// in-process as the ranks' JSON, one per end of each flow, a RoCE flow's with
// its own traced path), the analysis, the adaptive rounds a cover adds, and
// the report (its JSON written out). Time and the process's peak memory
// after each stage; one size and pattern per process, so the peak is that
// run's (bench/mesh-rank0.sh runs the sizes side by side).
//
// Flows through two leaf-spine lanes chosen at random run at 0.4 of the
// others (±10 % noise), and their ends count retransmissions, so the
// analysis has suspects to find, as in a real run.
//
//   build/bench/mesh_rank0_bench HOSTS cover|all-pairs|roce-cover
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>
#include <set>
#include <streambuf>
#include <string>

#include "bench/peak_rss.h"
#include "bench/roce_cover_sim.h"
#include "mesh/collect.h"
#include "mesh/paths_ib.h"
#include "mesh/plan.h"
#include "mesh/report.h"
#include "model/paths.h"
#include "net/channel.h"
#include "ranks/rank.h"
#include "tests/unit/test_fabrics.h"
#include "trace/roce_sport.h"
#include "trace/roce_trace.h"

using namespace fabscope;
using namespace fabscope::perf;
using bench::peak_rss_mb;
using json = nlohmann::json;

namespace {

using BenchClock = std::chrono::steady_clock;

double seconds_since(BenchClock::time_point t0) {
    return std::chrono::duration<double>(BenchClock::now() - t0).count();
}

testing::LeafSpineShape shape_for(int hosts) {
    // 32 hosts a leaf, as the 2,048- and 4,096-host labs; spines as many as
    // the hosts a leaf has, up to 32.
    testing::LeafSpineShape s;
    s.hosts_per_leaf = hosts >= 64 ? 32 : hosts / 4;
    s.leaves = hosts / s.hosts_per_leaf;
    s.spines = std::min(32, std::max(2, s.leaves / 2));
    if (hosts >= 4096) s.host_guid_base = 0x100000;
    return s;
}

/// Every host's port as a rank that tests, as the hellos would give them.
std::vector<MeshRank> ranks_of(const Fabric& f) {
    std::vector<MeshRank> out;
    for (const MeshEndpoint& e : endpoints_from_fabric(f)) {
        MeshRank r;
        r.rank = static_cast<int>(out.size());
        r.host = e.name;
        r.device = "mlx5_0";
        r.port = 1;
        r.lid = e.lid;
        const Port* p = f.port(PortRef{e.node, e.port});
        r.port_guid = p ? p->guid : 0;
        out.push_back(std::move(r));
    }
    return out;
}

struct Simulation {
    std::set<Lane> bad;
    std::mt19937 rng{7};

    /// The two ends' reports of one flow, as my_part writes them.
    std::unique_ptr<bench::RoceCoverSim> roce;  ///< RoCE: the fabric, its bad lanes

    /// The two ends' reports of one flow at `rate` of the healthy rate
    /// (noise added), with its own traced path on RoCE.
    std::pair<json, json> reports(size_t round, double rate, json path = nullptr) {
        std::uniform_real_distribution<double> noise(0.9, 1.1);
        const double ratio = noise(rng) * rate;
        const double gbps = 24.0 * ratio;
        const bool slow = ratio < 0.6;
        json counters =
            slow ? json{{"duplicate_request", 30}, {"completer_retry_err", 3}} : json::object();
        json flow = {{"ok", true},
                     {"error", ""},
                     {"avg_gbps", gbps},
                     {"peak_gbps", gbps * 1.05},
                     {"min_window_gbps", gbps * 0.9},
                     {"bytes", static_cast<uint64_t>(gbps * 1.25e8)},
                     {"seconds", 1.0}};
        if (!path.is_null()) flow["path"] = std::move(path);
        json tx = {{"round", round},
                   {"flow", std::move(flow)},
                   {"tx", {{"counters", counters}, {"seconds", 1.0}, {"device", "mlx5_0/1"}}}};
        json rx = {{"round", round},
                   {"rx", {{"counters", counters}, {"seconds", 1.0}, {"device", "mlx5_0/1"}}}};
        return {std::move(tx), std::move(rx)};
    }
};

/// Rounds `first`.. as rank 0 collects them: both ends' reports of every
/// flow, then the detectors over the round.
void collect(MeshRunData& d, Simulation& sim, size_t first) {
    StepCollector c(d, RoceLimits{});
    const IbFlowRoutes routes(d);  // the simulation's, a flow at a time: not rank 0's memory
    size_t at = 0;
    for (size_t round = first; round < d.rounds.size(); ++round) {
        std::map<int, uint32_t> label;  // RoCE: each sender's flow label this round
        for (const MeshPair& p : d.rounds[round]) {
            label[p.a] = p.label_ab;
            label[p.b] = p.label_ba;
        }
        while (at < d.flows.size() && d.flows[at].round < round) ++at;
        for (; at < d.flows.size() && d.flows[at].round == round; ++at) {
            const MeshFlow& f = d.flows[at];
            double rate = 1.0;
            json path;
            if (sim.roce) {
                const uint16_t sport = sim.roce->sport_of(f.src, f.dst, label[f.src]);
                rate = sim.roce->rate(f.src, f.dst, sport);
                path =
                    flow_trace_to_json({sport, sim.roce->hops(f.src, f.dst, sport), "silent", ""});
            } else {
                for (Lane l : routes.path(f).lanes) rate *= sim.bad.count(l) ? 0.4 : 1.0;
            }
            auto [tx, rx] = sim.reports(round, rate, std::move(path));
            c.absorb(round, f.src, tx);
            c.absorb(round, f.dst, rx);
        }
        c.detect(round);
        d.rounds_done = round + 1;
    }
}

/// Counts what is written to it, and keeps nothing.
struct ByteCount : std::streambuf {
    size_t n = 0;
    int_type overflow(int_type c) override {
        if (c != traits_type::eof()) ++n;
        return c;
    }
    std::streamsize xsputn(const char*, std::streamsize k) override {
        n += static_cast<size_t>(k);
        return k;
    }
};

struct Stage {
    const char* name;
    double seconds;
    long peak_mb;
};

}  // namespace

namespace {

int run(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: mesh_rank0_bench HOSTS cover|all-pairs|roce-cover\n");
        return 2;
    }
    const int hosts = std::atoi(argv[1]);
    const std::string pattern = argv[2];
    const bool roce = pattern == "roce-cover";
    if (hosts < 64 || (pattern != "cover" && pattern != "all-pairs" && !roce)) {
        std::fprintf(stderr,
                     "mesh_rank0_bench: HOSTS at least 64, cover, all-pairs or roce-cover\n");
        return 2;
    }
    const testing::LeafSpineShape shape = shape_for(hosts);
    std::vector<Stage> stages;
    Simulation sim;
    auto t0 = BenchClock::now();
    MeshRunData d;
    if (roce) {
        // Every rank traces 8 ports to 64 others (mesh run's defaults).
        sim.roce = std::make_unique<bench::RoceCoverSim>(hosts, sim.rng);
        d.ranks = bench::RoceCoverSim::ranks(hosts);
        d.sports = spread_udp_sports(8);
        sim.roce->trace(d, 64);
        stages.push_back({"ranks and their traces", seconds_since(t0), peak_rss_mb()});
    } else {
        d.routes = std::make_shared<const Fabric>(testing::routed_leaf_spine(shape));
        d.routes_from = "bench";
        d.ranks = ranks_of(*d.routes);
        stages.push_back({"fabric and ranks", seconds_since(t0), peak_rss_mb()});
    }

    t0 = BenchClock::now();
    const std::string why = plan_run(d, {roce ? "cover" : pattern, 8, 1, {}, ""});
    if (!why.empty()) {
        std::fprintf(stderr, "mesh_rank0_bench: %s\n", why.c_str());
        return 1;
    }
    stages.push_back({"plan", seconds_since(t0), peak_rss_mb()});
    // The plan as rank 0 broadcasts it: through agents one message, which a
    // channel takes up to its line limit.
    json plan = {{"ranks", ranks_json(d.ranks)}};
    add_plan_rounds(d, plan);
    const size_t plan_bytes = plan.dump().size();

    if (!roce) {
        std::vector<Lane> lanes = fabric_lanes(*d.routes);
        std::shuffle(lanes.begin(), lanes.end(), sim.rng);
        sim.bad = {lanes[0], lanes[1]};
    }

    t0 = BenchClock::now();
    collect(d, sim, 0);
    stages.push_back({"collect the rounds", seconds_since(t0), peak_rss_mb()});

    t0 = BenchClock::now();
    MeshAnalysis a = analyse_mesh(d, 0.6);
    stages.push_back({"analyse", seconds_since(t0), peak_rss_mb()});

    size_t adaptive = 0;
    if (pattern != "all-pairs") {
        t0 = BenchClock::now();
        const size_t planned = d.rounds.size();
        for (size_t used = 0; used < 4;) {
            auto more = plan_separating(d, a, 4 - used);
            if (more.empty()) break;
            const size_t first = d.rounds.size();
            used += more.size();
            d.rounds.insert(d.rounds.end(), more.begin(), more.end());
            add_flows(d, first);
            collect(d, sim, first);
            a = analyse_mesh(d, 0.6);
        }
        adaptive = d.rounds.size() - planned;
        stages.push_back({"adaptive rounds, analysed again", seconds_since(t0), peak_rss_mb()});
    }

    t0 = BenchClock::now();
    d.status = "complete";
    // As `mesh run -o` writes it, a flow at a time, counted and let go (a
    // file's bytes are not rank 0's memory).
    ByteCount bytes;
    std::ostream sink(&bytes);
    write_mesh_run_json(sink, d, a);
    const std::vector<std::string> summary = mesh_run_summary(d, a);
    stages.push_back({"report (JSON and summary)", seconds_since(t0), peak_rss_mb()});

    // By name: the analysis numbers lanes its own way.
    std::set<std::string> named;
    for (const LinkSuspect& s : a.links.suspects)
        if (s.lanes.size() == 1) named.insert(s.name);
    size_t found = 0;
    if (roce) {
        for (const std::string& n : named) found += sim.roce->is_bad(n);
    } else {
        for (Lane l : sim.bad) found += named.count(describe_lane(*d.routes, l));
    }

    std::printf(
        "%d hosts (%dx%dx%d), %s: %zu traces, %zu rounds (%zu adaptive), %zu flows, "
        "report %.1f MB, %zu summary lines; %zu of 2 bad lanes named, %zu lanes named; "
        "the plan message %.0f KB (a channel's line limit %.0f KB)\n",
        hosts, roce ? sim.roce->spines() : shape.spines, roce ? sim.roce->leaves() : shape.leaves,
        shape.hosts_per_leaf, pattern.c_str(), d.traces.size(), d.rounds.size(), adaptive,
        d.flows.size(), static_cast<double>(bytes.n) / 1e6, summary.size(), found, named.size(),
        static_cast<double>(plan_bytes) / 1024, static_cast<double>(kMaxMessage) / 1024);
    double total = 0;
    for (const Stage& s : stages) {
        total += s.seconds;
        std::printf("  %-34s %8.2f s   peak %5ld MB\n", s.name, s.seconds, s.peak_mb);
    }
    std::printf("  %-34s %8.2f s   peak %5ld MB\n", "rank 0 in all", total, peak_rss_mb());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mesh_rank0_bench: %s\n", e.what());
        return 1;
    }
}
