// The subnet managers and partitions: SMInfo and PKeyTable decoded from
// bytes laid out as the IBA has them (synthetic fixtures: IBA vol 1,
// 14.2.5.13 SMInfo and 14.2.5.7 P_KeyTable), read by the sweep from a fake
// fabric, kept in the snapshot, and checked against the plan.

#include <gtest/gtest.h>

#include "check/partition_checks.h"
#include "check/sm_checks.h"
#include "discover/smp_decode.h"
#include "discover/sweep.h"
#include "fake_fabric.h"
#include "model/partitions.h"
#include "model/plan.h"
#include "model/snapshot.h"
#include "model/tiers.h"
#include "model/validation.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using testing::node_named;

std::array<uint8_t, kSmpDataSize> sm_info_bytes(Guid guid, uint32_t act, uint8_t prio,
                                                uint8_t state) {
    std::array<uint8_t, kSmpDataSize> d{};
    for (int i = 0; i < 8; ++i) d[i] = static_cast<uint8_t>(guid >> (56 - 8 * i));
    for (int i = 8; i < 16; ++i) d[i] = 0xAA;  // SM_Key: not kept
    for (int i = 0; i < 4; ++i) d[16 + i] = static_cast<uint8_t>(act >> (24 - 8 * i));
    d[20] = static_cast<uint8_t>((prio << 4U) | state);
    return d;
}

TEST(SmInfoDecode, FieldsAsTheIbaLaysThemOut) {
    auto d = sm_info_bytes(0x0002c90300a1b2c3, 70000, 14, 3);
    auto info = decode_sm_info(SmpData(d));
    ASSERT_TRUE(info);
    EXPECT_EQ(info->guid, 0x0002c90300a1b2c3U);
    EXPECT_EQ(info->act_count, 70000U);
    EXPECT_EQ(info->priority, 14);
    EXPECT_EQ(info->state, SmState::Master);
    auto standby = sm_info_bytes(1, 0, 0, 2);
    EXPECT_EQ(decode_sm_info(SmpData(standby))->state, SmState::Standby);
    auto reserved = sm_info_bytes(1, 0, 0, 9);
    EXPECT_FALSE(decode_sm_info(SmpData(reserved))) << "SMState 4..15 is reserved";
}

TEST(PkeyDecode, ThirtyTwoBigEndianEntriesInTableOrder) {
    std::array<uint8_t, kSmpDataSize> d{};
    d[0] = 0xFF, d[1] = 0xFF;    // 0: default, full
    d[2] = 0x80, d[3] = 0x01;    // 1: 0x0001 full
    d[62] = 0x00, d[63] = 0x05;  // 31: 0x0005 limited
    auto keys = decode_pkey_block(SmpData(d));
    EXPECT_EQ(keys[0], 0xFFFF);
    EXPECT_EQ(keys[1], 0x8001);
    EXPECT_EQ(keys[2], 0);
    EXPECT_EQ(keys[31], 0x0005);
    EXPECT_EQ(membership_of({0xFFFF, 0x8001, 0x0005}, 0x0001), Membership::Full);
    EXPECT_EQ(membership_of({0xFFFF, 0x8001, 0x0005}, 0x0005), Membership::Limited);
    EXPECT_EQ(membership_of({0xFFFF}, 0x0005), Membership::None);
    EXPECT_EQ(parse_pkey("0x8001"), 0x8001);
    EXPECT_EQ(parse_pkey("32769"), 0x8001);
    EXPECT_FALSE(parse_pkey("0x10000"));
    EXPECT_FALSE(parse_pkey("0x"));
    EXPECT_EQ(format_pkey(0x7fff), "0x7fff");
}

/// A small leaf-spine fabric: an SM on h0001 (master) and one on h0005.
std::vector<Node> sm_nodes(SmState second = SmState::Standby) {
    auto nodes = testing::leaf_spine_nodes({.spines = 1, .leaves = 2, .hosts_per_leaf = 4});
    Port& a = *node_named(nodes, "h0001 HCA-1").port(1);
    a.capability_mask |= kCapIsSM;
    a.sm = SmInfo{a.guid, 1000, 0, SmState::Master};
    Port& b = *node_named(nodes, "h0005 HCA-1").port(1);
    b.capability_mask |= kCapIsSM;
    b.sm = SmInfo{b.guid, 80, 0, second};
    return nodes;
}

