// Taking up rank 0's plan, as every multi-rank run does (ranks/protocol):
// a plan the pattern cannot read is rank 0 lost, a rank whose own device
// failed stops, rank 0 leaves out the ranks that are not ready.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "fake_mesh_comm.h"
#include "ranks/protocol.h"

namespace fabscope::perf {
namespace {

using fake::FakeComm;
using fake::PostOffice;
using nlohmann::json;

TEST(RankProtocol, TakingUpThePlan) {
    PostOffice po;
    std::vector<MeshRank> ranks;
    std::vector<MeshFinding> findings;
    const json plan = {{"rounds", json::array()}};
    int read = 0;
    auto reads = [&](const json& p) { read += p.contains("rounds") ? 1 : 0; };
    auto refuses = [](const json& p) { (void)p.at("receiver").get<int>(); };

    FakeComm one(po, 1, 2, 0);
    RankRun r1(one, {}, ranks, findings);
    RankOutcome out;
    MeshRank self;
    EXPECT_TRUE(r1.take_plan(plan, reads, self, out));
    EXPECT_EQ(read, 1);
    EXPECT_TRUE(out.error.empty());

    EXPECT_FALSE(r1.take_plan(plan, refuses, self, out));
    EXPECT_TRUE(out.lost_root);
    EXPECT_EQ(out.error.rfind("rank 0 sent a bad plan: ", 0), 0u) << out.error;

    RankOutcome no_device;
    self.error = "mlx5_0: no such device";
    EXPECT_FALSE(r1.take_plan(plan, reads, self, no_device));
    EXPECT_EQ(no_device.error, "mlx5_0: no such device");
    EXPECT_FALSE(no_device.lost_root);

    // Rank 0 goes on without its own device's error: it coordinates.
    FakeComm zero(po, 0, 2, 0);
    RankRun r0(zero, {}, ranks, findings);
    RankOutcome root_out;
    EXPECT_TRUE(r0.take_plan(plan, reads, self, root_out));
    EXPECT_TRUE(root_out.error.empty());
}

}  // namespace
}  // namespace fabscope::perf
