// The round logic of `mesh run` (mesh/run) on RoCE, in the threads of
// mesh_world.h: a slow host, traced paths, a rank that dies and an interrupt.
// The real launcher and NICs are tested in the VM lab
// (tests/lab/mesh_vm_test.cpp).

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "fake_mesh_comm.h"
#include "fake_traces.h"
#include "mesh/cover_traces.h"
#include "mesh/plan.h"
#include "mesh/report.h"
#include "mesh/run.h"
#include "mesh_world.h"
#include "model/paths.h"
#include "ranks/launcher.h"
#include "schema_check.h"

namespace fabscope::perf {
namespace {

using namespace std::chrono_literals;
using fake::Died;
using fake::FakeComm;
using fake::PostOffice;
using mesh_test::Rate;
using mesh_test::World;

size_t measured(const MeshRunData& d) {
    size_t n = 0;
    for (const MeshFlow& f : d.flows) n += f.measured && f.ok;
    return n;
}

TEST(MeshRun, AllPairsMeasuresEveryFlowBothWays) {
    World w;
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.rounds.size(), 5u);
    EXPECT_EQ(d.rounds_done, 5u);
    ASSERT_EQ(d.flows.size(), 30u);
    EXPECT_EQ(measured(d), 30u);
    std::set<std::pair<int, int>> directions;
    for (const MeshFlow& f : d.flows) directions.insert({f.src, f.dst});
    EXPECT_EQ(directions.size(), 30u);
    EXPECT_TRUE(d.findings.empty());
    auto a = analyse_mesh(d, 0.6);
    EXPECT_TRUE(a.suspects.empty());
    for (int r = 1; r < w.size; ++r) EXPECT_EQ(w.outcomes[r].error, "") << r;
}

TEST(MeshRun, EachFlowCarriesBothEndsCountersAndTheCongestionTheyShow) {
    World w;
    w.lossy = {3};
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(measured(d), 30u);
    size_t with_loss = 0;
    for (const MeshFlow& f : d.flows) {
        // Both ends said what moved: the sender's and the receiver's counters.
        const nlohmann::json counters = f.counters.unpack();
        ASSERT_TRUE(counters.contains("local")) << f.src << "->" << f.dst;
        ASSERT_TRUE(counters.contains("remote")) << f.src << "->" << f.dst;
        EXPECT_EQ(d.devices.name(f.src_device), fmt::format("fake{}/1", f.src));
        EXPECT_EQ(d.devices.name(f.dst_device), fmt::format("fake{}/1", f.dst));
        EXPECT_GT(f.counted_s, 0);
        const bool touches = f.src == 3 || f.dst == 3;
        if (!touches) {
            EXPECT_TRUE(f.congestion.empty()) << f.src << "->" << f.dst;
            EXPECT_TRUE(counters["local"].empty());  // nothing moved
            continue;
        }
        ++with_loss;
        ASSERT_EQ(f.congestion.size(), 1u) << f.src << "->" << f.dst;
        EXPECT_EQ(f.congestion[0].kind, "loss_on_lossless_class");
        EXPECT_EQ(f.congestion[0].evidence["host"], d.ranks[3].host);
        EXPECT_EQ(counters[f.src == 3 ? "local" : "remote"]["completer_retry_err"], 50);
    }
    EXPECT_EQ(with_loss, 10u);  // rank 3 sends to 5 and receives from 5
    size_t congestion = 0;
    for (const MeshFinding& x : d.findings) {
        ASSERT_EQ(x.kind, "congestion") << x.message;
        EXPECT_EQ(x.rank, 3) << x.message;
        ++congestion;
    }
    EXPECT_EQ(congestion, 10u);
    // Loss counts against the flows' paths whatever their bandwidth (all
    // flows here are as fast): rank 3's NIC is the suspect, both ways.
    auto a = analyse_mesh(d, 0.6);
    for (size_t i = 0; i < d.flows.size(); ++i) {
        const bool touches = d.flows[i].src == 3 || d.flows[i].dst == 3;
        EXPECT_EQ(a.lossy[i] != 0, touches) << i;
        EXPECT_EQ(a.slow[i] != 0, touches) << i;
        EXPECT_NEAR(a.ratio[i], 1.0, 1e-9) << i;
    }
    ASSERT_FALSE(a.suspects.empty());
    for (const EndpointSide& side : a.suspects.front().sides) EXPECT_EQ(side.rank, 3);
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["flows"][0]["counters"].size(), 2u);
}

