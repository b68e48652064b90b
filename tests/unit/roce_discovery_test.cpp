// RoCE discovery's pure parts: LLDP records from what liblldpctl hands over
// (port names and numbers, the DCBX PFC TLV), a fabric assembled from host
// inventories and neighbours, the host reports that carry them between
// hosts, and validate --plan finding a host moved to another leaf port.

#include <gtest/gtest.h>

#include <algorithm>

#include "check/validate.h"
#include "host/roce_fabric.h"
#include "host/roce_host_json.h"
#include "model/plan.h"
#include "model/tiers.h"

namespace fabscope::host {
namespace {

LldpRaw raw(const std::string& ifname, const std::string& leaf, const std::string& mac,
            const std::string& port) {
    LldpRaw r;
    r.interface = ifname;
    r.chassis_id_subtype = "mac";
    r.chassis_id = mac;
    r.system_name = leaf;
    r.system_description = "Debian GNU/Linux";
    r.port_id_subtype = "ifname";
    r.port_id = port;
    r.port_description = port;
    return r;
}

/// A host with one rxe device whose port 1 is on netdev eth0, and the leaf
/// port LLDP sees there.
RoceHost make_host(const std::string& name, const std::string& guid, const std::string& leaf,
                   const std::string& leaf_mac, const std::string& leaf_port) {
    RoceHost h;
    h.name = name;
    RdmaDevice d;
    d.name = "rxe_" + name;
    d.node_guid = guid;
    HostPort p;
    p.port = 1;
    p.state_code = 4;
    p.state = "ACTIVE";
    p.phys_state = "LinkUp";
    p.link_layer = "Ethernet";
    p.width = Width::X4;
    p.speed = Speed::QDR;
    p.active_mtu = 1024;
    p.netdev = NetDev{"eth0", 1500, "up"};
    d.ports.push_back(p);
    h.inventory.devices.push_back(d);
    if (!leaf.empty()) h.neighbours.push_back(to_neighbour(raw("eth0", leaf, leaf_mac, leaf_port)));
    return h;
}

const char* kL1 = "52:54:00:00:01:00";
const char* kL2 = "52:54:00:00:02:00";

std::vector<RoceHost> two_leaves() {
    return {make_host("a1", "5054:00ff:fe00:0a01", "l1", kL1, "pa1"),
            make_host("a2", "5054:00ff:fe00:0a02", "l1", kL1, "pa2"),
            make_host("b1", "5054:00ff:fe00:0b01", "l2", kL2, "pb1"),
            make_host("b2", "5054:00ff:fe00:0b02", "l2", kL2, "pb2")};
}

std::vector<std::string> kinds(const std::vector<Finding>& fs) {
    std::vector<std::string> k;
    k.reserve(fs.size());
    for (const Finding& f : fs) k.push_back(f.kind);
    std::sort(k.begin(), k.end());
    return k;
}

TEST(Lldp, PortNamesAndNumbers) {
    EXPECT_EQ(trailing_port_number("swp12"), 12);
    EXPECT_EQ(trailing_port_number("Ethernet1/1/3"), 3);
    EXPECT_EQ(trailing_port_number("pa1"), 1);
    EXPECT_FALSE(trailing_port_number("mgmt"));
    EXPECT_FALSE(trailing_port_number("eth255"));
    EXPECT_FALSE(trailing_port_number("x00000001"));
    EXPECT_FALSE(trailing_port_number(""));

    // A MAC port ID names no port: the description does.
    LldpRaw r = raw("eth0", "leaf01", kL1, "swp7");
    r.port_id_subtype = "mac";
    r.port_id = "52:54:00:00:01:07";
    LldpNeighbour n = to_neighbour(r);
    EXPECT_EQ(n.port_name, "swp7");
    EXPECT_EQ(n.port_number, 7);
    r.port_id_subtype = "local";
    r.port_id = "Ethernet48";
    EXPECT_EQ(to_neighbour(r).port_name, "Ethernet48");
    EXPECT_EQ(to_neighbour(r).port_number, 48);
    // Text off the wire is cleaned before anyone prints it.
    r.system_name = "leaf\x1b[2J01";
    EXPECT_EQ(to_neighbour(r).system_name, "leaf?[2J01");
}

TEST(Lldp, PfcAndOtherDcbxTlvs) {
    // willing, capability 8, PFC on priorities 3 and 4
    auto pfc = decode_pfc(std::vector<uint8_t>{0x88, 0x18});
    ASSERT_TRUE(pfc);
    EXPECT_TRUE(pfc->willing);
    EXPECT_FALSE(pfc->mbc);
    EXPECT_EQ(pfc->capability, 8);
    EXPECT_EQ(pfc->priorities(), "3,4");
    EXPECT_FALSE(decode_pfc(std::vector<uint8_t>{0x08}));
    EXPECT_EQ(decode_pfc(std::vector<uint8_t>{0x40, 0x00})->priorities(), "none");

    LldpRaw r = raw("eth0", "leaf01", kL1, "swp1");
    r.org_tlvs.push_back({0x0080c2, 0x09, {0x00, 0x00, 0x00, 0x00}});  // ETS configuration
    r.org_tlvs.push_back({0x0080c2, 0x0b, {0x08, 0x08}});              // PFC on 3
    r.org_tlvs.push_back({0x001b21, 0x02, {0x01}});                    // CEE DCBX
    r.org_tlvs.push_back({0x00120f, 0x01, {0x03}});                    // 802.3: no DCBX
    LldpNeighbour n = to_neighbour(r);
    ASSERT_TRUE(n.pfc);
    EXPECT_EQ(n.pfc->priorities(), "3");
    EXPECT_EQ(n.dcbx, (std::vector<std::string>{"ETS configuration", "PFC", "CEE DCBX"}));
    // A short PFC TLV is named but not decoded.
    r.org_tlvs = {{0x0080c2, 0x0b, {0x08}}};
    n = to_neighbour(r);
    EXPECT_FALSE(n.pfc);
    EXPECT_EQ(n.dcbx, std::vector<std::string>{"PFC"});
}

TEST(RoceFabric, Identities) {
    EXPECT_EQ(parse_sysfs_guid("5054:00ff:fe00:0a01"), Guid{0x505400fffe000a01});
    EXPECT_FALSE(parse_sysfs_guid("5054:00ff:fe00"));
    EXPECT_FALSE(parse_sysfs_guid("5054:00ff:fe00:0a0g"));
    EXPECT_EQ(chassis_guid("mac", "52:54:00:00:01:00"), Guid{0x525400fffe000100});
    EXPECT_NE(chassis_guid("local", "leaf01"), chassis_guid("local", "leaf02"));
    EXPECT_EQ(chassis_guid("local", "leaf01"), chassis_guid("local", "leaf01"));
}

TEST(RoceFabric, TheAddressAHostTracesFromIsItsFirstRoceV2Gid) {
    EXPECT_EQ(gid_text_ipv4("0000:0000:0000:0000:0000:ffff:0a09:0b02"), "10.9.11.2");
    EXPECT_EQ(gid_text_ipv4("fe80:0000:0000:0000:5054:00ff:fe00:0a01"), "");
    EXPECT_EQ(gid_text_ipv4("0000:0000:0000:0000:0000:ffff:0a09"), "");
    EXPECT_EQ(gid_text_ipv4("0000:0000:0000:0000:0000:fffe:0a09:0b02"), "");
    RoceHost h = make_host("a1", "5054:00ff:fe00:0a01", "l1", kL1, "pa1");
    EXPECT_FALSE(roce_v2_address(h.inventory));
    HostPort& p = h.inventory.devices[0].ports[0];
    p.gids.push_back({0, "fe80:0000:0000:0000:5054:00ff:fe00:0a01", "RoCE v2", "eth0"});
    p.gids.push_back({1, "0000:0000:0000:0000:0000:ffff:0a09:0b02", "IB/RoCE v1", "eth0"});
    p.gids.push_back({2, "0000:0000:0000:0000:0000:ffff:0a09:0b02", "RoCE v2", "eth0"});
    auto a = roce_v2_address(h.inventory);
    ASSERT_TRUE(a);
    EXPECT_EQ(a->device, "rxe_a1");
    EXPECT_EQ(a->port, 1);
    EXPECT_EQ(a->address, "10.9.11.2");
    p.state_code = 1;  // down: no address to trace from
    EXPECT_FALSE(roce_v2_address(h.inventory));
}

TEST(RoceFabric, HostsAndLeavesFromLldp) {
    auto a = assemble_roce_fabric(two_leaves());
    ASSERT_TRUE(a) << a.error().message;
    const Fabric& f = a->fabric;
    EXPECT_TRUE(a->problems.empty());
    ASSERT_EQ(f.nodes().size(), 6U);
    ASSERT_EQ(f.links().size(), 4U);
    Tiers t = classify_tiers(f);
    EXPECT_EQ(t.count(0), 4U);
    EXPECT_EQ(t.count(1), 2U);
    const Node* l1 = f.find("l1");
    ASSERT_TRUE(l1);
    EXPECT_EQ(l1->type, NodeType::Switch);
    EXPECT_EQ(l1->guid, chassis_guid("mac", kL1));
    const Node* a2 = f.find("a2 rxe_a2");
    ASSERT_TRUE(a2);
    EXPECT_EQ(a2->guid, Guid{0x505400fffe000a02});
    ASSERT_TRUE(a2->port(1) && a2->port(1)->peer);
    EXPECT_EQ(*a2->port(1)->peer, (PortRef{l1->guid, 2}));
    EXPECT_EQ(a2->port(1)->state, PortState::Active);
    EXPECT_EQ(a2->port(1)->width_active, Width::X4);
    EXPECT_EQ(describe(f, *a2->port(1)->peer), "l1[2]");
    // The leaf side carries the link's rate, so link checks see both ends alike.
    EXPECT_EQ(l1->port(2)->speed_active, Speed::QDR);
}

TEST(RoceFabric, EveryHostEvenWithoutANeighbour) {
    auto hosts = two_leaves();
    hosts.push_back(make_host("c1", "5054:00ff:fe00:0c01", "", "", ""));
    hosts.push_back(make_host("c2", "5054:00ff:fe00:0c02", "l2", kL2, "pc1"));
    hosts.back().lldp_error = "lldp: no lldpd answers on /run/lldpd.socket";
    hosts.back().neighbours.clear();
    auto a = assemble_roce_fabric(hosts);
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(a->fabric.nodes().size(), 8U);
    EXPECT_EQ(
        kinds(a->problems),
        (std::vector<std::string>{"lldp_no_neighbour", "lldp_no_neighbour", "lldp_unavailable"}));
    ASSERT_TRUE(a->fabric.find("c1 rxe_c1"));
    EXPECT_FALSE(a->fabric.find("c1 rxe_c1")->port(1)->peer);
}

TEST(RoceFabric, NeighboursOnlyOnRdmaNetdevs) {
    RoceHost h = make_host("a1", "5054:00ff:fe00:0a01", "l1", kL1, "pa1");
    h.neighbours.push_back(to_neighbour(raw("mgmt0", "oob-switch", kL2, "ge-0/0/1")));
    auto kept = rdma_netdev_neighbours(h.inventory, h.neighbours);
    ASSERT_EQ(kept.size(), 1U);
    EXPECT_EQ(kept[0].netdev, "eth0");
}

TEST(RoceFabric, PortsWithoutNumbersAndSharedPorts) {
    std::vector<RoceHost> hosts{make_host("a1", "5054:00ff:fe00:0a01", "l1", kL1, "uplink"),
                                make_host("a2", "5054:00ff:fe00:0a02", "l1", kL1, "swp3"),
                                make_host("a3", "5054:00ff:fe00:0a03", "l1", kL1, "swp3")};
    auto a = assemble_roce_fabric(hosts);
    ASSERT_TRUE(a) << a.error().message;
    EXPECT_EQ(kinds(a->problems),
              (std::vector<std::string>{"lldp_port_unnumbered", "lldp_shared_leaf_port"}));
    const Node* l1 = a->fabric.find("l1");
    ASSERT_TRUE(l1);
    EXPECT_TRUE(l1->port(3));
    EXPECT_TRUE(l1->port(4));  // "uplink": the next number free
    EXPECT_EQ(a->fabric.links().size(), 2U);
}

TEST(RoceFabric, ValidatePlanFindsAHostOnAnotherLeafPort) {
    auto good = assemble_roce_fabric(two_leaves());
    ASSERT_TRUE(good) << good.error().message;
    Tiers t = classify_tiers(good->fabric);
    Plan plan = plan_from_fabric(good->fabric, t);
    Validation clean = validate(ValidationInput{
        good->fabric, t, {}, nullptr, nullptr, &plan, nullptr, default_thresholds()});
    EXPECT_FALSE(clean.failed()) << (clean.findings.empty() ? "" : clean.findings[0].summary);

    // a1 and a2 swap their leaf ports.
    auto hosts = two_leaves();
    hosts[0].neighbours = {to_neighbour(raw("eth0", "l1", kL1, "pa2"))};
    hosts[1].neighbours = {to_neighbour(raw("eth0", "l1", kL1, "pa1"))};
    auto moved = assemble_roce_fabric(hosts);
    ASSERT_TRUE(moved) << moved.error().message;
    Tiers mt = classify_tiers(moved->fabric);
    Validation v = validate(ValidationInput{
        moved->fabric, mt, {}, nullptr, nullptr, &plan, nullptr, default_thresholds()});
    EXPECT_TRUE(v.failed());
    ASSERT_EQ(kinds(v.findings), std::vector<std::string>{"cables_swapped"});
    EXPECT_NE(v.findings[0].summary.find("a1 rxe_a1[1] goes to l1[2]"), std::string::npos)
        << v.findings[0].summary;

    // a1 alone moved to a port the plan does not have.
    hosts[0].neighbours = {to_neighbour(raw("eth0", "l1", kL1, "pa5"))};
    hosts[1].neighbours = {to_neighbour(raw("eth0", "l1", kL1, "pa2"))};
    auto one = assemble_roce_fabric(hosts);
    ASSERT_TRUE(one) << one.error().message;
    Tiers ot = classify_tiers(one->fabric);
    Validation v1 = validate(ValidationInput{
        one->fabric, ot, {}, nullptr, nullptr, &plan, nullptr, default_thresholds()});
    auto k = kinds(v1.findings);
    EXPECT_TRUE(std::count(k.begin(), k.end(), "miswired") >= 1) << ::testing::PrintToString(k);

    // b2 did not report (its rank died, its report is missing): the plan misses it.
    auto fewer = two_leaves();
    fewer.pop_back();
    auto gone = assemble_roce_fabric(fewer);
    ASSERT_TRUE(gone) << gone.error().message;
    Tiers gt = classify_tiers(gone->fabric);
    Validation vg = validate(ValidationInput{
        gone->fabric, gt, {}, nullptr, nullptr, &plan, nullptr, default_thresholds()});
    auto gk = kinds(vg.findings);
    EXPECT_TRUE(std::count(gk.begin(), gk.end(), "node_missing") == 1)
        << ::testing::PrintToString(gk);
}

TEST(RoceHostJson, RoundTrip) {
    RoceHost h = make_host("a1", "5054:00ff:fe00:0a01", "l1", kL1, "pa1");
    h.inventory.devices[0].ports[0].gids.push_back(
        {1, "0000:0000:0000:0000:0000:ffff:0a09:0b02", "RoCE v2", "eth0"});
    LldpRaw r = raw("eth0", "l1", kL1, "pa1");
    r.org_tlvs.push_back({0x0080c2, 0x0b, {0x88, 0x18}});
    h.neighbours = {to_neighbour(r)};
    h.lldp_error = "";
    auto back = roce_host_from_json(nlohmann::json::parse(roce_host_to_json(h).dump()));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->name, "a1");
    ASSERT_EQ(back->inventory.devices.size(), 1U);
    const HostPort& p = back->inventory.devices[0].ports[0];
    EXPECT_TRUE(p.active());
    EXPECT_TRUE(p.roce());
    EXPECT_EQ(p.width, Width::X4);
    EXPECT_EQ(p.netdev->name, "eth0");
    // The GID table travels: rank 0 traces from and to these addresses.
    ASSERT_EQ(p.gids.size(), 1U);
    EXPECT_EQ(roce_v2_address(back->inventory)->address, "10.9.11.2");
    ASSERT_EQ(back->neighbours.size(), 1U);
    EXPECT_EQ(back->neighbours[0].port_number, 1);
    ASSERT_TRUE(back->neighbours[0].pfc);
    EXPECT_EQ(back->neighbours[0].pfc->priorities(), "3,4");
    // The same fabric from the round-tripped host.
    auto a = assemble_roce_fabric({*back});
    ASSERT_TRUE(a);
    EXPECT_EQ(a->fabric.links().size(), 1U);

    auto bad = roce_host_to_json(h);
    bad["lldp"][0]["pfc"]["enabled"] = nlohmann::json::array({9});
    auto e = roce_host_from_json(bad);
    ASSERT_FALSE(e);
    EXPECT_NE(e.error().message.find("0..7"), std::string::npos) << e.error().message;
    EXPECT_FALSE(roce_host_from_json(nlohmann::json{{"format", "fabscope-snapshot"}}));

    // A GID table longer than any device has: refused, not read.
    auto huge = roce_host_to_json(h);
    nlohmann::json& gids = huge["inventory"]["devices"][0]["ports"][0]["gids"];
    for (int i = 0; i < 1025; ++i) gids.push_back(gids[0]);
    auto g = roce_host_from_json(huge);
    ASSERT_FALSE(g);
    EXPECT_NE(g.error().message.find("more than 1024 GID entries"), std::string::npos)
        << g.error().message;
}

}  // namespace
}  // namespace fabscope::host
