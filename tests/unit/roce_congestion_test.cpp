// The RoCE detectors on the synthetic mlx5 fixtures
// (tests/fixtures/roce-congestion, see its README), read through the real
// file readers (sysfs tree, ethtool text, dcb.json), and on hand-made changes.

#include <gtest/gtest.h>

#include <chrono>

#include "congestion/roce_detectors.h"
#include "congestion/roce_reading.h"

namespace fabscope {
namespace {

const std::string kDir = std::string(FIXTURES_DIR) + "/roce-congestion/";

/// The scenario's two readings, 10 s apart, through the file readers.
std::vector<RoceChange> replay(const std::string& scenario) {
    ManualClock clock;
    auto before = read_saved_roce(kDir + scenario + "/before", clock);
    clock.advance(std::chrono::seconds(10));
    auto after = read_saved_roce(kDir + scenario + "/after", clock);
    EXPECT_TRUE(before) << before.error().message;
    EXPECT_TRUE(after) << after.error().message;
    std::vector<RoceChange> out;
    if (!before || !after) return out;
    EXPECT_EQ(before->size(), after->size());
    for (size_t i = 0; i < after->size() && i < before->size(); ++i) {
        EXPECT_TRUE((*after)[i].problems.empty()) << (*after)[i].problems.front();
        out.push_back(roce_change((*before)[i], (*after)[i]));
    }
    return out;
}

std::vector<Finding> of_kind(const std::vector<Finding>& v, const std::string& kind) {
    std::vector<Finding> out;
    for (const Finding& f : v) {
        if (f.kind == kind) out.push_back(f);
    }
    return out;
}

TEST(RoceFixtures, ReadersSeeHostsPortsNetdevsAndDcb) {
    ManualClock clock;
    auto r = read_saved_roce(kDir + "pfc-storm/after", clock);
    ASSERT_TRUE(r) << r.error().message;
    ASSERT_EQ(r->size(), 2u);
    const RoceHostReading& h1 = (*r)[0];
    EXPECT_EQ(h1.host, "h1");
    ASSERT_EQ(h1.rdma.size(), 1u);
    EXPECT_EQ(h1.rdma[0].device, "mlx5_0");
    EXPECT_EQ(h1.netdev_of.at("mlx5_0/1"), "ens1f0np0");
    EXPECT_EQ(h1.ethtool.at("ens1f0np0").stats.at("tx_prio3_pause"), 1240000u);
    EXPECT_TRUE(h1.dcb.at("ens1f0np0").pfc_on(3));
    EXPECT_EQ(h1.dcb.at("ens1f0np0").roce_priority(), 3);
    EXPECT_EQ(h1.dcb.at("ens1f0np0").trust(), "dscp");
    EXPECT_TRUE(sysfs_is_roce(kDir + "pfc-storm/after/h1/infiniband", "mlx5_0", 1));
}

TEST(RoceFixtures, CleanHostHasNoFinding) {
    auto hosts = replay("clean");
    ASSERT_EQ(hosts.size(), 1u);
    EXPECT_NEAR(hosts[0].interval_s, 10.0, 1e-9);
    auto f = detect_roce(hosts, {}, default_thresholds().roce);
    EXPECT_TRUE(f.empty()) << f.front().summary;
}

TEST(RoceFixtures, PfcStormNamesTheSenderOfPausesAndTheVictim) {
    auto f = detect_roce(replay("pfc-storm"), {}, default_thresholds().roce);
    auto storms = of_kind(f, "pfc_storm");
    ASSERT_EQ(storms.size(), 3u);
    // h1 asked its peer to pause 62% of the interval on priority 3: an error.
    EXPECT_EQ(storms[0].evidence["host"], "h1");
    EXPECT_EQ(storms[0].evidence["priority"], 3);
    EXPECT_EQ(storms[0].evidence["direction"], "tx");
    EXPECT_NEAR(storms[0].evidence["share"].get<double>(), 0.62, 1e-9);
    EXPECT_EQ(storms[0].evidence["counters"]["tx_prio3_pause_duration"]["delta"], 6200000);
    EXPECT_EQ(storms[0].severity, Severity::Error);
    // ...and the NIC's storm warning events.
    EXPECT_EQ(storms[1].evidence["host"], "h1");
    EXPECT_TRUE(storms[1].evidence["counters"].contains("tx_pause_storm_warning_events"));
    // h2 was paused 58% of the interval.
    EXPECT_EQ(storms[2].evidence["host"], "h2");
    EXPECT_EQ(storms[2].evidence["direction"], "rx");
    EXPECT_NEAR(storms[2].evidence["share"].get<double>(), 0.58, 1e-9);

    auto sources = of_kind(f, "pause_source");
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].evidence["host"], "h1");
    EXPECT_EQ(sources[0].evidence["priority"], 3);
    EXPECT_EQ(sources[0].evidence["counters"]["tx_prio3_pause"]["delta"], 240000);
    auto victims = of_kind(f, "pause_victim");
    ASSERT_EQ(victims.size(), 1u);
    EXPECT_EQ(victims[0].evidence["host"], "h2");
    EXPECT_EQ(victims[0].evidence["sources"], nlohmann::json::array({"h1"}));
    EXPECT_NE(victims[0].summary.find("paused by h1"), std::string::npos) << victims[0].summary;
    EXPECT_TRUE(of_kind(f, "loss_on_lossless_class").empty());
}