std::vector<std::string> sm_kinds(const std::vector<Finding>& fs) {
    std::vector<std::string> k;
    for (const Finding& f : fs) k.push_back(f.kind);
    std::sort(k.begin(), k.end());
    return k;
}

TEST(SmChecks, OneMasterAndTheStandbysPlanned) {
    Fabric f = *Fabric::build(sm_nodes());
    SmCheckInput in{f, true, 1, nullptr, 0};
    EXPECT_TRUE(check_subnet_managers(in).empty());
    EXPECT_EQ(sm_check_detail(in), "master h0001 HCA-1[1] (priority 0), 1 standby");
    in.planned_standby = 2;
    auto found = check_subnet_managers(in);
    ASSERT_EQ(sm_kinds(found), std::vector<std::string>{"sm_standby_missing"});
    EXPECT_NE(found[0].summary.find("1 standby SM where the plan asks for 2"), std::string::npos)
        << found[0].summary;
    in.sm_read = false;
    EXPECT_TRUE(check_subnet_managers(in).empty()) << "SMInfo not read: nothing to say";
}

TEST(SmChecks, TwoMastersNoMasterAndASilentSm) {
    Fabric two = *Fabric::build(sm_nodes(SmState::Master));
    auto found = check_subnet_managers({two, true, {}, nullptr, 0});
    ASSERT_EQ(sm_kinds(found), std::vector<std::string>{"sm_masters"});
    EXPECT_EQ(found[0].where.size(), 2U);

    auto nodes = sm_nodes();
    node_named(nodes, "h0001 HCA-1").port(1)->sm.reset();  // claims IsSM, does not answer
    Fabric silent = *Fabric::build(nodes);
    found = check_subnet_managers({silent, true, {}, nullptr, 0});
    EXPECT_EQ(sm_kinds(found), (std::vector<std::string>{"sm_no_master", "sm_not_answering"}));
}

TEST(SmChecks, AMasterWhoseActCountMovesOnlyByOurOwnQueriesIsInactive) {
    Fabric f = *Fabric::build(sm_nodes());
    const Node& h1 = *f.find("h0001 HCA-1");
    const PortRef at{h1.guid, 1};
    SmReadings after{{at, SmInfo{h1.port(1)->guid, 1001, 0, SmState::Master}}};
    auto found = check_subnet_managers({f, true, {}, &after, 20});
    ASSERT_EQ(sm_kinds(found), std::vector<std::string>{"sm_inactive"});
    EXPECT_EQ(found[0].evidence["act_count_after"], 1001);
    // Too short an interval to tell: no finding, and the check says so.
    EXPECT_TRUE(check_subnet_managers({f, true, {}, &after, 4}).empty());
    EXPECT_NE(sm_check_detail({f, true, {}, &after, 4}).find("too short"), std::string::npos);
    // Working: it swept in between.
    after[at].act_count = 1040;
    EXPECT_TRUE(check_subnet_managers({f, true, {}, &after, 20}).empty());
    // Gone since the sweep.
    SmReadings none;
    EXPECT_EQ(sm_kinds(check_subnet_managers({f, true, {}, &none, 20})),
              std::vector<std::string>{"sm_not_answering"});
}

Plan partition_plan() {
    auto plan = parse_plan(R"(fabscope_plan: 1
sm: {standby: 1}
partitions:
  - {name: compute, pkey: 0x8001, full: [h0001, h0002], limited: [h0003]}
  - {name: default, pkey: 0x7fff, full: [ALL]}
)",
                           "plan.yaml");
    EXPECT_TRUE(plan) << plan.error().message;
    return *plan;
}

std::vector<Node> partitioned_nodes() {
    auto nodes = testing::leaf_spine_nodes({.spines = 1, .leaves = 2, .hosts_per_leaf = 4});
    for (Node& n : nodes) {
        if (n.type == NodeType::CA) n.ports.front().pkeys = std::vector<uint16_t>{0xFFFF};
    }
    node_named(nodes, "h0001 HCA-1").port(1)->pkeys = {0xFFFF, 0x8001};
    node_named(nodes, "h0002 HCA-1").port(1)->pkeys = {0xFFFF, 0x8001};
    node_named(nodes, "h0003 HCA-1").port(1)->pkeys = {0xFFFF, 0x0001};
    return nodes;
}

