// Planes: one snapshot holding several subnets (model/plane.h).

#include "model/plane.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "check/identity_checks.h"
#include "discover/smp_decode.h"
#include "model/snapshot.h"
#include "schema_check.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using nlohmann::json;

// A leaf-spine plane whose GUIDs are moved by `offset` and whose names end in
// `suffix`, as the second HCA of every host and its own switches would be.
std::vector<Node> plane_nodes(Guid offset, const std::string& suffix) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    for (Node& n : nodes) {
        n.guid += offset;
        n.description += suffix;
        for (Port& p : n.ports) {
            p.guid += offset;
            if (p.peer) p.peer->node += offset;
        }
    }
    return nodes;
}

Snapshot plane_snapshot(Guid offset, const std::string& suffix, uint64_t prefix) {
    auto nodes = plane_nodes(offset, suffix);
    Node& sm_host = testing::node_named(nodes, "h0001 HCA-1" + suffix);
    sm_host.port(1)->capability_mask |= kCapIsSM;
    Snapshot s;
    s.source.method = "sweep";
    s.source.ca = "mlx5_" + std::to_string(offset >> 24);
    s.source.ca_port = 1;
    s.fabric = *Fabric::build(nodes);
    Plane p = plane_of(s.fabric, prefix, sm_host.port(1)->lid);
    p.ca = s.source.ca;
    p.ca_port = 1;
    s.planes = {p};
    return s;
}

Snapshot two_planes() {
    std::vector<Snapshot> parts;
    parts.push_back(plane_snapshot(0, "", 0xfe80000000000000ULL));
    parts.push_back(plane_snapshot(1ULL << 24, "-p2", 0xfe80000000000002ULL));
    auto merged = merge_planes(std::move(parts));
    EXPECT_TRUE(merged) << merged.error().message;
    return std::move(merged).value();
}

TEST(Plane, SmAtTheLocalPortsSmLidWithIsSmMakesAManagedPlane) {
    Snapshot s = plane_snapshot(0, "", 0xfe80000000000000ULL);
    const Node* host = s.fabric.find("h0001 HCA-1");
    ASSERT_NE(host, nullptr);
    ASSERT_EQ(s.planes.size(), 1u);
    EXPECT_TRUE(s.planes[0].managed);
    EXPECT_EQ(s.planes[0].sm_lid, host->lid());
    EXPECT_EQ(s.planes[0].sm_guid, host->ports.front().guid);
    // The LID names a port that runs no SM (it stopped): unmanaged.
    const Node* other = s.fabric.find("h0002 HCA-1");
    Plane stale = plane_of(s.fabric, 0, other->lid());
    EXPECT_FALSE(stale.managed);
    EXPECT_EQ(stale.sm_guid, 0u);
    EXPECT_EQ(stale.sm_lid, other->lid());
    // No SM LID at all (a subnet no SM ever swept).
    EXPECT_FALSE(plane_of(s.fabric, 0, 0).managed);
}

TEST(Plane, MergedPlanesKeepTheirNodesApart) {
    Snapshot s = two_planes();
    ASSERT_EQ(s.planes.size(), 2u);
    EXPECT_EQ(s.source.method, "planes");
    EXPECT_EQ(s.fabric.nodes().size(), 2 * (2u + 2u + 4u));
    EXPECT_EQ(s.fabric.find("h0001 HCA-1")->plane, 0);
    EXPECT_EQ(s.fabric.find("h0001 HCA-1-p2")->plane, 1);
    EXPECT_EQ(s.fabric.find("spine02-p2")->plane, 1);
    EXPECT_EQ(s.planes[1].subnet_prefix, 0xfe80000000000002ULL);
    EXPECT_TRUE(has_port_guid(s.fabric, s.fabric.find("h0001 HCA-1-p2")->ports.front().guid));
    EXPECT_FALSE(has_port_guid(s.fabric, 0xdeadbeef));
}

TEST(Plane, LidsRepeatAcrossPlanesButNotWithinOne) {
    Snapshot s = two_planes();
    // Both planes' SMs numbered from LID 1: no finding for that.
    EXPECT_EQ(s.fabric.find("leaf01")->lid(), s.fabric.find("leaf01-p2")->lid());
    EXPECT_TRUE(check_identities(s.fabric).empty());
    // The same LID twice on one plane still is one.
    std::vector<Node> nodes = s.fabric.nodes();
    testing::node_named(nodes, "h0002 HCA-1-p2").port(1)->lid =
        s.fabric.find("h0001 HCA-1-p2")->lid();
    auto dup = check_identities(*Fabric::build(nodes));
    ASSERT_EQ(dup.size(), 1u);
    EXPECT_EQ(dup[0].kind, "duplicate_lid");
}

TEST(Plane, TheSamePlaneTwiceIsRefused) {
    std::vector<Snapshot> parts;
    parts.push_back(plane_snapshot(0, "", 0));
    parts.push_back(plane_snapshot(0, "", 0));
    auto merged = merge_planes(std::move(parts));
    ASSERT_FALSE(merged);
    EXPECT_NE(merged.error().message.find("planes 1 and 2"), std::string::npos)
        << merged.error().message;
}

TEST(Plane, RoundTripsThroughTheStreamedSnapshot) {
    Snapshot s = two_planes();
    std::ostringstream out;
    write_snapshot(out, s, json::object());
    json doc = json::parse(out.str());
    for (const auto& e : testing::schema_errors(doc, "snapshot.schema.json")) ADD_FAILURE() << e;
    auto back = snapshot_from_json(doc);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->planes, s.planes);
    for (const Node& n : s.fabric.nodes()) EXPECT_EQ(back->fabric.node(n.guid)->plane, n.plane);
    EXPECT_EQ(snapshot_to_json(*back), snapshot_to_json(s));
    EXPECT_EQ(doc["planes"][1]["subnet_prefix"], "0xfe80000000000002");
    EXPECT_EQ(doc["planes"][0]["managed"], true);
}

TEST(Plane, ASnapshotWithoutPlanesIsOnePlane) {
    Snapshot s;
    s.source.ca = "mlx5_0";
    s.source.ca_port = 1;
    s.fabric = *Fabric::build(plane_nodes(0, ""));
    json doc = snapshot_to_json(s);
    EXPECT_FALSE(doc.contains("planes"));
    for (const json& n : doc["nodes"]) EXPECT_FALSE(n.contains("plane"));
    auto back = snapshot_from_json(doc);
    ASSERT_TRUE(back);
    auto planes = planes_of(*back);
    ASSERT_EQ(planes.size(), 1u);
    EXPECT_EQ(planes[0].ca, "mlx5_0");
    EXPECT_FALSE(planes[0].managed);
}

TEST(Plane, BadPlanesAreRefusedWithTheirPath) {
    json doc = snapshot_to_json(two_planes());
    json beyond = doc;
    beyond["nodes"][0]["plane"] = 2;
    auto r = snapshot_from_json(beyond);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("has 2 planes"), std::string::npos) << r.error().message;
    // A cable from one plane into another: they would be one subnet.
    json crossed = doc;
    for (json& n : crossed["nodes"]) {
        if (n["description"] == "leaf01") n["plane"] = 1;
    }
    r = snapshot_from_json(crossed);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("cables plane"), std::string::npos) << r.error().message;
    json misordered = doc;
    misordered["planes"][1]["index"] = 0;
    EXPECT_FALSE(snapshot_from_json(misordered));
}

}  // namespace
}  // namespace fabscope
