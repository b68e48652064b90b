#include "schedule/localize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "test_fabrics.h"

using namespace fabscope;
using fabscope::testing::LeafSpineShape;
using fabscope::testing::routed_leaf_spine;

namespace {

// A fabric whose bad lanes run at a quarter of the rate: a flow is slow when
// it crosses one. `noise` makes that share of healthy flows slow as well.
struct SlowLanes {
    std::set<Lane> bad;
    double noise = 0.0;
    std::mt19937 rng{7};
    bool operator()(const Round&, std::vector<FlowObservation>& flows) {
        std::bernoulli_distribution noisy(noise);
        for (FlowObservation& f : flows) {
            bool crosses = false;
            for (Lane l : f.lanes) crosses |= bad.count(l) > 0;
            f.slow = crosses || noisy(rng);
            f.ratio = f.slow ? 0.25 : 1.0;
        }
        return true;
    }
};

std::set<Lane> found_lanes(const Localization& l) {
    std::set<Lane> out;
    for (const Suspect& s : l.suspects) {
        if (s.localized()) out.insert(s.lanes.front());
    }
    return out;
}

Lane lane_between(const Fabric& f, const std::string& from, uint8_t port) {
    const Node* n = f.find(from);
    PortRef ref{n->guid, port};
    const Link* l = f.link_of(ref);
    return lane_of(static_cast<size_t>(l - f.links().data()), l->a == ref);
}

}  // namespace

TEST(Localize, TwoLanesAlwaysSeenTogetherAreReportedTogether) {
    std::vector<FlowObservation> flows = {
        {0, 0, 1, {10, 20, 30}, true, 0.3},
        {1, 2, 3, {10, 20, 31}, true, 0.3},
        {2, 4, 5, {11, 21, 32}, false, 1.0},
    };
    Localization l = localize(flows);
    ASSERT_EQ(l.suspects.size(), 1U);
    EXPECT_EQ(l.suspects[0].lanes, (std::vector<Lane>{10, 20}));
    EXPECT_FALSE(l.suspects[0].localized());
    EXPECT_EQ(l.suspects[0].slow_flows, 2U);
}

TEST(Localize, OneSlowFlowIsUndersampledNotAVerdict) {
    std::vector<FlowObservation> flows = {
        {0, 0, 1, {1, 2}, true, 0.3},
        {1, 2, 3, {3, 4}, false, 1.0},
    };
    Localization l = localize(flows);
    EXPECT_TRUE(l.suspects.empty());
    EXPECT_EQ(l.unexplained, (std::vector<size_t>{0}));
    EXPECT_EQ(l.undersampled, (std::vector<Lane>{1, 2}));
}

TEST(Localize, ALaneMostlyFastIsNotBlamed) {
    std::vector<FlowObservation> flows;
    for (size_t i = 0; i < 8; ++i)
        flows.push_back({i, i, i + 1, {5, 100 + static_cast<Lane>(i)}, i < 2, 1.0});
    Localization l = localize(flows);
    for (const Suspect& s : l.suspects) EXPECT_NE(s.lanes.front(), 5U);
}

TEST(Localize, AHostLaneThatCarriedTheBadCablesFlowsIsNotBlamedForThem) {
    // Host lane 1 sends 20 flows; 16 of them cross cable lane 50 (bad, all
    // slow), 4 do not (healthy but one, flaky). The cable explains 16 slow
    // flows with none healthy; the host lane 17 with 3 healthy: the cable is
    // the suspect, and the host lane, left with one flaky flow, is none.
    std::vector<FlowObservation> flows;
    for (size_t i = 0; i < 16; ++i)
        flows.push_back({i, 0, i + 1, {1, 50, 200 + static_cast<Lane>(i)}, true, 0.4});
    for (size_t i = 16; i < 20; ++i)
        flows.push_back({i, 0, i + 1, {1, 60, 200 + static_cast<Lane>(i)}, i == 16, 1.0});
    // Other hosts' flows through the cable's lane 50 would only add to it.
    Localization l = localize(flows);
    EXPECT_EQ(found_lanes(l), (std::set<Lane>{50})) << l.suspects.size();
    ASSERT_FALSE(l.suspects.empty());
    EXPECT_EQ(l.suspects[0].slow_flows, 16U);
    EXPECT_EQ(l.suspects[0].total_flows, 16U);
}

