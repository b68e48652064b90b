// `mesh run --pattern ring` (mesh/ring_run, mesh/results/ring): the
// figures of a ring all-reduce on fixtures, and the ranks' protocol in the
// threads of mesh_world.h, whose devices run each edge at a rate chosen per
// pair. The real WRITEs with immediate run in the VM lab
// (tests/lab/ring_vm_test.cpp).

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mesh/report.h"
#include "mesh/results/ring.h"
#include "mesh/ring_plan.h"
#include "mesh/ring_run.h"
#include "mesh_world.h"
#include "reports/mesh_doc.h"
#include "schema_check.h"

namespace fabscope::perf {
namespace {

using mesh_test::World;

/// A measured ring of one edge per entry, each step taking that long; the
/// all-reduce at its slowest edge's pace, and 60 us of the rest.
RingSize ring_of(const std::vector<double>& step_us) {
    const size_t n = step_us.size();
    RingSize s;
    s.bytes = n << 20;
    s.chunk = 1 << 20;
    s.iterations = 10;
    s.measured = true;
    double slowest = 0;
    for (size_t i = 0; i < n; ++i) {
        const double us = step_us[i];
        slowest = std::max(slowest, us);
        s.edges.push_back({.src = static_cast<int>(i),
                           .dst = static_cast<int>((i + 1) % n),
                           .steps = 10 * ring_steps(n),
                           .mean_us = us,
                           .median_us = us,
                           .max_us = us,
                           .gbps = (1 << 20) * 8.0 / us / 1e3});
    }
    s.time_us = ring_steps(n) * slowest + 60;
    s.algbw_gbs = static_cast<double>(s.bytes) / s.time_us / 1e3;
    s.busbw_gbs = s.algbw_gbs * bus_factor(n);
    return s;
}

RingSize four_edges(double slow_us) {
    return ring_of({100, 100, slow_us, 100});
}

TEST(RingFigures, BusBandwidthIsTheConventionOfNcclTests) {
    EXPECT_DOUBLE_EQ(bus_factor(8), 1.75);
    EXPECT_DOUBLE_EQ(bus_factor(2), 1.0);
    EXPECT_EQ(ring_steps(4), 6u);
    EXPECT_EQ(ring_steps(1), 0u);
}

TEST(RingFigures, TheSlowestEdgeCostsWhatTheRingWouldGainWereItAsFastAsTheMedian) {
    const RingSize s = four_edges(400);
    const RingCost c = ring_cost(s, 4, 0.6);
    ASSERT_TRUE(c.found);
    EXPECT_EQ(c.edge, 2u);
    EXPECT_NEAR(c.median_gbps, (1 << 20) * 8.0 / 100 / 1e3, 1e-9);
    EXPECT_NEAR(c.gbps, c.median_gbps / 4, 1e-9);
    // 6 x 400 + 60 us measured; 6 x 100 + 60 were it at the median's pace.
    EXPECT_NEAR(c.share, 1 - 660.0 / 2460.0, 1e-9);
    EXPECT_NEAR(c.busbw_if_median_gbs, s.busbw_gbs * 2460.0 / 660.0, 1e-9);
}

TEST(RingFigures, EveryEdgeBelowTheSlowRatioIsFixedTogether) {
    // A cable shaped both ways slows the two edges through it: fixing only
    // the slowest would leave the ring at the other's pace.
    const RingSize s = ring_of({380, 100, 400, 100, 100, 100});
    const RingCost c = ring_cost(s, 6, 0.6);
    ASSERT_TRUE(c.found);
    EXPECT_EQ(c.slow, (std::vector<size_t>{2, 0}));
    // Ten steps at 400 us and 60 us of the rest; were both at the median's 100 us: 1,060 us.
    EXPECT_NEAR(c.share, 1 - 1060.0 / 4060.0, 1e-9);
    // Fixing the slowest alone would leave the other at 380 us a step.
    EXPECT_NEAR(ring_cost(s, 6, 0.2).share, 1 - 3860.0 / 4060.0, 1e-9);
}

TEST(RingFigures, AHealthyRingLosesNothingToItsSlowestEdge) {
    const RingCost c = ring_cost(four_edges(100), 4, 0.6);
    ASSERT_TRUE(c.found);
    EXPECT_NEAR(c.share, 0, 1e-9);
}

TEST(RingFigures, NoCostWithoutTwoEdgesMeasured) {
    RingSize s = four_edges(400);
    for (size_t i = 1; i < 4; ++i) s.edges[i].error = "the ring stalled";
    EXPECT_FALSE(ring_cost(s, 4, 0.6).found);
    s.measured = false;
    EXPECT_TRUE(ring_cost(four_edges(400), 4, 0.6).found);
    EXPECT_FALSE(ring_cost(s, 4, 0.6).found);
}

TEST(RingOrder, HostsUnderOneLeafAreNeighboursAndUnknownLeavesComeLast) {
    std::vector<MeshRank> ranks(6);
    for (int r = 0; r < 6; ++r) ranks[r].rank = r;
    ranks[5].error = "no RDMA device found";
    std::string by;
    EXPECT_EQ(ring_order(ranks, {0xA, 0xB, 0xA, 0xB, 0, 0xA}, &by),
              (std::vector<int>{0, 2, 1, 3, 4}));
    EXPECT_EQ(by, "leaf");
    EXPECT_EQ(ring_order(ranks, {}, &by), (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(by, "rank");
}

World ring_world(int size) {
    World w;
    w.size = size;
    w.ring = RingTest{.sizes = {1 << 20, 8 << 20}, .iterations = 4, .warmup = 1, .timeout = {}};
    w.ring->timeout = std::chrono::seconds(10);
    return w;
}

TEST(RingRun, EveryRankWritesToTheNextAndTheSlowEdgeIsNamedWithItsCost) {
    World w = ring_world(6);
    w.rate = [](int src, int dst) { return src == 3 && dst == 4 ? 0.25 : 1.0; };
    w.lossy = {3};  // its device counts retransmissions
    w.run();
    const MeshRunData& d = w.data();
    // Each end's counters over the ring are its two edges' evidence: rank
    // 3's as the sender of 3 -> 4 and the receiver of 2 -> 3.
    EXPECT_EQ(d.flows[3].counters.unpack()["local"].value("completer_retry_err", 0), 50);
    EXPECT_EQ(d.flows[2].counters.unpack()["remote"].value("completer_retry_err", 0), 50);
    EXPECT_FALSE(d.flows[0].counters.unpack()["local"].contains("completer_retry_err"));
    EXPECT_EQ(d.devices.name(d.flows[3].src_device), "fake3/1");
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.pattern, "ring");
    const MeshFinding* slow = nullptr;
    for (const MeshFinding& f : d.findings) slow = f.kind == "ring-slow-edge" ? &f : slow;
    ASSERT_NE(slow, nullptr);
    EXPECT_EQ(slow->rank, 3);
    EXPECT_EQ(d.rings.at(0).order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
    ASSERT_EQ(d.flows.size(), 6u);
    for (size_t e = 0; e < 6; ++e) {
        EXPECT_EQ(d.flows[e].src, static_cast<int>(e));
        EXPECT_EQ(d.flows[e].dst, static_cast<int>((e + 1) % 6));
        EXPECT_TRUE(d.flows[e].measured && d.flows[e].ok) << d.flows[e].error;
    }
    ASSERT_EQ(d.rings.at(0).sizes.size(), 2u);
    const RingSize& big = d.rings.at(0).sizes[1];
    ASSERT_TRUE(big.measured);
    EXPECT_EQ(big.chunk, (8u << 20) / 6 + 1);
    EXPECT_EQ(big.edges[3].steps, 4u * 10);
    // The ring runs at its slow edge's pace: 10 steps of a chunk at 0.25 GB/s.
    const double slow_step_us = big.chunk / 0.25e3;
    EXPECT_NEAR(big.time_us, slow_step_us * 10 * 1.05, 1e-6 * big.time_us);
    EXPECT_NEAR(big.busbw_gbs, big.algbw_gbs * 10 / 6, 1e-9);
    const RingCost c = ring_cost(big, 6, 0.6);
    ASSERT_TRUE(c.found);
    EXPECT_EQ(big.edges[c.edge].src, 3);
    EXPECT_NEAR(c.gbps / c.median_gbps, 0.25, 1e-9);
    EXPECT_GT(c.share, 0.7);
    // The slow edge is the mesh analysis' slow flow too.
    const MeshAnalysis a = analyse_mesh(d, 0.6);
    EXPECT_TRUE(a.slow[3]);
    const nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["ring"]["slowest_edge"]["src"], 3);
    bool told = false;
    for (const std::string& line : mesh_run_summary(d, a))
        told = told || line.rfind("ring: slowest edge", 0) == 0;
    EXPECT_TRUE(told);
}

TEST(RingRun, ARankWithoutADeviceIsLeftOutOfTheRing) {
    World w = ring_world(5);
    w.no_device = {2};
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    EXPECT_EQ(d.rings.at(0).order, (std::vector<int>{0, 1, 3, 4}));
    ASSERT_EQ(d.flows.size(), 4u);
    EXPECT_EQ(d.flows[1].dst, 3);
    for (const MeshFlow& f : d.flows) EXPECT_TRUE(f.measured) << f.error;
    EXPECT_EQ(w.outcomes[2].error, "no RDMA device found");
}

TEST(RingRun, ARankThatDiesIsNamedAndTheRunEndsWithWhatWasMeasured) {
    World w = ring_world(5);
    w.die_after[3] = 2;  // the plan and the connect step's "go"
    w.run();
    ASSERT_TRUE(w.died[3]);
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    bool gone = false;
    for (const MeshFinding& f : d.findings) gone = gone || (f.kind == "rank-gone" && f.rank == 3);
    EXPECT_TRUE(gone);
    EXPECT_FALSE(d.rings.at(0).sizes[0].measured);
    EXPECT_FALSE(d.rings.at(0).sizes[1].measured);
    for (const MeshFlow& f : d.flows) {
        EXPECT_FALSE(f.measured);
        EXPECT_FALSE(f.error.empty());
    }
    EXPECT_LT(w.seconds, 5.0);
}

TEST(RingRun, InterruptKeepsTheSizesMeasured) {
    World w = ring_world(4);
    w.ring->sizes.push_back(16 << 20);
    // Ctrl-C on rank 0 while the second size runs: it ends, the third does not start.
    w.stop_root_after_round = 1;
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "interrupted");
    EXPECT_TRUE(d.rings.at(0).sizes[0].measured);
    EXPECT_TRUE(d.rings.at(0).sizes[1].measured);
    EXPECT_FALSE(d.rings.at(0).sizes[2].measured);
    EXPECT_EQ(d.rings.at(0).sizes[2].edges[0].steps, 0u);
    for (const MeshFlow& f : d.flows) EXPECT_TRUE(f.measured);  // at the largest size measured
    for (int r = 1; r < w.size; ++r) EXPECT_EQ(w.outcomes[r].error, "") << r;  // told to stop
}

TEST(RingRun, EachPlaneRunsItsOwnRingAndTheSlowestPlaneIsWhatTheJobPays) {
    World w = ring_world(8);
    w.per_host = 2;  // four hosts of two HCAs: even ranks are plane 0, odd plane 1
    w.options.devices = {"mlx5_0", "mlx5_1"};
    w.rate = [](int src, int dst) { return src == 3 && dst == 5 ? 0.25 : 1.0; };
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    ASSERT_EQ(d.rings.size(), 2u);
    EXPECT_EQ(d.rings[0].plane, 0);
    EXPECT_EQ(d.rings[0].order, (std::vector<int>{0, 2, 4, 6}));
    EXPECT_EQ(d.rings[1].plane, 1);
    EXPECT_EQ(d.rings[1].order, (std::vector<int>{1, 3, 5, 7}));
    EXPECT_EQ(d.rings[1].first_flow, 4u);
    ASSERT_EQ(d.flows.size(), 8u);
    for (const MeshFlow& f : d.flows) {
        EXPECT_EQ(f.src % 2, f.dst % 2);  // within its plane
        EXPECT_TRUE(f.measured && f.ok) << f.error;
    }
    for (const RingResult& r : d.rings) {
        ASSERT_EQ(r.sizes.size(), 2u);
        EXPECT_TRUE(r.sizes[1].measured);
        EXPECT_EQ(r.sizes[1].chunk, (8u << 20) / 4);
        EXPECT_EQ(r.sizes[1].edges[0].steps, 4u * 6);
    }
    // Plane 1 runs at its slow edge's pace; plane 0 at the rate.
    EXPECT_LT(d.rings[1].sizes[1].busbw_gbs, 0.5 * d.rings[0].sizes[1].busbw_gbs);
    std::vector<std::string> slow;
    for (const MeshFinding& f : d.findings)
        if (f.kind == "ring-slow-edge") slow.push_back(f.message);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_NE(slow[0].find("plane 1's ring lost"), std::string::npos) << slow[0];
    const RingPlanesCost c = ring_planes_cost(d.rings);
    ASSERT_TRUE(c.found);
    EXPECT_EQ(c.slowest, 1u);
    EXPECT_EQ(c.bytes, 8u << 20);
    EXPECT_NEAR(c.busbw_gbs, 2 * d.rings[1].sizes[1].busbw_gbs, 1e-12);
    EXPECT_GT(c.share, 0.5);

    const MeshAnalysis a = analyse_mesh(d, 0.6);
    EXPECT_TRUE(a.slow[5]);  // 3 -> 5, plane 1's second edge
    const nlohmann::json doc = mesh_run_json(d, a);
    for (const auto& e : testing::schema_errors(doc, "mesh-run.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["ring"]["plane"], 0);
    ASSERT_EQ(doc["rings"].size(), 2u);
    EXPECT_EQ(doc["rings"][1]["slowest_edge"]["src"], 3);
    EXPECT_EQ(doc["ring_planes"]["slowest_plane"], 1);
    EXPECT_EQ(doc["ring_planes"]["fastest_plane"], 0);
    bool edge_told = false;
    bool planes_told = false;
    for (const std::string& line : mesh_run_summary(d, a)) {
        edge_told = edge_told || line.rfind("ring (plane 1): slowest edge", 0) == 0;
        planes_told =
            planes_told || line.rfind("rings: plane 1's ring is the slowest of 2", 0) == 0;
    }
    EXPECT_TRUE(edge_told);
    EXPECT_TRUE(planes_told);

    // As `fabscope report` and the TUI read it back.
    auto back = mesh_run_doc_from_json(doc);
    ASSERT_TRUE(back) << back.error().message;
    ASSERT_EQ(back->rings.size(), 2u);
    EXPECT_EQ(back->rings[1].plane, 1);
    ASSERT_TRUE(back->rings[1].slowest);
    EXPECT_EQ(back->rings[1].slowest->edge.src_host, d.ranks[3].host);
    EXPECT_EQ(ring_lines(back->rings[1], true).front().rfind("plane 1: ring all-reduce of 8M", 0),
              0u);
    ASSERT_TRUE(back->ring_planes);
    EXPECT_EQ(ring_planes_line(*back->ring_planes).rfind("plane 1's ring is the slowest of 2", 0),
              0u);
}

TEST(RingRun, APlaneWithOneRankHasNoRingAndTheOthersRun) {
    World w = ring_world(3);
    w.per_host = 2;  // ranks 0 and 2 are plane 0, rank 1 alone in plane 1
    w.options.devices = {"mlx5_0", "mlx5_1"};
    w.run();
    const MeshRunData& d = w.data();
    EXPECT_EQ(d.status, "complete");
    ASSERT_EQ(d.rings.size(), 1u);
    EXPECT_EQ(d.rings[0].order, (std::vector<int>{0, 2}));
    bool alone = false;
    for (const MeshFinding& f : d.findings)
        alone = alone || (f.kind == "ring-too-small" && f.rank == 1);
    EXPECT_TRUE(alone);
    for (const MeshFlow& f : d.flows) EXPECT_TRUE(f.measured) << f.error;
    EXPECT_EQ(w.outcomes[1].error, "");  // in no ring, it waits the run out
}

TEST(RingRun, TooFewRanksAbort) {
    World w = ring_world(3);
    w.no_device = {1, 2};
    w.run();
    EXPECT_EQ(w.data().status, "aborted");
    for (int r = 0; r < w.size; ++r) EXPECT_NE(w.outcomes[r].error, "") << r;
}

}  // namespace
}  // namespace fabscope::perf
