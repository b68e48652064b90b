#include "schedule/schedule.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "model/route.h"
#include "test_fabrics.h"

using namespace fabscope;
using fabscope::testing::LeafSpineShape;
using fabscope::testing::routed_leaf_spine;

namespace {

// Every unordered pair exactly once, and no endpoint twice in a round.
void expect_round_robin(const Schedule& s, size_t n) {
    std::set<std::pair<size_t, size_t>> seen;
    for (const Round& r : s.rounds) {
        std::set<size_t> in_round;
        for (const PairTest& t : r.tests) {
            EXPECT_TRUE(in_round.insert(t.a).second) << "endpoint " << t.a << " twice";
            EXPECT_TRUE(in_round.insert(t.b).second) << "endpoint " << t.b << " twice";
            EXPECT_TRUE(seen.insert({std::min(t.a, t.b), std::max(t.a, t.b)}).second);
            EXPECT_TRUE(t.both_ways);
        }
    }
    EXPECT_EQ(seen.size(), n * (n - 1) / 2);
}

std::vector<MeshEndpoint> endpoints_of(const Fabric& f) {
    return endpoints_from_fabric(f);
}

}  // namespace

TEST(Schedule, AllPairsEvenTakesNMinusOneRounds) {
    Schedule s = all_pairs(6);
    EXPECT_EQ(s.rounds.size(), 5U);
    expect_round_robin(s, 6);
    for (const Round& r : s.rounds) EXPECT_EQ(r.tests.size(), 3U);
}

TEST(Schedule, AllPairsOddRestsOneEndpointPerRound) {
    Schedule s = all_pairs(7);
    EXPECT_EQ(s.rounds.size(), 7U);
    expect_round_robin(s, 7);
    for (const Round& r : s.rounds) EXPECT_EQ(r.tests.size(), 3U);
    EXPECT_TRUE(all_pairs(1).rounds.empty());
}

TEST(Schedule, LeafPairsStayUnderTheirLeafAndRunLeavesTogether) {
    Fabric f = routed_leaf_spine(LeafSpineShape{2, 3, 4, 1});
    auto eps = endpoints_of(f);
    ASSERT_EQ(eps.size(), 12U);
    Schedule s = leaf_pairs(eps);
    EXPECT_EQ(s.rounds.size(), 3U);
    size_t tests = 0;
    for (const Round& r : s.rounds) {
        EXPECT_EQ(check_round(r, eps, nullptr, false), "");
        for (const PairTest& t : r.tests) {
            EXPECT_EQ(eps[t.a].leaf, eps[t.b].leaf);
            ++tests;
        }
    }
    EXPECT_EQ(tests, 3U * 6U);  // 3 leaves x C(4,2)
}

TEST(Schedule, IncastSendsFromOtherLeavesFirstOneWay) {
    Fabric f = routed_leaf_spine(LeafSpineShape{2, 3, 4, 1});
    auto eps = endpoints_of(f);
    auto s = incast(eps, 0, 6);
    ASSERT_TRUE(s) << s.error().message;
    ASSERT_EQ(s->rounds.size(), 1U);
    ASSERT_EQ(s->rounds[0].tests.size(), 6U);
    for (const PairTest& t : s->rounds[0].tests) {
        EXPECT_EQ(t.b, 0U);
        EXPECT_FALSE(t.both_ways);
        EXPECT_NE(eps[t.a].leaf, eps[0].leaf);
    }
    EXPECT_FALSE(incast(eps, 0, 12));
    EXPECT_FALSE(incast(eps, 40, 2));
}

TEST(Schedule, ExplicitPairsArePackedInOrder) {
    Schedule s = explicit_pairs(4, {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {0, 1}});
    ASSERT_EQ(s.rounds.size(), 3U);
    EXPECT_EQ(s.rounds[0].tests.size(), 2U);
    EXPECT_EQ(s.rounds[1].tests.size(), 2U);
    EXPECT_EQ(s.rounds[2].tests.size(), 1U);
    EXPECT_EQ(s.rounds[1].tests[0].a, 0U);
    EXPECT_EQ(s.rounds[1].tests[0].b, 2U);
}

TEST(MeshPaths, ForwardingTablePathsMatchTheTracedRoute) {
    Fabric f = routed_leaf_spine(LeafSpineShape{4, 6, 5, 1});
    auto eps = endpoints_of(f);
    IbPathOracle oracle(f);
    for (size_t i = 0; i < eps.size(); i += 3) {
        for (size_t j = 1; j < eps.size(); j += 4) {
            if (i == j) continue;
            FlowPath p = oracle.path(eps[i], eps[j], 0);
            ASSERT_TRUE(p.ok()) << p.error;
            auto r = trace_route(f, *f.node(eps[i].node), eps[j].lid);
            ASSERT_TRUE(r) << r.error().message;
            ASSERT_EQ(p.lanes.size(), r->hops.size());
            for (size_t h = 0; h < p.lanes.size(); ++h) {
                const Link& l = f.links()[link_of_lane(p.lanes[h])];
                PortRef from = (p.lanes[h] & 1U) == 0 ? l.a : l.b;
                EXPECT_EQ(from, r->hops[h].from) << describe_lane(f, p.lanes[h]);
            }
        }
    }
}