// The all-pairs run of the mesh VM test (CI, stop 23), as lanes: 3 leaves, 2
// spines, the cable l1-s2 shaped both ways (its flows at 0.15 of the median).
// Noise put 3 of the 4 flows l3 -> s2 -> l2 just under the threshold (0.5),
// so the healthy lane l3 -> s2, which also carried 5 of the bad s2 -> l1's
// flows, had 8 slow of 9 and outbid s2 -> l1 (6 of 6): the cable was named
// one way and l3-s2 first. Weighed by how slow they were, the deep flows
// name the cable both ways, and l3 -> s2 keeps only the 3 shallow ones.
TEST(Localize, ShallowNoiseOnALaneBesideABadCableDoesNotOutbidIt) {
    constexpr Lane kL1S2 = 2, kS2L1 = 3, kL2S2 = 6, kS2L2 = 7, kL3S2 = 10, kS2L3 = 11;
    std::vector<FlowObservation> flows;
    auto add = [&](std::vector<Lane> lanes, double ratio) {
        size_t i = flows.size();
        flows.push_back(
            {i, i, i + 100, std::move(lanes), ratio < 0.6, ratio, slow_strength(ratio, 0.6)});
    };
    for (int i = 0; i < 3; ++i) add({kL1S2, kS2L2}, 0.15);
    for (int i = 0; i < 3; ++i) add({kL1S2, kS2L3}, 0.15);
    for (int i = 0; i < 5; ++i) add({kL3S2, kS2L1}, 0.15);
    add({kL2S2, kS2L1}, 0.15);
    for (int i = 0; i < 3; ++i) add({kL3S2, kS2L2}, 0.5);
    add({kL3S2, kS2L2}, 0.9);
    for (int i = 0; i < 4; ++i) add({kL2S2, kS2L3}, 0.9);

    Localization l = localize(flows);
    ASSERT_GE(l.suspects.size(), 2U);
    EXPECT_EQ((std::set<Lane>{l.suspects[0].lanes.front(), l.suspects[1].lanes.front()}),
              (std::set<Lane>{kL1S2, kS2L1}));
    // l3 -> s2 stands third, on the 3 shallow flows of its own.
    ASSERT_EQ(l.suspects.size(), 3U);
    const Suspect& s = l.suspects[2];
    EXPECT_EQ(s.lanes, (std::vector<Lane>{kL3S2}));
    EXPECT_EQ(s.slow_flows, 8U);
    EXPECT_EQ(s.own_slow, 3U);
    // Resting on 3 slow flows of its own, it wants more flows before it stands.
    EXPECT_NE(std::find(l.contested.begin(), l.contested.end(), kL3S2), l.contested.end());
    // Counted alike, every slow flow one, the lane beside the cable wins.
    for (FlowObservation& f : flows) f.strength = 1.0;
    EXPECT_EQ(localize(flows).suspects[0].lanes.front(), kL3S2);
}

TEST(Localize, ASpineDownlinkOnThe648HostShapeIsNamedAlone) {
    Fabric f = routed_leaf_spine(LeafSpineShape{18, 36, 18, 1});
    auto eps = endpoints_from_fabric(f);
    IbPathOracle oracle(f);
    SlowLanes sim;
    // spine07's port 12 faces leaf12: the spine's transmitter is bad.
    Lane bad = lane_between(f, "spine07", 12);
    sim.bad = {bad};
    Schedule plan = cover(eps, oracle, fabric_lanes(f));
    MeshOutcome out = run_and_localize(plan, eps, oracle, f, std::ref(sim));
    EXPECT_TRUE(out.complete);
    EXPECT_EQ(found_lanes(out.localization), sim.bad) << describe_lane(f, bad);
    EXPECT_EQ(out.localization.suspects.size(), 1U);
    EXPECT_LE(out.rounds.size(), plan.rounds.size() + 6);
    auto cables = cables_of(out.localization);
    ASSERT_EQ(cables.size(), 1U);
    EXPECT_EQ(describe_cable(f, cables[0].link), "leaf12[25] <-> spine07[12]");
}