TEST(MeshRun, AHostThatReceivesSlowlyIsTheTopSuspect) {
    World w;
    w.rate = [](int, int dst) { return dst == 2 ? 0.3 : 1.0; };
    w.run();
    auto a = analyse_mesh(w.data(), 0.6);
    ASSERT_FALSE(a.suspects.empty());
    const EndpointSuspect& top = a.suspects.front();
    ASSERT_EQ(top.sides.size(), 1u);
    EXPECT_EQ(top.sides[0].rank, 2);
    EXPECT_FALSE(top.sides[0].sending);
    EXPECT_EQ(top.slow_flows, 5u);
    EXPECT_EQ(a.suspects.size(), 1u);
    auto lines = mesh_run_summary(w.data(), a);
    EXPECT_EQ(lines.front().find("suspect: "), 0u) << lines.front();
    EXPECT_NE(lines.front().find("(receiving)"), std::string::npos) << lines.front();
}

TEST(MeshRun, EachSenderTracesItsFlowAndRankZeroNamesTheCable) {
    // Three leaves of three ranks, two spines: a flow takes spine
    // (src + dst) % 2 + 1; the cable l1 <-> s2 is slow both ways.
    World w;
    w.size = 9;
    auto leaf = [](int r) { return r / 3 + 1; };
    auto spine = [](int s, int t) { return (s + t) % 2 + 1; };
    w.rate = [&](int s, int t) {
        bool through = leaf(s) != leaf(t) && spine(s, t) == 2 && (leaf(s) == 1 || leaf(t) == 1);
        return through ? 0.2 : 1.0;
    };
    std::atomic<int> traced{0};
    w.options.trace_flow = [&](const EndpointInfo& local,
                               const EndpointInfo& remote) -> nlohmann::json {
        ++traced;
        int s = local.lid;
        int t = remote.lid;
        if (leaf(s) == leaf(t)) return nullptr;  // no router between
        int sp = spine(s, t);
        FlowTrace tr;
        tr.sport = 49152;
        tr.end = "silent";
        tr.hops = {{1, fmt::format("10.{}.0.254", leaf(s)), fmt::format("l{}", leaf(s)), 0.1},
                   {2, fmt::format("10.9.{}{}.1", leaf(s), sp), fmt::format("s{}", sp), 0.2},
                   {3, fmt::format("10.9.{}{}.0", leaf(t), sp), fmt::format("l{}", leaf(t)), 0.3}};
        nlohmann::json j = flow_trace_to_json(tr);
        j["source"] = fmt::format("10.{}.0.{}", leaf(s), s % 3 + 1);
        j["destination"] = fmt::format("10.{}.0.{}", leaf(t), t % 3 + 1);
        j["port_from"] = "rxe";
        return j;
    };
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(traced.load(), 72);  // every flow, by its sender
    size_t with_path = 0;
    for (const MeshFlow& f : d.flows) with_path += f.path.unpack().is_object();
    EXPECT_EQ(with_path, 54u);
    auto a = analyse_mesh(d, 0.6);
    ASSERT_FALSE(a.links.cables.empty());
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]");
    EXPECT_TRUE(a.suspects.empty());
    auto lines = mesh_run_summary(d, a);
    EXPECT_EQ(lines.front().rfind("suspect: cable l1[10.9.12.0] <-> s2[10.9.12.1]", 0), 0u)
        << lines.front();
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
}

