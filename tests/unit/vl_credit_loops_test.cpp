// Credit loops per VL on a ring of five switches routed min-hop (a loop each
// way on one VL): with every flow on SL 0 and identity SL-to-VL tables the
// loops stand, now on a VL the tables gave; with the SLs LASH-like routing
// gives (the paths over one "dateline" cable on SL 1) they are gone; a
// flow's SL or a table missing leaves the one-VL loops and says so.

#include "check/vl_credit_loops.h"

#include <gtest/gtest.h>

#include "discover/sa_path_record.h"
#include "discover/smp_decode.h"
#include "fake_fabric.h"
#include "model/paths.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

Fabric ring5() {
    auto nodes = testing::switch_ring(5);
    testing::program_min_hop_routes(nodes);
    return *Fabric::build(nodes);
}

Sl2VlTables identity_tables(const VlNeeds& needs) {
    Sl2VlTables out;
    for (const Sl2VlKey& k : needs.tables) {
        Sl2VlTable t{};
        for (uint8_t sl = 0; sl < 16; ++sl) t[sl] = sl == 15 ? 7 : sl;  // as OpenSM programs them
        out[k] = t;
    }
    return out;
}

/// SL 1 for every flow whose route crosses the cable between ring4 and
/// ring0 (either way), SL 0 for the others: a dateline, as LASH's layers or
/// torus-2QoS would split the ring.
FlowSls dateline_sls(const Fabric& f, const VlNeeds& needs) {
    const IbPathOracle oracle(f);
    const auto ends = endpoints_from_fabric(f);
    FlowSls out;
    for (const MeshEndpoint& s : ends) {
        for (const MeshEndpoint& d : ends) {
            if (s.node == d.node) continue;
            const LidPair flow{s.lid, d.lid};
            if (std::find(needs.flows.begin(), needs.flows.end(), flow) == needs.flows.end())
                continue;
            uint8_t sl = 0;
            for (Lane l : oracle.path(s, d, 0).lanes) {
                const std::string lane = describe_lane(f, l);
                if (lane.find("ring4[") != std::string::npos &&
                    lane.find("ring0[") != std::string::npos)
                    sl = 1;
            }
            out[flow] = sl;
        }
    }
    return out;
}

TEST(VlCreditLoops, OnSlZeroThroughIdentityTablesTheRingsLoopsStandOnVlZero) {
    const Fabric f = ring5();
    RoutingAnalysis a = analyse_routing(f);
    ASSERT_EQ(a.loops.size(), 2u);
    EXPECT_EQ(a.cyclic_lanes.size(), 10u);  // the five cables, both ways
    const VlNeeds needs = vl_needs(f, a);
    // Every host's flow to a host two switches away crosses a ring cable into
    // another: 5 hosts x 4 destinations, of which those one hop away also
    // leave their first switch on a ring cable.
    EXPECT_EQ(needs.flows.size(), 20u);
    EXPECT_FALSE(needs.tables.empty());
    FlowSls sls;
    for (const LidPair& flow : needs.flows) sls[flow] = 0;
    check_loops_per_vl(a, needs, sls, identity_tables(needs));
    ASSERT_EQ(a.loops.size(), 2u);
    for (const CreditLoop& l : a.loops) {
        EXPECT_TRUE(l.per_vl);
        EXPECT_EQ(l.vl, 0);
        EXPECT_EQ(l.lanes.size(), 5u);
    }
    EXPECT_NE(a.vl_basis.find("per VL: the SLs of 20 flows from the SA"), std::string::npos)
        << a.vl_basis;
    // SL 3 everywhere: the same loops, on VL 3.
    RoutingAnalysis b = analyse_routing(f);
    for (auto& [flow, sl] : sls) sl = 3;
    check_loops_per_vl(b, needs, sls, identity_tables(needs));
    ASSERT_EQ(b.loops.size(), 2u);
    EXPECT_EQ(b.loops[0].vl, 3);
    EXPECT_EQ(b.loops[0].vls, std::vector<int>(5, 3));
    const auto found = routing_findings(f, b, 1.5);
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].summary.rfind("credit loop on VL 3 over 5 cables", 0), 0u)
        << found[0].summary;
    EXPECT_EQ(found[0].evidence.at("vl_from"), "sl_to_vl");
}

