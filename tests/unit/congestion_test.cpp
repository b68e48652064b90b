// Congestion trees from PortXmitWait on a routed leaf-spine (D-mod-K
// forwarding tables): the root is the bottom-most waiting port, the ports
// waiting toward it are victims, and a port silent in the second reading is
// a finding.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "check/validate.h"
#include "congestion/congestion_report.h"
#include "congestion/counter_source.h"
#include "congestion/xmit_wait_tree.h"
#include "schema_check.h"
#include "test_fabrics.h"
#include "xmit_wait_readings.h"

namespace fabscope {
namespace {

using nlohmann::json;

using testing::kTenPercent;

struct Tree : testing::XmitWaitReadings {
    Tree() : XmitWaitReadings(testing::routed_leaf_spine({})) {}
    std::vector<CongestionTree> trees() const {
        return congestion_trees(f, xmit_wait_shares(f, before, after, 1), 0.05);
    }
};

TEST(XmitWait, ShareOfTheIntervalFromTheTicks) {
    Tree t;
    t.wait("leaf03", 2, kTenPercent);
    auto shares = xmit_wait_shares(t.f, t.before, t.after, 1);
    ASSERT_FALSE(shares.empty());
    EXPECT_EQ(shares[0].port, t.ref("leaf03", 2));  // hottest first
    EXPECT_NEAR(shares[0].share, 0.10, 1e-9);
    EXPECT_EQ(shares[0].ticks, kTenPercent);
    EXPECT_DOUBLE_EQ(shares[0].interval_s, 1.0);
    EXPECT_EQ(shares[1].share, 0.0);
    // A tick multiplier of 2 doubles the time each tick stands for.
    EXPECT_NEAR(xmit_wait_shares(t.f, t.before, t.after, 2)[0].share, 0.20, 1e-9);
    // A counter cleared in between: what it reads now is a lower bound (counter_rise's rule).
    t.before[t.ref("leaf03", 2)].set(Counter::PortXmitWait, 4000000000);
    shares = xmit_wait_shares(t.f, t.before, t.after, 1);
    EXPECT_TRUE(shares[0].cleared);
    EXPECT_EQ(shares[0].ticks, 1000 + kTenPercent);
}

TEST(XmitWait, NextHopsFollowTheForwardingTables) {
    Tree t;
    // A spine's port toward leaf03 carries leaf03's hosts: at leaf03 they leave by ports 1..4.
    auto hops = next_hops(t.f, t.ref("spine01", 3));
    std::vector<PortRef> want;
    for (uint8_t p = 1; p <= 4; ++p) want.push_back(t.ref("leaf03", p));
    EXPECT_EQ(hops, want);
    // A leaf port to a host: nothing behind it.
    EXPECT_TRUE(next_hops(t.f, t.ref("leaf03", 2)).empty());
    // A leaf uplink: the spine sends on to the other leaves only, never back.
    for (const PortRef& h : next_hops(t.f, t.ref("leaf01", 5))) {
        EXPECT_EQ(h.node, t.ref("spine01", 1).node);
        EXPECT_NE(h.port, 1);
    }
    EXPECT_FALSE(next_hops(t.f, t.ref("leaf01", 5)).empty());
    // Without forwarding tables: every other linked port of the switch behind.
    Fabric plain = testing::leaf_spine({});
    EXPECT_EQ(next_hops(plain, PortRef{plain.find("spine01")->guid, 3}).size(), 5u);
}

TEST(CongestionTree, SpinesWaitingTowardALeafThatWaitsTowardAHost) {
    Tree t;
    t.wait("spine01", 3, kTenPercent);
    t.wait("spine02", 3, 2 * kTenPercent);
    t.wait("leaf03", 2, 3 * kTenPercent);  // toward h0010
    auto trees = t.trees();
    ASSERT_EQ(trees.size(), 1u);
    EXPECT_EQ(trees[0].root.port, t.ref("leaf03", 2));
    EXPECT_EQ(trees[0].cause, "slow_receiver");
    ASSERT_EQ(trees[0].victims.size(), 2u);
    EXPECT_EQ(trees[0].victims[0].wait.port, t.ref("spine02", 3));  // hottest first
    EXPECT_EQ(trees[0].victims[1].wait.port, t.ref("spine01", 3));
    EXPECT_EQ(trees[0].victims[1].chain,
              (std::vector<PortRef>{t.ref("spine01", 3), t.ref("leaf03", 2)}));

    auto fs = congestion_findings(t.f, trees, XmitWaitLimit{});
    ASSERT_EQ(fs.size(), 3u);
    EXPECT_EQ(fs[0].kind, "congestion_root");  // the root is named first
    EXPECT_EQ(fs[0].where[0], t.ref("leaf03", 2));
    EXPECT_EQ(fs[0].severity, Severity::Error);  // 30%: above the 20% error line
    EXPECT_EQ(fs[0].evidence["cause"], "slow_receiver");
    EXPECT_EQ(fs[0].evidence["victims"].size(), 2u);
    EXPECT_NE(fs[0].summary.find("leaf03[2] (link to h0010 HCA-1[1]): root of a congestion tree"),
              std::string::npos)
        << fs[0].summary;
    EXPECT_EQ(fs[1].kind, "congestion_victim");
    EXPECT_EQ(fs[1].where[0], t.ref("spine02", 3));
    EXPECT_EQ(fs[1].evidence["root"]["node"], "leaf03");
    EXPECT_EQ(fs[1].evidence["chain"].size(), 2u);
    EXPECT_EQ(fs[2].where[0], t.ref("spine01", 3));
    EXPECT_EQ(fs[2].severity, Severity::Warning);
}

TEST(CongestionTree, ThreeLevelsDeepAndABottleneckLink) {
    Tree t;
    // leaf01 -> spine01 -> leaf03 wait; leaf03's host ports do not: the spine's
    // link to leaf03 is the bottleneck, leaf01's uplink a victim two hops up.
    t.wait("leaf01", 5, kTenPercent);
    t.wait("spine01", 3, kTenPercent);
    auto trees = t.trees();
    ASSERT_EQ(trees.size(), 1u);
    EXPECT_EQ(trees[0].root.port, t.ref("spine01", 3));
    EXPECT_EQ(trees[0].cause, "bottleneck_link");
    ASSERT_EQ(trees[0].victims.size(), 1u);
    EXPECT_EQ(trees[0].victims[0].chain,
              (std::vector<PortRef>{t.ref("leaf01", 5), t.ref("spine01", 3)}));
    // Add the host port: the chain grows to three and the root moves down.
    t.wait("leaf03", 1, kTenPercent);
    trees = t.trees();
    ASSERT_EQ(trees.size(), 1u);
    EXPECT_EQ(trees[0].root.port, t.ref("leaf03", 1));
    ASSERT_EQ(trees[0].victims.size(), 2u);
    for (const Victim& v : trees[0].victims) {
        if (v.wait.port == t.ref("leaf01", 5)) {
            EXPECT_EQ(v.chain.size(), 3u);
        }
    }
}

TEST(CongestionTree, UnrelatedWaitsAreSeparateTreesAndLowWaitsNone) {
    Tree t;
    t.wait("leaf03", 2, kTenPercent);
    t.wait("leaf01", 1, 2 * kTenPercent);
    t.wait("spine02", 4, kTenPercent / 20);  // 0.5%: under the 5% line
    auto trees = t.trees();
    ASSERT_EQ(trees.size(), 2u);
    EXPECT_EQ(trees[0].root.port, t.ref("leaf01", 1));  // no victims either: the hotter first
    EXPECT_TRUE(trees[0].victims.empty());
    EXPECT_EQ(trees[1].root.port, t.ref("leaf03", 2));
}

TEST(Congestion, APortSilentInTheSecondReadingIsAFinding) {
    Tree t;
    t.after.erase(t.ref("spine02", 1));
    t.after.erase(t.ref("spine02", 2));
    auto r = analyse_congestion(t.f, t.before, t.after, true, default_thresholds());
    ASSERT_EQ(r.findings.size(), 1u);
    EXPECT_EQ(r.findings[0].kind, "counters_unanswered");
    EXPECT_EQ(r.findings[0].where.size(), 2u);
    EXPECT_EQ(r.ports_unanswered, 2u);
    EXPECT_TRUE(r.failed());
    EXPECT_NE(r.findings[0].summary.find("spine02: 2 ports (1, 2) did not answer"),
              std::string::npos)
        << r.findings[0].summary;
    // Stopped before asking every port: no finding for those not asked.
    EXPECT_TRUE(
        analyse_congestion(t.f, t.before, t.after, false, default_thresholds()).findings.empty());
}

TEST(Congestion, CleanFabricPassesAndTheReportMatchesItsSchema) {
    Tree t;
    auto clean = analyse_congestion(t.f, t.before, t.after, true, default_thresholds());
    EXPECT_FALSE(clean.failed());
    EXPECT_TRUE(clean.hottest.empty());
    EXPECT_EQ(clean.ports_read, t.after.size());

    t.wait("spine01", 3, kTenPercent);
    t.wait("leaf03", 2, 2 * kTenPercent);
    t.after.erase(t.ref("spine02", 4));
    auto r = analyse_congestion(t.f, t.before, t.after, true, default_thresholds());
    CongestionMeta m{"2026-12-01T13:00:00Z", "ibsim0 port 1", 2, false, XmitWaitLimit{}};
    json doc = congestion_to_json(t.f, r, m);
    EXPECT_EQ(doc["result"], "fail");
    EXPECT_EQ(doc["trees"][0]["root"]["node"], "leaf03");
    EXPECT_EQ(doc["trees"][0]["victims"][0]["chain"][0]["node"], "spine01");
    EXPECT_EQ(doc["hottest"].size(), 2u);
    for (const auto& e : testing::schema_errors(doc, "congestion.schema.json")) ADD_FAILURE() << e;
    EXPECT_FALSE(testing::schema_errors(json{{"result", 3}}, "congestion.schema.json").empty());
    std::string text = render_congestion_summary(t.f, r, m, TextStyle{});
    EXPECT_EQ(text.find("root leaf03[2]"), text.find("root"));  // the root is named first
    EXPECT_NE(text.find("victim spine01[3]"), std::string::npos) << text;
    EXPECT_NE(text.find("did not answer"), std::string::npos) << text;
}

}  // namespace
}  // namespace fabscope