TEST(Localize, ACableAt1XIsBadBothWays) {
    Fabric f = routed_leaf_spine(LeafSpineShape{8, 12, 8, 1});
    auto eps = endpoints_from_fabric(f);
    IbPathOracle oracle(f);
    SlowLanes sim;
    Lane up = lane_between(f, "leaf03", 11);
    sim.bad = {up, reverse_lane(up)};
    MeshOutcome out =
        run_and_localize(cover(eps, oracle, fabric_lanes(f)), eps, oracle, f, std::ref(sim));
    EXPECT_EQ(found_lanes(out.localization), sim.bad);
    auto cables = cables_of(out.localization);
    ASSERT_EQ(cables.size(), 1U);
    EXPECT_TRUE(cables[0].a_to_b);
    EXPECT_TRUE(cables[0].b_to_a);
}

TEST(Localize, AHostNicIsNamedByItsOwnCable) {
    Fabric f = routed_leaf_spine(LeafSpineShape{8, 12, 8, 1});
    auto eps = endpoints_from_fabric(f);
    IbPathOracle oracle(f);
    SlowLanes sim;
    Lane nic = lane_between(f, "leaf05", 3);  // leaf05[3] down to its host
    sim.bad = {nic};
    MeshOutcome out =
        run_and_localize(cover(eps, oracle, fabric_lanes(f)), eps, oracle, f, std::ref(sim));
    EXPECT_EQ(found_lanes(out.localization), sim.bad);
}

// Precision and recall over random faults: every named lane is bad, every bad
// lane is named, for one to four faults at once.
TEST(Localize, RandomFaultsAreNamedExactly) {
    Fabric f = routed_leaf_spine(LeafSpineShape{18, 36, 18, 1});
    auto eps = endpoints_from_fabric(f);
    IbPathOracle oracle(f);
    auto lanes = fabric_lanes(f);
    Schedule plan = cover(eps, oracle, lanes);
    std::mt19937 rng(2026);
    for (size_t k = 1; k <= 4; ++k) {
        for (int trial = 0; trial < 3; ++trial) {
            SlowLanes sim;
            while (sim.bad.size() < k) sim.bad.insert(lanes[rng() % lanes.size()]);
            MeshOutcome out = run_and_localize(plan, eps, oracle, f, std::ref(sim));
            EXPECT_EQ(found_lanes(out.localization), sim.bad) << "k=" << k << " trial " << trial;
        }
    }
}

TEST(Localize, NoiseWithoutAFaultNamesNothing) {
    Fabric f = routed_leaf_spine(LeafSpineShape{18, 36, 18, 1});
    auto eps = endpoints_from_fabric(f);
    IbPathOracle oracle(f);
    SlowLanes sim;
    sim.noise = 0.01;
    MeshOutcome out =
        run_and_localize(cover(eps, oracle, fabric_lanes(f)), eps, oracle, f, std::ref(sim));
    EXPECT_TRUE(found_lanes(out.localization).empty());
}

TEST(Localize, AStopKeepsWhatWasMeasured) {
    Fabric f = routed_leaf_spine(LeafSpineShape{4, 6, 4, 1});
    auto eps = endpoints_from_fabric(f);
    IbPathOracle oracle(f);
    Schedule plan = all_pairs(eps.size());
    size_t calls = 0;
    MeasureRound stop_second = [&](const Round&, std::vector<FlowObservation>& flows) {
        for (auto& fl : flows) fl.slow = false;
        return ++calls < 2;
    };
    MeshOutcome out = run_and_localize(plan, eps, oracle, f, stop_second);
    EXPECT_FALSE(out.complete);
    EXPECT_EQ(out.rounds.size(), 2U);
    EXPECT_EQ(out.flows.size(), 2U * 2U * (eps.size() / 2));
}