TEST(RoceFixtures, EcnMarksWithoutCnps) {
    auto f = detect_roce(replay("ecn-no-cnp"), {}, default_thresholds().roce);
    ASSERT_EQ(f.size(), 1u) << f.front().summary;
    EXPECT_EQ(f[0].kind, "ecn_without_cnp");
    EXPECT_EQ(f[0].evidence["host"], "h1");
    EXPECT_EQ(f[0].evidence["port"], "mlx5_0/1");
    EXPECT_EQ(f[0].evidence["counters"]["np_ecn_marked_roce_packets"]["delta"],
              481200);  // 480 000 over the healthy 1 200
    EXPECT_EQ(f[0].evidence["counters"]["np_cnp_sent"]["delta"], 0);
}

TEST(RoceFixtures, LossOnTheLosslessClass) {
    auto f = detect_roce(replay("lossless-loss"), {}, default_thresholds().roce);
    auto off = of_kind(f, "pfc_off_on_roce_priority");
    ASSERT_EQ(off.size(), 1u);
    EXPECT_EQ(off[0].evidence["priority"], 3);
    EXPECT_EQ(off[0].evidence["netdev"], "ens1f0np0");
    auto loss = of_kind(f, "loss_on_lossless_class");
    ASSERT_EQ(loss.size(), 1u);
    const auto& e = loss[0].evidence;
    EXPECT_EQ(e["host"], "h1");
    EXPECT_EQ(e["priority"], 3);
    EXPECT_EQ(e["pfc_on"], false);
    EXPECT_EQ(e["counters"]["rx_prio3_discards"]["delta"], 1500);
    EXPECT_EQ(e["counters"]["out_of_sequence"]["delta"], 820);
    EXPECT_EQ(e["counters"]["local_ack_timeout_err"]["delta"], 12);
    EXPECT_EQ(e["loss_signals"], 1500 + 1500 + 820 + 40 + 12);
    EXPECT_NE(loss[0].summary.find("PFC is off on priority 3"), std::string::npos);
}

/// One host with one rxe-like port and a netdev, readings `s` seconds apart.
struct Hand {
    RoceHostReading before, after;
    explicit Hand(int64_t s = 10) {
        before.host = after.host = "a1";
        before.rdma = {CounterSample{"rxe0", 1, {}, 0}};
        after.rdma = {CounterSample{"rxe0", 1, {}, s * 1000}};
        before.netdev_of = after.netdev_of = {{"rxe0/1", "veth0"}};
    }
    void rdma(const std::string& name, uint64_t b, uint64_t a) {
        before.rdma[0].values[name] = b;
        after.rdma[0].values[name] = a;
    }
    RoceChange change() const { return roce_change(before, after); }
};