TEST(MeshPaths, WithoutForwardingTablesThereIsNoPathAndCoverSaysWhy) {
    Fabric f = fabscope::testing::leaf_spine(LeafSpineShape{2, 3, 2, 1});
    auto eps = endpoints_of(f);
    IbPathOracle oracle(f);
    FlowPath p = oracle.path(eps[0], eps[5], 0);
    EXPECT_FALSE(p.ok());
    EXPECT_NE(p.error.find("no forwarding table"), std::string::npos) << p.error;
    Schedule s = cover(eps, oracle, fabric_lanes(f));
    EXPECT_TRUE(s.rounds.empty());
    ASSERT_TRUE(s.coverage);
    EXPECT_EQ(s.coverage->crossed, 0U);
    ASSERT_FALSE(s.unrouted.empty());
}

TEST(MeshPaths, FlowLabelsChooseEverySourcePort) {
    std::set<uint16_t> ports;
    for (uint32_t sport = 0xC000; sport <= 0xFFFF; ++sport) {
        auto label = flow_label_for_sport(static_cast<uint16_t>(sport));
        ASSERT_TRUE(label);
        EXPECT_NE(*label, 0U);  // 0 means "no label": the kernel would hash instead
        EXPECT_LE(*label, 0xFFFFFU);
        EXPECT_EQ(sport_for_flow_label(*label), sport);
        ports.insert(static_cast<uint16_t>(sport));
    }
    EXPECT_EQ(ports.size(), 0x4000U);
    EXPECT_FALSE(flow_label_for_sport(4791));
    // The kernel's own example: the high six bits fold into the low ones.
    EXPECT_EQ(sport_for_flow_label(0xFC001U), 0xC000U | (0x1U ^ 0x3FU));
}

// The goal: every leaf-spine lane both ways in at most 4 rounds on
// the 648-host lab shape (all-pairs would take 647), no lane shared in a round.
TEST(Cover, EveryLeafSpineLaneOfThe648HostShapeInFewRounds) {
    Fabric f = routed_leaf_spine(LeafSpineShape{18, 36, 18, 1});
    auto eps = endpoints_of(f);
    ASSERT_EQ(eps.size(), 648U);
    IbPathOracle oracle(f);
    auto lanes = fabric_lanes(f);
    ASSERT_EQ(lanes.size(), 18U * 36U * 2U);
    Schedule s = cover(eps, oracle, lanes);
    ASSERT_TRUE(s.coverage);
    EXPECT_EQ(s.coverage->crossed, lanes.size());
    EXPECT_LE(s.rounds.size(), 4U);
    EXPECT_TRUE(s.unrouted.empty());
    for (const Round& r : s.rounds) EXPECT_EQ(check_round(r, eps, &oracle, true), "");
    Coverage again = coverage_of(s, eps, oracle, lanes);
    EXPECT_EQ(again.crossed, lanes.size());
}

// Three passes: every lane crossed three times and every host tested three
// times each way, by other pairs each pass (the same pairs would put a bad
// lane's flows on the same other lanes again), in three rounds where one
// pass takes one, no lane shared in a round; the coverage is the first
// pass's.
TEST(Cover, ThreePassesCrossEveryLaneThriceWithOtherPairs) {
    Fabric f = routed_leaf_spine(LeafSpineShape{18, 36, 18, 1});
    auto eps = endpoints_of(f);
    IbPathOracle oracle(f);
    auto lanes = fabric_lanes(f);
    Schedule one = cover(eps, oracle, lanes);
    Schedule s = cover(eps, oracle, lanes, 8, 3);
    ASSERT_EQ(one.rounds.size(), 1U);
    ASSERT_EQ(s.rounds.size(), 3U);
    ASSERT_TRUE(s.coverage);
    EXPECT_EQ(s.coverage->crossed, lanes.size());
    EXPECT_EQ(s.coverage->senders, eps.size());
    std::map<Lane, int> crossings;
    std::vector<int> sent(eps.size(), 0);
    std::vector<int> received(eps.size(), 0);
    std::set<std::pair<size_t, size_t>> pairs;
    size_t tests = 0;
    for (const Round& r : s.rounds) {
        EXPECT_EQ(check_round(r, eps, &oracle, true), "");
        for (const PairTest& t : r.tests) {
            ++tests;
            pairs.insert(std::minmax(t.a, t.b));
            TestFlows fl = flows_of(t, eps, oracle);
            for (Lane l : fl.ab.lanes) ++crossings[l];
            for (Lane l : fl.ba.lanes) ++crossings[l];
            ++sent[t.a], ++received[t.b], ++sent[t.b], ++received[t.a];
        }
    }
    for (Lane l : lanes) EXPECT_GE(crossings[l], 3) << l;
    EXPECT_EQ(*std::min_element(sent.begin(), sent.end()), 3);
    EXPECT_EQ(*std::min_element(received.begin(), received.end()), 3);
    EXPECT_EQ(pairs.size(), tests);  // no pair twice
    // Capped by max_rounds: two rounds, two passes.
    EXPECT_EQ(cover(eps, oracle, lanes, 2, 3).rounds.size(), 2U);
}