TEST(PartitionChecks, HostsAsPlannedMakeNoFinding) {
    Plan plan = partition_plan();
    ASSERT_EQ(plan.partitions.size(), 2U);
    EXPECT_EQ(plan.partitions[0].pkey, 0x0001) << "the membership bit is the members' business";
    EXPECT_EQ(plan.sm_standby, 1);
    Fabric f = *Fabric::build(partitioned_nodes());
    EXPECT_TRUE(check_partitions(f, plan).empty());
    EXPECT_EQ(partitions_check_detail(f, plan), "2 partitions, 8 host ports");
}

TEST(PartitionChecks, MissingUnexpectedAndTheOtherMembershipNamed) {
    auto nodes = partitioned_nodes();
    node_named(nodes, "h0002 HCA-1").port(1)->pkeys = {0xFFFF};          // left out
    node_named(nodes, "h0003 HCA-1").port(1)->pkeys = {0xFFFF, 0x8001};  // full, not limited
    node_named(nodes, "h0008 HCA-1").port(1)->pkeys = {0xFFFF, 0x8001, 0x0009};  // not planned
    Fabric f = *Fabric::build(nodes);
    auto found = check_partitions(f, partition_plan());
    ASSERT_EQ(sm_kinds(found),
              (std::vector<std::string>{"partition_membership", "partition_missing",
                                        "partition_unexpected", "partition_unexpected"}));
    for (const Finding& x : found) {
        EXPECT_EQ(x.severity, Severity::Error);
        if (x.kind == "partition_missing") {
            EXPECT_EQ(x.summary.rfind("h0002 HCA-1[1]: not in partition compute (0x0001)", 0), 0U)
                << x.summary;
        }
        if (x.kind == "partition_membership") {
            EXPECT_NE(x.summary.find("full member of partition compute (0x0001) where the plan "
                                     "says limited"),
                      std::string::npos)
                << x.summary;
        }
    }
}

TEST(PartitionChecks, TheSwitchPortThatFiltersAHostsPartition) {
    auto nodes = partitioned_nodes();
    Node& leaf = node_named(nodes, "leaf01");
    for (uint8_t p = 1; p <= 4; ++p) leaf.port(p)->pkeys = std::vector<uint16_t>{0xFFFF, 0x8001};
    leaf.port(2)->pkeys = std::vector<uint16_t>{0xFFFF};  // h0002's traffic in 0x0001 dropped
    Fabric f = *Fabric::build(nodes);
    auto found = check_partitions(f, partition_plan());
    ASSERT_EQ(sm_kinds(found), std::vector<std::string>{"partition_filtered"});
    EXPECT_EQ(describe(f, found[0].where.at(0)), "leaf01[2]");
}

TEST(PartitionPlan, BadPartitionsAreNamedWithTheirLine) {
    auto dup = parse_plan(
        "fabscope_plan: 1\npartitions:\n  - {pkey: 0x0001, full: [a]}\n"
        "  - {pkey: 0x8001, full: [b]}\n",
        "p.yaml");
    ASSERT_FALSE(dup);
    EXPECT_NE(dup.error().message.find("p.yaml:4"), std::string::npos) << dup.error().message;
    EXPECT_NE(dup.error().message.find("0x0001 is in two partitions"), std::string::npos);
    auto bad = parse_plan("fabscope_plan: 1\npartitions:\n  - {pkey: 0x8000, full: [a]}\n", "p");
    ASSERT_FALSE(bad);
    auto sm = parse_plan("fabscope_plan: 1\nsm: {standby: 99}\n", "p");
    ASSERT_FALSE(sm);
}

TEST(PartitionPlan, PlanFromFabricKeepsStandbysAndPartitionsAndReadsBack) {
    auto nodes = partitioned_nodes();
    auto sms = sm_nodes();
    node_named(nodes, "h0001 HCA-1").port(1)->sm = node_named(sms, "h0001 HCA-1").port(1)->sm;
    node_named(nodes, "h0005 HCA-1").port(1)->sm = node_named(sms, "h0005 HCA-1").port(1)->sm;
    Fabric f = *Fabric::build(nodes);
    Plan p = plan_from_fabric(f, classify_tiers(f));
    EXPECT_EQ(p.sm_standby, 1);
    ASSERT_EQ(p.partitions.size(), 2U);
    EXPECT_EQ(p.partitions[0].pkey, 0x0001);
    EXPECT_EQ(p.partitions[0].full, (std::vector<std::string>{"h0001", "h0002"}));
    EXPECT_EQ(p.partitions[0].limited, std::vector<std::string>{"h0003"});
    EXPECT_EQ(p.partitions[1].full, std::vector<std::string>{"ALL"});
    auto back = parse_plan(plan_to_yaml(p), "round-trip");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_TRUE(check_partitions(f, *back).empty());
    EXPECT_EQ(back->sm_standby, 1);
}

