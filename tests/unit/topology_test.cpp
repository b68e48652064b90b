#include "lab/topology.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(Topology, GeneratesCountsThatMatchTheSpec) {
    LeafSpineSpec spec{.spines = 18, .leaves = 36, .hosts_per_leaf = 18, .links_per_pair = 1};
    ASSERT_TRUE(validate(spec));
    std::string net = generate_leaf_spine(spec);
    NetFileStats st = count_net_file(net);
    EXPECT_EQ(st.cas, 648);
    EXPECT_EQ(st.switches, 54);
    EXPECT_EQ(st.ports, 648 + 36 * (36 + 1) + 18 * (36 + 1));
    auto names = net_file_node_names(net);
    EXPECT_EQ(names.front(), "h0001");
    EXPECT_EQ(names.back(), "spine18");
}

TEST(Topology, LeafAndSpinePortsAgree) {
    LeafSpineSpec spec{.spines = 2, .leaves = 3, .hosts_per_leaf = 2, .links_per_pair = 2};
    std::string net = generate_leaf_spine(spec);
    // leaf02, spine 2, second link: leaf port 2+2+2 = 6, spine port (2-1)*2+2 = 4.
    EXPECT_NE(net.find("[6]\t\"spine02\"[4]"), std::string::npos) << net;
    EXPECT_NE(net.find("[4]\t\"leaf02\"[6]"), std::string::npos);
    EXPECT_NE(net.find("width=3\nspeed=7\nextspeed=7"), std::string::npos);
}

TEST(Topology, RejectsWhatTheSimulatorCannotDo) {
    EXPECT_FALSE(validate({.spines = 0}));
    EXPECT_FALSE(validate({.spines = 200, .leaves = 2, .hosts_per_leaf = 60}));  // 260 leaf ports
    LeafSpineSpec ndr;
    ndr.speed = Speed::NDR;
    auto r = validate(ndr);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("cannot simulate NDR"), std::string::npos);
}

TEST(Topology, CountsAHandWrittenNetFile) {
    const char* net = R"(# comment
Switch 24 "S-1" # "sw one" enhanced port 0
[1] "H-1"[1]
Hca 2 "H-1" # "host one"
[1] "S-1"[1]
Rt 2 "R-1"
)";
    NetFileStats st = count_net_file(net);
    EXPECT_EQ(st.switches, 1);
    EXPECT_EQ(st.cas, 1);
    EXPECT_EQ(st.routers, 1);
    EXPECT_EQ(st.ports, 25 + 2 + 2);
    EXPECT_EQ(net_file_node_names(net), (std::vector<std::string>{"S-1", "H-1", "R-1"}));
}

TEST(Topology, PlanesAreSeparateLeafSpinesWithAnHcaPerHostOnEach) {
    LeafSpineSpec spec{.spines = 2, .leaves = 2, .hosts_per_leaf = 2};
    spec.planes = 2;
    ASSERT_TRUE(validate(spec));
    std::string net = generate_leaf_spine(spec);
    NetFileStats st = count_net_file(net);
    EXPECT_EQ(st.switches, 2 * 4);
    EXPECT_EQ(st.cas, 2 * 4);
    // Plane 1 keeps the one-plane names; plane 2 has its own switches.
    auto p1 = net_file_peer(net, "h0001", 1);
    ASSERT_TRUE(p1);
    EXPECT_EQ(p1->node, "leaf01");
    auto p2 = net_file_peer(net, "h0001p2", 1);
    ASSERT_TRUE(p2);
    EXPECT_EQ(p2->node, "leaf01p2");
    auto up = net_file_peer(net, "leaf02p2", 3);
    ASSERT_TRUE(up);
    EXPECT_EQ(up->node, "spine01p2");
    // The second HCA of host h0001, and the GUID its plane's SM binds to.
    EXPECT_NE(net.find("\"h0001p2\"\t# \"h0001 HCA-2\""), std::string::npos) << net;
    EXPECT_EQ(plane_attach_node(2), "h0001p2");
    EXPECT_NE(net.find(fmt::format("[1]({:x})", plane_sm_port_guid(2))), std::string::npos);
    EXPECT_NE(plane_sm_port_guid(1), plane_sm_port_guid(2));
    // One plane: the file is what it always was.
    EXPECT_EQ(generate_leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2}).find("caguid"),
              std::string::npos);
    spec.planes = kMaxLabPlanes + 1;
    EXPECT_FALSE(validate(spec));
}

}  // namespace
}  // namespace fabscope