TEST(RoceDetectors, RxeSequenceAndRetryCountersAreLoss) {
    Hand h;
    h.rdma("rcvd_seq_err", 5, 219);
    h.rdma("completer_retry_err", 0, 221);
    h.rdma("retry_exceeded_err", 0, 0);
    DcbSettings none;
    none.netdev = "veth0";
    none.unavailable = "the driver has no DCB support";
    h.after.dcb["veth0"] = none;
    auto f = detect_roce({h.change()}, {}, default_thresholds().roce);
    auto loss = of_kind(f, "loss_on_lossless_class");
    ASSERT_EQ(loss.size(), 1u);
    EXPECT_EQ(loss[0].evidence["loss_signals"], 214 + 221);
    EXPECT_EQ(loss[0].evidence["pfc_on"], nullptr);
    EXPECT_NE(loss[0].summary.find("DCB not available on veth0"), std::string::npos)
        << loss[0].summary;
    auto info = of_kind(f, "dcb_unavailable");
    ASSERT_EQ(info.size(), 1u);
    EXPECT_EQ(info[0].severity, Severity::Info);
    // Below loss_per_s (1/s over 10 s): a few retransmits are TCG jitter, not loss.
    Hand quiet;
    quiet.rdma("completer_retry_err", 0, 3);
    EXPECT_TRUE(detect_lossless_loss(quiet.change(), default_thresholds().roce).empty());
}

TEST(RoceDetectors, ClearedCounterCountsFromZero) {
    Hand h;
    h.rdma("out_of_sequence", 1000, 40);  // cleared in between: 40 is a lower bound
    auto loss = detect_lossless_loss(h.change(), default_thresholds().roce);
    ASSERT_EQ(loss.size(), 1u);
    EXPECT_EQ(loss[0].evidence["counters"]["out_of_sequence"]["cleared"], true);
    EXPECT_EQ(loss[0].evidence["loss_signals"], 40);
}

TEST(RoceDetectors, CnpsHandledWhileThroughputCollapses) {
    Hand earlier, now;
    earlier.rdma("port_xmit_data", 0, 250'000'000);  // 1 GB over 10 s: 100 MB/s
    earlier.rdma("port_rcv_data", 0, 0);
    earlier.rdma("rp_cnp_handled", 0, 0);
    now.rdma("port_xmit_data", 0, 25'000'000);  // 10 MB/s
    now.rdma("port_rcv_data", 0, 0);
    now.rdma("rp_cnp_handled", 0, 5000);
    RoceLimits t = default_thresholds().roce;
    auto f = detect_cnp_collapse(earlier.change(), now.change(), t);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, "cnp_throughput_collapse");
    EXPECT_NEAR(f[0].evidence["bytes_per_s"].get<double>(), 1e7, 1);
    EXPECT_NEAR(f[0].evidence["bytes_per_s_before"].get<double>(), 1e8, 1);
    // The same fall without CNPs is not DCQCN's doing.
    now.rdma("rp_cnp_handled", 0, 0);
    EXPECT_TRUE(detect_cnp_collapse(earlier.change(), now.change(), t).empty());
}

TEST(RoceDetectors, RocePriorityFromDcbElseThresholds) {
    Hand h;
    RoceLimits t;
    t.priority = 5;
    EXPECT_EQ(roce_priority(h.change(), "veth0", t), 5);
    DcbSettings d;
    d.netdev = "veth0";
    d.available = true;
    d.apps = {{3, 4791, 4}};
    h.after.dcb["veth0"] = d;
    EXPECT_EQ(roce_priority(h.change(), "veth0", t), 4);
}

TEST(RoceThresholds, TheRoceSectionOverridesItsDefaults) {
    auto t = parse_thresholds(
        "fabscope_thresholds: 1\nroce: {priority: 4, pause_share_warn: 0.2, loss_per_s: 50}\n",
        "t.yaml");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_EQ(t->roce.priority, 4);
    EXPECT_DOUBLE_EQ(t->roce.pause_share_warn, 0.2);
    EXPECT_DOUBLE_EQ(t->roce.loss_per_s, 50);
    EXPECT_EQ(t->roce.ecn_marked_min, 100u);  // untouched default
    auto bad = parse_thresholds("fabscope_thresholds: 1\nroce: {priority: 9}\n", "t.yaml");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("t.yaml:2:"), std::string::npos) << bad.error().message;
    bad = parse_thresholds("fabscope_thresholds: 1\nroce: {pfc: 1}\n", "t.yaml");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("unknown key \"pfc\""), std::string::npos);
    bad = parse_thresholds(
        "fabscope_thresholds: 1\nroce: {pause_share_warn: 0.5, pause_share_error: 0.1}\n",
        "t.yaml");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("must not exceed"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
