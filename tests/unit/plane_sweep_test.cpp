// sweep_planes: one sweep per plane, a second port on a swept plane skipped,
// a port that cannot be swept a finding, an SM-less plane unmanaged.

#include "discover/plane_sweep.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

#include "discover/smp_decode.h"
#include "test_fabrics.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

// Plane k: the lab's leaf-spine with GUIDs moved by k << 24.
std::vector<Node> plane(int k, bool with_sm) {
    auto nodes = testing::leaf_spine_nodes({.spines = 1, .leaves = 2, .hosts_per_leaf = 2});
    const Guid offset = static_cast<Guid>(k) << 24;
    for (Node& n : nodes) {
        n.guid += offset;
        n.description.append("-").append(std::to_string(k));
        for (Port& p : n.ports) {
            p.guid += offset;
            if (p.peer) p.peer->node += offset;
        }
    }
    if (with_sm)
        testing::node_named(nodes, fmt::format("h0001 HCA-1-{}", k)).port(1)->capability_mask |=
            kCapIsSM;
    return nodes;
}

LocalPort port_on(const std::vector<Node>& nodes, const std::string& host, const std::string& ca,
                  uint64_t prefix) {
    const Node* h = nullptr;
    for (const Node& n : nodes) h = n.description == host ? &n : h;
    LocalPort lp;
    lp.ca = ca;
    lp.port = 1;
    lp.port_guid = h->ports.front().guid;
    lp.lid = h->ports.front().lid;
    lp.sm_lid = 0;
    lp.subnet_prefix = prefix;
    return lp;
}

TEST(PlaneSweep, SweepsEachPlaneOnceAndTellsManagedFromUnmanaged) {
    std::map<int, std::vector<Node>> planes{{1, plane(1, true)}, {2, plane(2, false)}};
    const Lid sm_lid = Fabric::build(planes[1])->find("h0001 HCA-1-1")->lid();
    std::vector<LocalPort> ports{
        port_on(planes[1], "h0001 HCA-1-1", "mlx5_0", 0xfe80000000000000ULL),
        port_on(planes[1], "h0002 HCA-1-1", "mlx5_1",
                0xfe80000000000000ULL),  // the same plane again
        port_on(planes[2], "h0001 HCA-1-2", "mlx5_2", 0xfe80000000000000ULL),
        port_on(planes[2], "h0001 HCA-1-2", "mlx5_3", 0),  // cannot be swept
    };
    ports[0].sm_lid = sm_lid;
    ports[1].sm_lid = sm_lid;
    ports[3].port_guid = 0x77;  // on no plane swept
    std::vector<std::string> swept;
    auto out = sweep_planes(ports, [&](const LocalPort& lp) -> Result<SweepOutput> {
        swept.push_back(lp.ca);
        if (lp.ca == "mlx5_3") return make_error("no answer", kExitCannotRun);
        SweepOutput o;
        o.snapshot.source.ca = lp.ca;
        o.snapshot.fabric = *Fabric::build(planes[lp.ca == "mlx5_0" ? 1 : 2]);
        return o;
    });
    ASSERT_TRUE(out) << out.error().message;
    EXPECT_EQ(swept, (std::vector<std::string>{"mlx5_0", "mlx5_2", "mlx5_3"}));
    const Snapshot& s = out->snapshot;
    ASSERT_EQ(s.planes.size(), 2u);
    EXPECT_TRUE(s.planes[0].managed);
    EXPECT_EQ(s.planes[0].ca, "mlx5_0");
    EXPECT_EQ(s.planes[0].sm_guid, s.fabric.find("h0001 HCA-1-1")->ports.front().guid);
    EXPECT_FALSE(s.planes[1].managed);
    EXPECT_EQ(s.planes[1].ca, "mlx5_2");
    EXPECT_EQ(s.fabric.find("leaf01-2")->plane, 1);
    std::vector<std::string> kinds;
    for (const Finding& f : out->problems) kinds.push_back(f.kind);
    EXPECT_EQ(kinds, (std::vector<std::string>{"unmanaged_plane", "plane_unswept"}));
}

TEST(PlaneSweep, FailsOnlyWhenNoPlaneCouldBeSwept) {
    LocalPort lp;
    lp.ca = "mlx5_0";
    lp.port = 1;
    auto out = sweep_planes({lp}, [](const LocalPort&) -> Result<SweepOutput> {
        return make_error("the local node did not answer", kExitCannotRun);
    });
    ASSERT_FALSE(out);
    EXPECT_EQ(out.error().code, kExitCannotRun);
    EXPECT_FALSE(sweep_planes(
        {}, [](const LocalPort&) -> Result<SweepOutput> { return make_error("never called"); }));
}

}  // namespace
}  // namespace fabscope