TEST(VlCreditLoops, SlsThatSplitTheRingAtADatelineLeaveNoLoop) {
    const Fabric f = ring5();
    RoutingAnalysis a = analyse_routing(f);
    const VlNeeds needs = vl_needs(f, a);
    const FlowSls sls = dateline_sls(f, needs);
    size_t on_one = 0;
    for (const auto& [flow, sl] : sls) on_one += sl;
    EXPECT_GT(on_one, 0u);
    check_loops_per_vl(a, needs, sls, identity_tables(needs));
    EXPECT_TRUE(a.loops.empty());
    EXPECT_NE(a.vl_basis.find("per VL"), std::string::npos);
    // The same SLs through tables that put SL 1 back on VL 0 at one switch
    // (ring2, whatever the ports) close the loop again on VL 0... only if
    // the VL-0 flows then chain all the way round: they do not (the dateline
    // cable still carries only SL 1 traffic on VL 1 at ring4), so still none.
    Sl2VlTables tables = identity_tables(needs);
    for (auto& [key, t] : tables) {
        if (f.node(key.node)->description == "ring2") t[1] = 0;
    }
    RoutingAnalysis b = analyse_routing(f);
    check_loops_per_vl(b, needs, sls, tables);
    EXPECT_TRUE(b.loops.empty());
    // Every flow on VL 0 at every switch (SL 1 mapped to VL 0): the one-VL loops.
    for (auto& [key, t] : tables) t[1] = 0;
    RoutingAnalysis c = analyse_routing(f);
    check_loops_per_vl(c, needs, sls, tables);
    EXPECT_EQ(c.loops.size(), 2u);
}

TEST(VlCreditLoops, AMissingSlOrTableLeavesTheOneVlLoopsAndSaysWhy) {
    const Fabric f = ring5();
    RoutingAnalysis a = analyse_routing(f);
    const VlNeeds needs = vl_needs(f, a);
    FlowSls sls = dateline_sls(f, needs);
    sls.erase(sls.begin());
    check_loops_per_vl(a, needs, sls, identity_tables(needs));
    EXPECT_EQ(a.loops.size(), 2u);
    EXPECT_FALSE(a.loops[0].per_vl);
    EXPECT_EQ(a.vl_basis, "one VL assumed: 1 of 20 flows without their SL from the SA, 0 of " +
                              std::to_string(needs.tables.size()) + " SL-to-VL tables unread");
    RoutingAnalysis b = analyse_routing(f);
    Sl2VlTables tables = identity_tables(needs);
    tables.erase(tables.begin());
    check_loops_per_vl(b, needs, dateline_sls(f, needs), tables);
    EXPECT_EQ(b.loops.size(), 2u);
    EXPECT_NE(b.vl_basis.find("1 of"), std::string::npos) << b.vl_basis;
}

TEST(VlCreditLoops, PastItsFlowLimitTheWalkStopsAndTheOneVlLoopsStand) {
    const Fabric f = ring5();
    RoutingAnalysis a = analyse_routing(f);
    const VlNeeds needs = vl_needs(f, a, 5);
    EXPECT_TRUE(needs.too_many);
    EXPECT_EQ(needs.flows.size(), 6u);  // stopped at the first past the limit
    check_loops_per_vl(a, needs, {}, {});
    EXPECT_EQ(a.loops.size(), 2u);
    EXPECT_FALSE(a.loops[0].per_vl);
    EXPECT_FALSE(vl_needs(f, a, 20).too_many);
}

TEST(VlCreditLoops, ALoopFreeFabricNeedsNothing) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 3, .hosts_per_leaf = 2});
    testing::add_dmodk_routes(nodes);
    const Fabric f = *Fabric::build(nodes);
    RoutingAnalysis a = analyse_routing(f);
    ASSERT_TRUE(a.loops.empty());
    const VlNeeds needs = vl_needs(f, a);
    EXPECT_TRUE(needs.flows.empty());
    EXPECT_TRUE(needs.tables.empty());
}

TEST(VlCreditLoops, TheSl2VlTableAndThePathQueryByLidsFollowTheIba) {
    // SLtoVLMappingTable: SL 2n in the high nibble of byte n, SL 2n+1 in the
    // low one (as `smpquery sl2vl` prints OpenSM's: SL n on VL n, 15 on 7).
    std::array<uint8_t, 64> d{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xe7};
    const auto vl = decode_sl2vl(SmpData(d));
    for (uint8_t sl = 0; sl < 15; ++sl) EXPECT_EQ(vl[sl], sl);
    EXPECT_EQ(vl[15], 7);
    // PathRecord by LIDs: DLID at bytes 40-41, SLID at 42-43, NumbPath 1,
    // and the component mask naming exactly those.
    const mad::Request r = sa::path_request_by_lids(1, 0x0105, 0x0209);
    EXPECT_EQ(r.mgmt_class, mad::kClassSubnAdm);
    EXPECT_EQ(r.attr_id, mad::kAttrPathRecord);
    EXPECT_EQ(r.to.lid, 1);
    ASSERT_EQ(r.sa_template.size(), 64u);
    EXPECT_EQ(r.sa_template[40], 0x02);
    EXPECT_EQ(r.sa_template[41], 0x09);
    EXPECT_EQ(r.sa_template[42], 0x01);
    EXPECT_EQ(r.sa_template[43], 0x05);
    EXPECT_EQ(r.sa_template[49], 1);
    EXPECT_EQ(r.component_mask, sa::kPrDlid | sa::kPrSlid | sa::kPrNumbPath);
}

}  // namespace
}  // namespace fabscope