/// Three leaves of three ranks (10.0.0.rank+1), two spines; the spine of a
/// flow is chosen by its UDP source port alone (bit 11), so only the port,
/// the flow label, steers it. The cable l1 <-> s2 is slow both ways.
struct SteeredFabric {
    static int leaf(int r) { return r / 3 + 1; }
    static int spine(uint16_t sport) { return ((sport >> 11) & 1) + 1; }
    static int rank_of(const std::string& address) {
        return std::stoi(address.substr(address.rfind('.') + 1)) - 1;
    }
    static std::vector<TraceHop> hops(int s, int t, int sp) {
        return {{1, fmt::format("10.{}.0.254", leaf(s)), fmt::format("l{}", leaf(s)), 0.1},
                {2, fmt::format("10.9.{}{}.1", leaf(s), sp), fmt::format("s{}", sp), 0.2},
                {3, fmt::format("10.9.{}{}.0", leaf(t), sp), fmt::format("l{}", leaf(t)), 0.3}};
    }
    static bool slow(int s, int t, uint32_t label) {
        int sp = spine(sport_for_flow_label(label));
        return leaf(s) != leaf(t) && sp == 2 && (leaf(s) == 1 || leaf(t) == 1);
    }
    std::atomic<int> traced{0};
    void wire(World& w) {
        w.size = 9;
        w.options.pattern = "cover";
        w.steered = [](int s, int t, uint32_t label) { return slow(s, t, label) ? 0.2 : 1.0; };
        w.options.trace_sports = [this](const std::string& src, const std::string& dst,
                                        const std::vector<uint16_t>& sports) {
            ++traced;
            std::vector<FlowTrace> out;
            int s = rank_of(src);
            int t = rank_of(dst);
            if (leaf(s) == leaf(t)) return out;
            for (uint16_t p : sports) out.push_back({p, hops(s, t, spine(p)), "silent", ""});
            return out;
        };
        w.options.trace_flow = [](const EndpointInfo& local,
                                  const EndpointInfo& remote) -> nlohmann::json {
            if (leaf(local.lid) == leaf(remote.lid)) return nullptr;
            uint16_t sport = sport_for_flow_label(local.flow_label);
            FlowTrace tr{sport, hops(local.lid, remote.lid, spine(sport)), "silent", ""};
            nlohmann::json j = flow_trace_to_json(tr);
            j["source"] = "10.0.0.1";
            j["destination"] = "10.0.0.2";
            j["port_from"] = "rxe";
            return j;
        };
    }
};

TEST(MeshRun, CoverIsPlannedFromTracesSteeredByFlowLabelAndNamesTheCable) {
    World w;
    SteeredFabric fabric;
    fabric.wire(w);
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "cover");
    EXPECT_EQ(fabric.traced.load(), 9 * 8);  // every rank to every other
    EXPECT_EQ(d.sports.size(), 8u);
    ASSERT_GT(d.planned_rounds, 0u);
    EXPECT_LE(d.planned_rounds, 4u);
    // Every flow went where its label was to send it.
    for (const MeshFlow& f : d.flows) {
        if (!f.measured || !f.path.unpack().is_object()) continue;
        const MeshPair* p = nullptr;
        for (const MeshPair& q : d.rounds[f.round]) {
            if ((q.a == f.src && q.b == f.dst) || (q.b == f.src && q.a == f.dst)) p = &q;
        }
        ASSERT_NE(p, nullptr);
        uint32_t label = p->a == f.src ? p->label_ab : p->label_ba;
        EXPECT_NE(label, 0u);
        EXPECT_EQ(f.path.unpack()["sport"], sport_for_flow_label(label));
    }
    auto a = analyse_mesh(d, 0.6);
    EXPECT_EQ(a.links.coverage.lanes, 12u);
    EXPECT_EQ(a.links.coverage.crossed, 12u);
    ASSERT_FALSE(a.links.cables.empty()) << mesh_run_summary(d, a).front();
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]");
    EXPECT_EQ(a.links.cables[0].directions.size(), 2u);
    EXPECT_LT(d.rounds.size(), 9u);  // fewer than all-pairs' 9
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["pattern"], "cover");
}

TEST(MeshRun, ACoverFromASampleOfTracesPairsOnlyTheTracedRanksAndNamesTheCable) {
    World w;
    SteeredFabric fabric;
    fabric.wire(w);
    w.options.trace_targets = 4;  // of 8 others: +-1 and +-3
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(fabric.traced.load(), 9 * 4);
    EXPECT_EQ(d.traces_left_out, 0u);
    ASSERT_GT(d.planned_rounds, 0u);
    // Every planned pair was traced both ways.
    for (size_t r = 0; r < d.planned_rounds; ++r) {
        for (const MeshPair& p : d.rounds[r]) {
            const int off = ((p.b - p.a) % 9 + 9) % 9;
            EXPECT_TRUE(off == 1 || off == 8 || off == 3 || off == 6) << p.a << "-" << p.b;
        }
    }
    auto a = analyse_mesh(d, 0.6);
    EXPECT_EQ(a.links.coverage.crossed, a.links.coverage.lanes);
    ASSERT_FALSE(a.links.cables.empty()) << mesh_run_summary(d, a).front();
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]");
}

