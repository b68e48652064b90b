// A cover's adaptive rounds (mesh/cover), over a mesh run's data as
// rank 0 holds it: traced paths of every pair, flows measured or not.

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>

#include "mesh/plan.h"
#include "mesh/report.h"
#include "model/paths.h"

namespace fabscope::perf {
namespace {

/// Three leaves of three ranks (10.0.0.rank+1), two spines; variant v of
/// the traced source ports takes spine v+1.
struct ThreeLeaves {
    static int leaf(int r) { return r / 3 + 1; }
    static std::vector<TraceHop> hops(int s, int t, int sp) {
        return {{1, fmt::format("10.{}.0.254", leaf(s)), fmt::format("l{}", leaf(s)), 0.1},
                {2, fmt::format("10.9.{}{}.1", leaf(s), sp), fmt::format("s{}", sp), 0.2},
                {3, fmt::format("10.9.{}{}.0", leaf(t), sp), fmt::format("l{}", leaf(t)), 0.3}};
    }

    MeshRunData d;

    ThreeLeaves() {
        d.pattern = "cover";
        d.sports = {49152, 49152 + 2048};
        for (int r = 0; r < 9; ++r) {
            d.ranks.push_back({.rank = r,
                               .host = fmt::format("h{}", r),
                               .device = "rxe0",
                               .port = 1,
                               .address = fmt::format("10.0.0.{}", r + 1)});
        }
        for (int s = 0; s < 9; ++s) {
            for (int t = 0; t < 9; ++t) {
                if (leaf(s) == leaf(t)) continue;
                for (int v = 0; v < 2; ++v) d.add_trace(s, t, v, hops(s, t, v + 1));
            }
        }
    }
    /// A flow measured at `gbps` (1: healthy) from s to t through spine `sp`.
    void measured(int s, int t, int sp, double gbps = 1.0, size_t round = 0) {
        MeshFlow f;
        f.round = round;
        f.src = s;
        f.dst = t;
        f.measured = true;
        f.ok = true;
        f.avg_gbps = gbps;
        f.path = flow_trace_to_json(
            {d.sports[static_cast<size_t>(sp - 1)], hops(s, t, sp), "silent", ""});
        d.flows.push_back(std::move(f));
    }
    /// Rank r stopped reporting in the first round, and its flow from r to t
    /// failed because of that, or was not run.
    void gone(int r, int t, bool ran) {
        d.ranks[static_cast<size_t>(r)].gone = true;
        d.ranks[static_cast<size_t>(r)].gone_round = 0;
        MeshFlow f;
        f.src = r;
        f.dst = t;
        f.measured = ran;
        f.error = ran ? "no result within 5.7s" : "not run: gone";
        d.flows.push_back(std::move(f));
    }
    /// The spine a planned direction from a to b takes, by its flow label.
    int spine_of(uint32_t label) const {
        uint16_t sport = sport_for_flow_label(label);
        return sport == d.sports[1] ? 2 : 1;
    }
    /// What mesh run does after its planned rounds: separating rounds while
    /// the budget lasts, each flow measured as `slow(src, dst, spine)` says.
    size_t adapt(size_t budget, const std::function<bool(int, int, int)>& slow) {
        return adapt_at(budget, 0.5,
                        [&](int s, int t, int sp) { return slow(s, t, sp) ? 0.2 : 1.0; });
    }
    /// The same with each flow's rate as `rate(src, dst, spine)` says, judged
    /// slow below `slow_ratio`.
    size_t adapt_at(size_t budget, double slow_ratio,
                    const std::function<double(int, int, int)>& rate) {
        d.planned_rounds = d.rounds.size();
        size_t used = 0;
        while (used < budget) {
            auto more = plan_separating(d, analyse_mesh(d, slow_ratio), budget - used);
            if (more.empty()) break;
            for (const auto& round : more) {
                d.rounds.push_back(round);
                for (const MeshPair& p : round) {
                    int sp = spine_of(p.label_ab);
                    measured(p.a, p.b, sp, rate(p.a, p.b, sp), d.rounds.size() - 1);
                }
            }
            used += more.size();
        }
        return used;
    }
};

TEST(MeshCover, LanesNoMeasuredFlowCrossedAreCrossedAgainWithoutTheGoneRank) {
    ThreeLeaves f;
    // Measured: every lane but s2 -> l1. Through spine 1, every leaf to every
    // other; through spine 2, from l1 out and between l2 and l3. The flows
    // into l1 through s2 were rank 3's (on l2), which died.
    for (auto [s, t] : {std::pair{0, 3}, {3, 0}, {0, 6}, {6, 0}, {3, 6}, {6, 3}})
        f.measured(s, t, 1);
    for (auto [s, t] : {std::pair{1, 4}, {1, 7}, {4, 7}, {7, 4}}) f.measured(s, t, 2);
    f.gone(3, 1, false);

    MeshAnalysis a = analyse_mesh(f.d, 0.5);
    EXPECT_EQ(a.links.coverage.lanes, 12u);
    EXPECT_EQ(a.links.coverage.crossed, 11u);
    ASSERT_EQ(a.links.uncrossed.size(), 1u);
    const Lane into_l1 = a.links.uncrossed[0];
    EXPECT_EQ(a.links.fabric.lane_name(into_l1), "s2[10.9.12.1] -> l1[10.9.12.0]");
    EXPECT_TRUE(a.links.suspects.empty());

    auto rounds = plan_separating(f.d, a, 2);
    ASSERT_FALSE(rounds.empty());
    size_t through = 0;
    for (const auto& round : rounds) {
        std::set<int> busy;
        for (const MeshPair& p : round) {
            EXPECT_NE(p.a, 3);  // the gone rank is not asked again
            EXPECT_NE(p.b, 3);
            EXPECT_TRUE(busy.insert(p.a).second);
            EXPECT_TRUE(busy.insert(p.b).second);
            EXPECT_FALSE(p.both_ways);
            if (ThreeLeaves::leaf(p.b) == 1 && ThreeLeaves::leaf(p.a) != 1 &&
                f.spine_of(p.label_ab) == 2)
                ++through;
        }
    }
    EXPECT_EQ(through, 2u);  // two flows per lane asked for

    // Once every lane is crossed, nothing is asked.
    f.measured(4, 2, 2);
    MeshAnalysis all = analyse_mesh(f.d, 0.5);
    EXPECT_TRUE(all.links.uncrossed.empty());
    EXPECT_TRUE(plan_separating(f.d, all, 2).empty());
}

TEST(MeshCover, AnUncrossedLaneIsNotStarvedByWantsThatKeepItsEndpointsBusy) {
    ThreeLeaves f;
    // Rank 7 (on l3) died in the first round; its flow to rank 3 through s1
    // was the only one planned through l3 -> s1, and it failed for that.
    f.gone(7, 3, true);
    // Through s2: 6 -> 0 and 8 -> 1 slow, so l3 -> s2 and s2 -> l1 cannot be
    // told apart; 0 -> 8 slow, so l1 -> s2 and s2 -> l3 are undersampled.
    // Separating them wants l3's two live ranks (6 and 8) round after round.
    f.measured(6, 0, 2, 0.2);
    f.measured(8, 1, 2, 0.2);
    f.measured(0, 8, 2, 0.2);
    // Every other lane but l3 -> s1 crossed by a healthy flow.
    for (auto [s, t] : {std::pair{0, 3}, {3, 0}, {0, 6}}) f.measured(s, t, 1);
    for (auto [s, t] : {std::pair{4, 8}, {0, 3}}) f.measured(s, t, 2);

    MeshAnalysis a = analyse_mesh(f.d, 0.5);
    // The failed flow is the dead rank's finding, not evidence against its path.
    EXPECT_EQ(a.ratio[0], -1.0);
    EXPECT_FALSE(a.slow[0]);
    ASSERT_EQ(a.links.uncrossed.size(), 1u);
    EXPECT_EQ(a.links.fabric.lane_name(a.links.uncrossed[0]), "l3[10.9.31.0] -> s1[10.9.31.1]");
    ASSERT_EQ(a.links.suspects.size(), 1u);
    EXPECT_EQ(a.links.suspects[0].lanes.size(), 2u);
    // Too few flows to judge: every lane of 0 -> 8, the one slow flow no
    // suspect explains: l1 -> s2 and s2 -> l3, and its two hosts' own cables
    // (a slow NIC would slow it as much).
    std::set<std::string> undersampled;
    for (Lane l : a.links.undersampled) undersampled.insert(a.links.fabric.lane_name(l));
    EXPECT_EQ(undersampled,
              (std::set<std::string>{"h0 -> l1[10.1.0.254]", "l1[10.9.12.0] -> s2[10.9.12.1]",
                                     "s2[10.9.32.1] -> l3[10.9.32.0]", "l3[10.3.0.254] -> h8"}))
        << fmt::format("{}", fmt::join(undersampled, ", "));

    size_t through = 0;
    for (const auto& round : plan_separating(f.d, a, 2)) {
        for (const MeshPair& p : round) {
            EXPECT_NE(p.a, 7);
            EXPECT_NE(p.b, 7);
            if (ThreeLeaves::leaf(p.a) == 3 && ThreeLeaves::leaf(p.b) != 3 &&
                f.spine_of(p.label_ab) == 1)
                ++through;
        }
    }
    EXPECT_GE(through, 1u);
}

TEST(MeshCover, ANoisyFlowThatMakesAHealthyLaneTheSuspectIsTestedAgain) {
    // The cable l1 <-> s2 is slow both ways. The planned round crossed each
    // of its lanes once, and noise slowed one healthy flow through l2 -> s2
    // (b1 -> c3 at 0.58 of the median in a VM run): l2 -> s2 then had two
    // slow flows of two and stood first, explaining away the one slow flow
    // through s2 -> l1, so the cable was named one way only.
    ThreeLeaves f;
    // The planned round: two pairs at once (the flows below, as measured).
    f.d.rounds.push_back({{.a = 0, .b = 3}, {.a = 2, .b = 7}});
    for (auto [s, t] : {std::pair{0, 3}, {3, 0}, {2, 7}, {7, 2}}) f.measured(s, t, 1);
    f.measured(6, 3, 2);
    f.measured(1, 4, 2, 0.2);   // l1 -> s2 -> l2: the cable
    f.measured(4, 1, 2, 0.2);   // l2 -> s2 -> l1: the cable
    f.measured(3, 8, 2, 0.45);  // l2 -> s2 -> l3: noise
    MeshAnalysis before = analyse_mesh(f.d, 0.5);
    ASSERT_FALSE(before.links.suspects.empty());
    EXPECT_EQ(before.links.suspects[0].name, "l2[10.9.22.0] -> s2[10.9.22.1]");

    auto cable = [](int s, int t, int sp) {
        return sp == 2 && (ThreeLeaves::leaf(s) == 1) != (ThreeLeaves::leaf(t) == 1);
    };
    EXPECT_GT(f.adapt(4, cable), 0u);
    // No adaptive round ran more flows at once than the planned one.
    for (size_t r = 1; r < f.d.rounds.size(); ++r) EXPECT_LE(f.d.rounds[r].size(), 2u) << r;
    MeshAnalysis a = analyse_mesh(f.d, 0.5);
    ASSERT_FALSE(a.links.cables.empty()) << mesh_run_summary(f.d, a).front();
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]");
    EXPECT_EQ(a.links.cables[0].directions.size(), 2u) << mesh_run_summary(f.d, a).front();
    for (const LinkSuspect& s : a.links.suspects)
        EXPECT_NE(s.name, "l2[10.9.22.0] -> s2[10.9.22.1]") << mesh_run_summary(f.d, a).front();
}

TEST(MeshCover, ACoverThenItsAdaptiveRoundsNameASlowCableBothWaysNotAHost) {
    // The VM lab's cover: every host sends and receives, the cable l1 <-> s2
    // is slow both ways. A host whose every planned flow crossed that cable
    // stands beside it as one suspect until its flows part ways.
    ThreeLeaves f;
    auto cable = [](int s, int t, int sp) {
        return sp == 2 && (ThreeLeaves::leaf(s) == 1) != (ThreeLeaves::leaf(t) == 1);
    };
    f.d.rounds = plan_cover(f.d, 8);
    ASSERT_FALSE(f.d.rounds.empty());
    for (size_t r = 0; r < f.d.rounds.size(); ++r) {
        for (const MeshPair& p : f.d.rounds[r]) {
            const int ab = f.spine_of(p.label_ab);
            f.measured(p.a, p.b, ab, cable(p.a, p.b, ab) ? 0.2 : 1.0, r);
            if (!p.both_ways) continue;
            const int ba = f.spine_of(p.label_ba);
            f.measured(p.b, p.a, ba, cable(p.b, p.a, ba) ? 0.2 : 1.0, r);
        }
    }
    const size_t planned = f.d.rounds.size();
    f.adapt(4, cable);
    MeshAnalysis a = analyse_mesh(f.d, 0.5);
    ASSERT_FALSE(a.links.cables.empty()) << mesh_run_summary(f.d, a).front();
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]")
        << mesh_run_summary(f.d, a).front();
    EXPECT_EQ(a.links.cables[0].directions.size(), 2u)
        << planned << " planned, " << f.d.rounds.size() << " in all\n"
        << fmt::format("{}", fmt::join(mesh_run_summary(f.d, a), "\n"));
}