TEST(SnapshotSubnet, SmInfoAndPkeysRoundTrip) {
    Snapshot s;
    s.fabric = *Fabric::build(sm_nodes());
    s.source.sm_read = true;
    auto nodes = sm_nodes();
    node_named(nodes, "h0002 HCA-1").port(1)->pkeys = std::vector<uint16_t>{0xFFFF, 0x0003};
    s.fabric = *Fabric::build(nodes);
    auto back = snapshot_from_json(snapshot_to_json(s));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_TRUE(back->source.sm_read);
    EXPECT_FALSE(back->source.pkeys_read);
    const Port* p = back->fabric.find("h0001 HCA-1")->port(1);
    ASSERT_TRUE(p->sm);
    EXPECT_EQ(p->sm->state, SmState::Master);
    EXPECT_EQ(p->sm->act_count, 1000U);
    EXPECT_EQ(*back->fabric.find("h0002 HCA-1")->port(1)->pkeys,
              (std::vector<uint16_t>{0xFFFF, 0x0003}));
    auto j = snapshot_to_json(s);
    j["nodes"][0]["ports"][0]["pkeys"] = {"0x0000"};
    EXPECT_FALSE(snapshot_from_json(j)) << "an unused entry is not a P_Key";
}

TEST(SweepSubnet, SmInfoFromThePortsClaimingIsSmAndPkeysWhenAsked) {
    auto nodes = sm_nodes();
    for (Node& n : nodes) {
        if (n.type == NodeType::CA) n.ports.front().pkeys = std::vector<uint16_t>{0xFFFF};
    }
    // Past the first block of 32: the sweep reads PartitionCap's two blocks.
    std::vector<uint16_t> many(40, 0);
    many[0] = 0xFFFF;
    many[35] = 0x8002;
    node_named(nodes, "h0006 HCA-1").port(1)->pkeys = many;
    node_named(nodes, "leaf02").port(2)->pkeys = std::vector<uint16_t>{0xFFFF};
    testing::program_min_hop_routes(nodes);
    Fabric fabric = *Fabric::build(nodes);
    testing::FakeClock clock;
    const Node& local = nodes.front();
    testing::FakeFabric fake(fabric, local.guid, 1, clock);
    LocalPort from;
    from.ca = "fake0";
    from.port = 1;
    auto plain = sweep_fabric(fake, clock, from, {});
    ASSERT_TRUE(plain);
    EXPECT_TRUE(plain->snapshot.source.sm_read);
    EXPECT_FALSE(plain->snapshot.source.pkeys_read);
    const Fabric& got = plain->snapshot.fabric;
    EXPECT_EQ(got.find("h0005 HCA-1")->port(1)->sm->state, SmState::Standby);
    EXPECT_EQ(got.find("h0001 HCA-1")->port(1)->sm->act_count, 1000U);
    EXPECT_FALSE(got.find("h0002 HCA-1")->port(1)->sm) << "no IsSM, not asked";
    EXPECT_FALSE(got.find("h0002 HCA-1")->port(1)->pkeys) << "P_Keys only when asked";

    SweepOptions o;
    o.pkeys = true;
    auto with = sweep_fabric(fake, clock, from, o);
    ASSERT_TRUE(with);
    EXPECT_TRUE(with->problems.empty());
    EXPECT_TRUE(with->snapshot.source.pkeys_read);
    const Fabric& f = with->snapshot.fabric;
    EXPECT_EQ(*f.find("h0002 HCA-1")->port(1)->pkeys, std::vector<uint16_t>{0xFFFF});
    EXPECT_EQ(*f.find("h0006 HCA-1")->port(1)->pkeys, (std::vector<uint16_t>{0xFFFF, 0x8002}));
    // The fake's switches enforce no partitions (PartitionEnforcementCap 0): not asked.
    EXPECT_FALSE(f.find("leaf02")->port(2)->pkeys);
}

}  // namespace
}  // namespace fabscope