TEST(MeshRun, PairsFromAFileRunByHostNameAndAHostWithoutARankIsAFinding) {
    World w;
    w.hosts = {"h0", "h1", "h2", "h3", "h4", "h5"};
    w.options.pattern = "pairs";
    w.options.pairs_from = "again.txt";
    w.options.pairs = {{"h0", "h1", 1},
                       {"h2", "h3", 2},
                       {"h0", "h2", 3},
                       {"h1", "h0", 4},  // the first pair again, the other way
                       {"h4", "h9", 6}};
    w.rate = [](int s, int t) { return (s == 2 && t == 3) ? 0.2 : 1.0; };
    w.run();
    const MeshRunData& d = w.data();
    ASSERT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "pairs");
    // h0-h1 and h2-h3 at once, then h0-h2: each rank in one pair a round.
    ASSERT_EQ(d.rounds.size(), 2u);
    EXPECT_EQ(d.rounds[0].size(), 2u);
    EXPECT_EQ(d.rounds[1].size(), 1u);
    EXPECT_EQ(measured(d), 6u);
    const auto f = std::find_if(d.findings.begin(), d.findings.end(),
                                [](const MeshFinding& x) { return x.kind == "pair-not-run"; });
    ASSERT_NE(f, d.findings.end());
    EXPECT_EQ(f->message, "again.txt:6: h4 h9 is not tested: no rank that can test runs on h9");
    auto a = analyse_mesh(d, 0.6);
    nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["pattern"], "pairs");

    // No pair can run: every rank is told, and nothing is measured.
    World none;
    none.hosts = w.hosts;
    none.options.pattern = "pairs";
    none.options.pairs_from = "again.txt";
    none.options.pairs = {{"h7", "h8", 1}};
    none.run();
    EXPECT_EQ(none.data().status, "aborted");
    EXPECT_NE(none.outcomes[3].error.find("no pair of again.txt can run"), std::string::npos)
        << none.outcomes[3].error;
}

TEST(MeshRun, CoverWithoutRoutersBetweenTheRanksTestsAllPairs) {
    World w;
    w.options.pattern = "cover";
    w.options.trace_sports = [](const std::string&, const std::string&,
                                const std::vector<uint16_t>&) { return std::vector<FlowTrace>{}; };
    w.run();
    EXPECT_EQ(w.data().pattern, "all-pairs");
    EXPECT_EQ(w.data().rounds.size(), 5u);
    EXPECT_EQ(measured(w.data()), 30u);
}

TEST(MeshRun, ARankThatDiesIsAFindingAndTheRunEndsWithoutIt) {
    World w;
    w.die_after[4] = 3;  // the plan and both steps of round 1
    w.run();
    ASSERT_TRUE(w.died[4]);
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.rounds_done, 5u);
    ASSERT_EQ(d.findings.size(), 1u);
    EXPECT_EQ(d.findings[0].kind, "rank-gone");
    EXPECT_EQ(d.findings[0].rank, 4);
    EXPECT_EQ(d.findings[0].round, 1);
    EXPECT_TRUE(d.ranks[4].gone);
    // Every flow without rank 4 was measured; those with it after round 1 were not, and say why.
    for (const MeshFlow& f : d.flows) {
        bool with4 = f.src == 4 || f.dst == 4;
        if (!with4 || f.round == 0) {
            EXPECT_TRUE(f.measured && f.ok) << f.src << "->" << f.dst << " " << f.error;
        } else {
            EXPECT_FALSE(f.measured);
            EXPECT_FALSE(f.error.empty());
        }
    }
    // Its partner vouched that it was gone: one step timeout, not a whole step budget.
    EXPECT_LT(w.seconds, 3.0);
    EXPECT_TRUE(w.outcomes[0].peers_gone);
    auto a = analyse_mesh(d, 0.6);
    EXPECT_TRUE(a.suspects.empty());
}

TEST(MeshRun, InterruptOnRankZeroStopsEveryRankAndKeepsWhatWasMeasured) {
    World w;
    w.stop_root_after_round = 2;
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "interrupted");
    EXPECT_EQ(d.rounds_done, 2u);
    EXPECT_EQ(measured(d), 12u);
    for (const MeshFlow& f : d.flows) {
        if (!f.measured) {
            EXPECT_EQ(f.error, "not run: the run was interrupted");
        }
    }
    for (int r = 1; r < w.size; ++r) EXPECT_EQ(w.outcomes[r].error, "") << r;
}