// A milder fault, as production has them: the cable l1 -> s2 at 0.7 of the
// rate, every flow +-20 % around its own (a fixed spread, so the test is the
// same every run), a flow slow below 0.8. Cover in three passes names the
// cable's lane though noise lifts some of its flows over 0.8, and says how it
// was planned (the report's cover_passes, the summary's "in 3 passes").
TEST(MeshCover, ThreePassesNameALaneAt07ThroughNoise) {
    ThreeLeaves planned;
    ASSERT_EQ(plan_run(planned.d, {.pattern = "cover", .max_cover_rounds = 8, .cover_passes = 3}),
              "");
    EXPECT_EQ(planned.d.cover_passes, 3U);
    ThreeLeaves f;
    f.d.rounds = plan_cover(f.d, 8, nullptr, 3);
    f.d.cover_passes = 3;
    EXPECT_GT(f.d.rounds.size(), plan_cover(f.d, 8).size());
    auto bad = [](int s, int t, int sp) {
        return sp == 2 && ThreeLeaves::leaf(s) == 1 && ThreeLeaves::leaf(t) != 1;
    };
    const double spread[] = {0.84, 1.16, 0.92, 1.08, 1.0, 0.88, 1.12, 0.96, 1.04};
    size_t k = 0;
    auto rate = [&](int s, int t, int sp) {
        return spread[k++ % std::size(spread)] * (bad(s, t, sp) ? 0.7 : 1.0);
    };
    for (size_t r = 0; r < f.d.rounds.size(); ++r) {
        for (const MeshPair& p : f.d.rounds[r]) {
            const int ab = f.spine_of(p.label_ab);
            f.measured(p.a, p.b, ab, rate(p.a, p.b, ab), r);
            if (!p.both_ways) continue;
            const int ba = f.spine_of(p.label_ba);
            f.measured(p.b, p.a, ba, rate(p.b, p.a, ba), r);
        }
    }
    f.adapt_at(4, 0.8, rate);
    MeshAnalysis a = analyse_mesh(f.d, 0.8);
    const std::string all = fmt::format("{}", fmt::join(mesh_run_summary(f.d, a), "\n"));
    ASSERT_FALSE(a.links.suspects.empty()) << all;
    EXPECT_EQ(a.links.suspects[0].name, "l1[10.9.12.0] -> s2[10.9.12.1]") << all;
    EXPECT_NE(all.find("rounds planned in 3 passes from"), std::string::npos) << all;
    EXPECT_EQ(mesh_run_json(f.d, a).value("cover_passes", 0), 3) << all;
}