// More hosts under a leaf than it has uplinks (the lab's 2 spines, 4 leaves,
// 4 hosts a leaf): the leaf-spine lanes are crossed by half the hosts, and
// the cover used to stop there, leaving the other eight untested. Every host
// sends and receives, no lane shared in a round, no more rounds than before.
TEST(Cover, EveryHostSendsAndReceivesWhenLeavesHaveMoreHostsThanUplinks) {
    Fabric f = routed_leaf_spine(LeafSpineShape{2, 4, 4, 1});
    auto eps = endpoints_of(f);
    ASSERT_EQ(eps.size(), 16U);
    IbPathOracle oracle(f);
    auto lanes = fabric_lanes(f);
    Schedule s = cover(eps, oracle, lanes);
    ASSERT_TRUE(s.coverage);
    EXPECT_EQ(s.coverage->crossed, lanes.size());
    EXPECT_EQ(s.coverage->endpoints, 16U);
    EXPECT_EQ(s.coverage->senders, 16U);
    EXPECT_EQ(s.coverage->receivers, 16U);
    EXPECT_EQ(s.rounds.size(), 1U);
    std::set<size_t> tested;
    for (const Round& r : s.rounds) {
        EXPECT_EQ(check_round(r, eps, &oracle, true), "");
        for (const PairTest& t : r.tests) {
            EXPECT_TRUE(t.both_ways);
            tested.insert(t.a);
            tested.insert(t.b);
        }
    }
    EXPECT_EQ(tested.size(), 16U);
    // coverage_of says the same of the plan.
    Coverage again = coverage_of(s, eps, oracle, lanes);
    EXPECT_EQ(again.senders, 16U);
    EXPECT_EQ(again.receivers, 16U);
    EXPECT_EQ(again.crossed, lanes.size());
}

// Hosts under one leaf only: no switch-to-switch lane at all, every host
// still tested (with an odd count one host pairs twice, in a second round).
TEST(Cover, HostsUnderOneLeafAreTestedThoughNoLaneIsCrossed) {
    Fabric f = routed_leaf_spine(LeafSpineShape{1, 1, 5, 1});
    auto eps = endpoints_of(f);
    IbPathOracle oracle(f);
    Schedule s = cover(eps, oracle, fabric_lanes(f));
    ASSERT_TRUE(s.coverage);
    EXPECT_EQ(s.coverage->senders, eps.size());
    EXPECT_EQ(s.coverage->receivers, eps.size());
    EXPECT_LE(s.rounds.size(), 2U);
}

// Fewer hosts than spines: without LMC some leaf-spine lanes are on no
// host's path; with LMC 3 each host's eight LIDs take eight spines.
TEST(Cover, LmcVariantsReachLanesThatOneLidCannot) {
    LeafSpineShape shape{8, 4, 2, 1};
    Fabric plain = routed_leaf_spine(shape);
    auto eps = endpoints_of(plain);
    IbPathOracle o1(plain);
    Schedule s1 = cover(eps, o1, fabric_lanes(plain), 16);
    ASSERT_TRUE(s1.coverage);
    EXPECT_LT(s1.coverage->crossed, s1.coverage->lanes);

    Fabric lmc = routed_leaf_spine(shape, 3);
    auto eps3 = endpoints_of(lmc);
    IbPathOracle o3(lmc);
    Schedule s3 = cover(eps3, o3, fabric_lanes(lmc), 16);
    ASSERT_TRUE(s3.coverage);
    EXPECT_EQ(s3.coverage->crossed, s3.coverage->lanes);
    bool used_variant = false;
    for (const Round& r : s3.rounds) {
        EXPECT_EQ(check_round(r, eps3, &o3, true), "");
        for (const PairTest& t : r.tests) used_variant |= t.variant_ab != 0 || t.variant_ba != 0;
    }
    EXPECT_TRUE(used_variant);
}

TEST(Cover, CheckRoundCatchesASharedLane) {
    Fabric f = routed_leaf_spine(LeafSpineShape{1, 2, 2, 1});
    auto eps = endpoints_of(f);
    IbPathOracle oracle(f);
    // One spine: both cross-leaf pairs use the same leaf-spine cables.
    Round r;
    r.tests.push_back(PairTest{0, 2});
    r.tests.push_back(PairTest{1, 3});
    EXPECT_NE(check_round(r, eps, &oracle, true).find("share lane"), std::string::npos);
    EXPECT_EQ(check_round(r, eps, &oracle, false), "");
    r.tests.push_back(PairTest{0, 1});
    EXPECT_NE(check_round(r, eps, &oracle, false).find("two tests"), std::string::npos);
}