TEST(MeshRun, RanksWithoutADeviceAreLeftOutAndNamed) {
    World w;
    w.size = 5;
    w.no_device = {3};
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    ASSERT_EQ(d.findings.size(), 1u);
    EXPECT_EQ(d.findings[0].kind, "rank-unavailable");
    EXPECT_NE(d.findings[0].message.find("no RDMA device found"), std::string::npos);
    EXPECT_EQ(d.rounds.size(), 3u);  // four ranks left
    for (const MeshFlow& f : d.flows) EXPECT_TRUE(f.src != 3 && f.dst != 3);
    EXPECT_EQ(measured(d), 12u);
    EXPECT_EQ(w.outcomes[3].error, "no RDMA device found");
}

TEST(MeshRun, EachPlaneTestsWithinItself) {
    World w;
    w.size = 8;
    w.per_host = 2;
    w.options.devices = {"mlx5_0", "mlx5_1"};
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.rounds.size(), 3u);  // four hosts per plane
    for (const MeshFlow& f : d.flows) EXPECT_EQ(f.src % 2, f.dst % 2);
    EXPECT_EQ(measured(d), 24u);
    EXPECT_EQ(d.ranks[1].plane, 1);
}

TEST(MeshRun, TooFewRanksToTestAbortsEveryRank) {
    World w;
    w.size = 3;
    w.no_device = {1, 2};
    w.run();
    EXPECT_EQ(w.data().status, "aborted");
    for (int r = 0; r < w.size; ++r) EXPECT_NE(w.outcomes[r].error, "") << r;
}

TEST(MeshRun, ReportMatchesItsSchemaAndRefusesWhatItDoesNotDescribe) {
    World w;
    w.rate = [](int src, int) { return src == 1 ? 0.2 : 1.0; };
    w.die_after[5] = 5;
    w.run();
    auto a = analyse_mesh(w.data(), 0.6);
    nlohmann::json doc = mesh_run_json(w.data(), a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["suspects"][0]["endpoints"][0]["rank"], 1);
    EXPECT_EQ(doc["suspects"][0]["endpoints"][0]["direction"], "send");
    nlohmann::json bad = doc;
    bad["flows"][0]["surprise"] = 1;
    EXPECT_FALSE(testing::schema_errors(bad, "mesh-run.schema.json").empty());
}

TEST(MeshRun, PlanRoundsPairEachRankOncePerRound) {
    std::vector<MeshRank> ranks;
    ranks.reserve(7);
    for (int r = 0; r < 7; ++r) ranks.push_back({.rank = r, .host = fmt::format("h{}", r)});
    auto rounds = plan_all_pairs(ranks);
    EXPECT_EQ(rounds.size(), 7u);  // odd: a bye per round
    std::set<std::pair<int, int>> pairs;
    for (const auto& round : rounds) {
        std::set<int> seen;
        for (const MeshPair& p : round) {
            EXPECT_TRUE(seen.insert(p.a).second);
            EXPECT_TRUE(seen.insert(p.b).second);
            pairs.insert({std::min(p.a, p.b), std::max(p.a, p.b)});
        }
    }
    EXPECT_EQ(pairs.size(), 21u);
}