TEST(MeshCover, AHostWhoseEveryFlowCrossedTheSlowCableIsClearedByAFlowThatDoesNot) {
    // In the VM lab's cover, a1 sent five flows and every one went l1 -> s2,
    // the shaped cable: its own cable and the lane explained the same slow
    // flows, one suspect, and the adaptive rounds kept sending from a1
    // (their paths knew no host cables), so the cable was named one way.
    ThreeLeaves f;
    f.d.rounds.push_back({{.a = 0, .b = 3}, {.a = 1, .b = 6}});
    f.measured(0, 3, 2, 0.2);
    f.measured(0, 6, 2, 0.2);
    f.measured(3, 1, 2, 0.2);
    f.measured(6, 2, 2, 0.2);
    for (auto [s, t] : {std::pair{1, 4}, {2, 7}, {4, 2}, {7, 1}, {5, 8}, {8, 5}})
        f.measured(s, t, 1);
    MeshAnalysis before = analyse_mesh(f.d, 0.5);
    ASSERT_FALSE(before.links.suspects.empty());
    EXPECT_EQ(before.links.suspects[0].lanes.size(), 2u) << before.links.suspects[0].name;

    auto cable = [](int s, int t, int sp) {
        return sp == 2 && (ThreeLeaves::leaf(s) == 1) != (ThreeLeaves::leaf(t) == 1);
    };
    EXPECT_GT(f.adapt(4, cable), 0u);
    MeshAnalysis a = analyse_mesh(f.d, 0.5);
    const std::string all = fmt::format("{}", fmt::join(mesh_run_summary(f.d, a), "\n"));
    ASSERT_FALSE(a.links.cables.empty()) << all;
    EXPECT_EQ(a.links.cables[0].name, "l1[10.9.12.0] <-> s2[10.9.12.1]") << all;
    EXPECT_EQ(a.links.cables[0].directions.size(), 2u) << all;
    for (const LinkSuspect& s : a.links.suspects)
        EXPECT_EQ(s.name.find("h0"), std::string::npos) << all;
}

}  // namespace
}  // namespace fabscope::perf