namespace fabscope {
namespace {

TEST(Validate, APortThatDidNotAnswerTheSecondReadingIsAFindingNotDropped) {
    Fabric f = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    Tiers tiers = classify_tiers(f);
    PortRef port{f.find("leaf01")->guid, 3};
    PortCounters pc;
    pc.set(Counter::SymbolErrorCounter, 0);
    CounterReadings before{{port, pc}};
    CounterReadings after;  // leaf01[3] did not answer
    ValidationInput in{f, tiers, {}, &before, &after, nullptr, nullptr, default_thresholds()};
    EXPECT_TRUE(validate(in).findings.empty());  // a stopped reading: not asked, no finding
    in.after_complete = true;
    auto v = validate(in);
    ASSERT_EQ(v.findings.size(), 1u);
    EXPECT_EQ(v.findings[0].kind, "counters_unanswered");
    EXPECT_EQ(v.findings[0].where, std::vector<PortRef>{port});
}

}  // namespace
}  // namespace fabscope

namespace fabscope {
namespace {

// A synthetic tree, named as the kernel's mlx5 documentation names the files
// (hw_counters: np_cnp_sent, np_ecn_marked_roce_packets, rp_cnp_handled,
// out_of_sequence; counters: port_xmit_wait), and an rxe device.
TEST(SysfsCounterSource, EveryDevicePortStampedByTheClockWithRatesByOneRule) {
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / "fabscope-counter-source-test";
    fs::remove_all(root);
    auto put = [&](const std::string& rel, uint64_t v) {
        fs::create_directories((root / rel).parent_path());
        std::ofstream(root / rel) << v << "\n";
    };
    put("mlx5_0/ports/1/hw_counters/np_cnp_sent", 100);
    put("mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets", 1000);
    put("mlx5_0/ports/1/hw_counters/lifespan", 12);
    put("mlx5_0/ports/1/counters/port_xmit_wait", 50000);
    put("rxe0/ports/1/hw_counters/rcvd_seq_err", 7);
    ManualClock clock;
    SysfsCounterSource src(root.string(), clock);
    auto first = src.read();
    ASSERT_EQ(first.size(), 2u);
    EXPECT_EQ(first[0].device, "mlx5_0");
    EXPECT_EQ(first[0].port, 1);
    EXPECT_EQ(first[0].values.count("lifespan"), 0u);  // not a counter
    EXPECT_EQ(first[0].read_at_ms, clock.unix_ms());
    EXPECT_EQ(first[1].device, "rxe0");

    clock.advance(std::chrono::seconds(2));
    put("mlx5_0/ports/1/hw_counters/np_cnp_sent", 300);
    put("mlx5_0/ports/1/hw_counters/np_ecn_marked_roce_packets", 40);  // cleared in between
    auto second = src.read();
    auto c = sample_changes(first[0], second[0]);
    EXPECT_EQ(c.at("np_cnp_sent").delta, 200u);
    EXPECT_DOUBLE_EQ(c.at("np_cnp_sent").per_second, 100.0);
    EXPECT_FALSE(c.at("np_cnp_sent").cleared);
    EXPECT_TRUE(c.at("np_ecn_marked_roce_packets").cleared);
    EXPECT_EQ(c.at("np_ecn_marked_roce_packets").delta, 40u);
    EXPECT_EQ(c.at("port_xmit_wait").delta, 0u);
    EXPECT_TRUE(sample_changes(second[0], second[0]).empty());  // no time between them
    EXPECT_TRUE(SysfsCounterSource((root / "none").string(), clock).read().empty());
    fs::remove_all(root);
}

}  // namespace
}  // namespace fabscope