TEST(MeshLauncher, ASlurmStepIsNamedAndNothingElseIsCopied) {
    auto env = [](std::map<std::string, std::string> vars) {
        return [vars = std::move(vars)](const char* name) -> const char* {
            auto it = vars.find(name);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
    };
    const std::string lib = "Open MPI v4.1.4";
    EXPECT_EQ(describe_launcher(lib, env({})), lib);  // mpirun, no Slurm
    EXPECT_EQ(describe_launcher(lib, env({{"SLURM_JOB_ID", "42"}, {"SLURM_STEP_ID", "0"}})),
              "Open MPI v4.1.4, Slurm job 42 step 0");
    // An allocation without a step (salloc, then mpirun by hand) says nothing.
    EXPECT_EQ(describe_launcher(lib, env({{"SLURM_JOB_ID", "42"}})), lib);
    // Nothing that is not a short word reaches the report.
    EXPECT_EQ(describe_launcher(lib, env({{"SLURM_JOB_ID", "42\n<b>"}, {"SLURM_STEP_ID", "0"}})),
              lib);
    EXPECT_EQ(describe_launcher(
                  lib, env({{"SLURM_JOB_ID", std::string(33, '1')}, {"SLURM_STEP_ID", "0"}})),
              lib);
    EXPECT_EQ(describe_launcher(lib, env({{"SLURM_JOB_ID", ""}, {"SLURM_STEP_ID", "0"}})), lib);
}

TEST(MeshSummary, FindingsAreCappedPerKindAndTheRestCounted) {
    // A bad cable under a big all-pairs run: thousands of flows whose ends
    // counted retransmissions, each a finding of the report.
    MeshRunData d;
    d.ranks.resize(2);
    for (int i = 0; i < 25; ++i)
        d.findings.push_back({"congestion", 0, i, fmt::format("flow {} counted loss", i)});
    d.findings.push_back({"rank-gone", 1, 3, "rank 1 went"});
    const auto lines = mesh_run_summary(d, analyse_mesh(d, 0.6));
    size_t congestion = 0;
    for (const std::string& l : lines) congestion += l.find("counted loss") != std::string::npos;
    EXPECT_EQ(congestion, kSummaryFindingsPerKind);
    EXPECT_NE(std::find(lines.begin(), lines.end(), "finding: rank 1 went"), lines.end());
    EXPECT_NE(std::find(lines.begin(), lines.end(),
                        "finding: and 15 more congestion findings (in the report)"),
              lines.end())
        << fmt::format("{}", fmt::join(lines, "\n"));
    // The report keeps them all.
    EXPECT_EQ(mesh_run_json(d, analyse_mesh(d, 0.6))["findings"].size(), 26u);
}

}  // namespace
}  // namespace fabscope::perf

namespace fabscope::perf {
namespace {

/// One rank's traces on a 2,048-rank RoCE cover fit one message: 64 ranks
/// traced (the default), 8 ports each, three routers a path with their
/// names. Asked to trace every rank, it stops at the size bound and says how
/// many it left out, instead of sending a line every peer would refuse.
TEST(CoverTraces, OneRanksTracesOn2048RanksFitOneMessageAndStopAtTheBound) {
    std::vector<MeshRank> ranks(2048);
    for (int r = 0; r < 2048; ++r) {
        ranks[static_cast<size_t>(r)].rank = r;
        ranks[static_cast<size_t>(r)].host = fmt::format("node{:04d}", r);
        ranks[static_cast<size_t>(r)].address = fmt::format("10.{}.{}.2", 1 + r / 32, r % 32);
    }
    MeshRunOptions o;
    size_t traced = 0;
    o.trace_sports = [&](const std::string&, const std::string& dst,
                         const std::vector<uint16_t>& sports) {
        ++traced;
        return fake::traces_over(
            sports,
            {{1, "10.200.1.1", "leaf-rack17-a.fabric.example.net", 0.051},
             {2, "10.201.9.1", "spine-row03-09.fabric.example.net", 0.083},
             {3, dst.substr(0, dst.rfind('.')) + ".1", "leaf-rack44-b.fabric.example.net", 0.112}});
    };
    const std::vector<uint16_t> sports = {49152, 49153, 49154, 49155, 49156, 49157, 49158, 49159};
    const std::string sampled = rank_traces_message(o, ranks, 5, sports, 64);
    EXPECT_EQ(traced, 64U);
    EXPECT_LT(sampled.size(), kMaxTraceBytes);
    EXPECT_EQ(sampled.front(), '[');  // nothing left out
    EXPECT_EQ(nlohmann::json::parse(sampled).size(), 64U * 8U);

    traced = 0;
    const std::string all = rank_traces_message(o, ranks, 5, sports, 0);
    const auto j = nlohmann::json::parse(all);
    ASSERT_TRUE(j.is_object()) << all.substr(0, 200);
    EXPECT_LE(all.size(), kMaxTraceBytes + 64);
    EXPECT_LT(kMaxTraceBytes + 64, kMaxMessage / 3 * 2);  // room for the relay's escaping
    const size_t kept = j["traces"].size() / 8;
    EXPECT_GT(kept, 64U);
    EXPECT_EQ(j["left_out"].get<size_t>() + kept, 2047U);
    EXPECT_EQ(traced, kept + 1);  // the one that did not fit was traced, then left out
}

}  // namespace
}  // namespace fabscope::perf
