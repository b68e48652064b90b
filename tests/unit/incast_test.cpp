// Latency under load (mesh/incast_report): the rise of the probe's median
// and p99, the finding over latency_under_load's limits, the RoCE detectors
// over every host's counter changes, the kernel's IP ECN counters
// (congestion/ip_ecn) and the report against docs/mesh-incast.schema.json.
// The loop that measures runs in the VM lab (tests/lab/incast_vm_test.cpp).

#include <gtest/gtest.h>

#include "congestion/ip_ecn.h"
#include "congestion/roce_change_json.h"
#include "mesh/incast_report.h"
#include "model/thresholds.h"
#include "schema_check.h"

namespace fabscope::perf {
namespace {

using nlohmann::json;

const char* const kNetstat =
    "TcpExt: SyncookiesSent SyncookiesRecv\n"
    "TcpExt: 0 0\n"
    "IpExt: InNoRoutes InOctets InNoECTPkts InECT1Pkts InECT0Pkts InCEPkts ReasmOverlaps\n"
    "IpExt: 0 4868 49765 0 1200 731 0\n";

TEST(IpEcn, ParsesTheIpExtCodepointCounters) {
    auto m = parse_ip_ecn(kNetstat);
    ASSERT_TRUE(m);
    EXPECT_EQ(
        *m,
        (CounterMap{
            {"InNoECTPkts", 49765}, {"InECT1Pkts", 0}, {"InECT0Pkts", 1200}, {"InCEPkts", 731}}));
    EXPECT_FALSE(parse_ip_ecn("TcpExt: A\nTcpExt: 1\n"));
    EXPECT_FALSE(parse_ip_ecn("IpExt: InCEPkts InECT0Pkts\nIpExt: 12\n"));  // a value short
    EXPECT_FALSE(parse_ip_ecn("IpExt: InCEPkts\nIpExt: 12x\n"));
    EXPECT_FALSE(parse_ip_ecn("IpExt: InOctets\nIpExt: 12\n"));  // no ECN counter
}

/// A Soft-RoCE host: rxe's counters, no CNP counter at all.
RoceChange rxe_host(const std::string& host, uint64_t rcvd_pkts) {
    RoceChange c;
    c.host = host;
    c.interval_s = 4;
    c.netdev_of["rxe_" + host + "/1"] = "eth0";
    c.rdma["rxe_" + host + "/1"] = {{"rcvd_pkts", {rcvd_pkts, rcvd_pkts / 4.0, false}},
                                    {"duplicate_request", {0, 0, false}}};
    c.eth["eth0"] = {{"peer_ifindex", {0, 0, false}}};
    DcbSettings d;
    d.netdev = "eth0";
    d.unavailable = "the driver has no DCB support";
    c.dcb["eth0"] = d;
    return c;
}

TEST(IpEcn, CeMarksWithoutACnpAreAFindingOnlyPastTheMinimum) {
    const RoceLimits t;  // ecn_marked_min 100
    RoceChange c = rxe_host("h1", 40000);
    auto f = detect_ce_without_cnp(c, {{"InCEPkts", 731}, {"InECT0Pkts", 20000}}, t);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, "ecn_without_cnp");
    EXPECT_EQ(f[0].severity, Severity::Warning);
    EXPECT_NE(f[0].summary.find("InCEPkts +731"), std::string::npos) << f[0].summary;
    EXPECT_NE(f[0].summary.find("no DCQCN"), std::string::npos) << f[0].summary;
    EXPECT_EQ(f[0].evidence["ip_ecn"]["InCEPkts"], 731);
    EXPECT_TRUE(detect_ce_without_cnp(c, {{"InCEPkts", 99}}, t).empty());
    // A device that sent CNPs: congestion control answered the marks.
    c.rdma.begin()->second["np_cnp_sent"] = {12, 3, false};
    EXPECT_TRUE(detect_ce_without_cnp(c, {{"InCEPkts", 731}}, t).empty());
    c.rdma.begin()->second["np_cnp_sent"] = {0, 0, false};
    f = detect_ce_without_cnp(c, {{"InCEPkts", 731}}, t);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_NE(f[0].summary.find("np_cnp_sent +0"), std::string::npos) << f[0].summary;
}

TEST(RoceChangeJson, RoundTrips) {
    RoceChange c = rxe_host("h2", 8);
    c.problems = {"h2: something unreadable"};
    c.rdma.begin()->second["rcvd_seq_err"] = {3, 0.75, true};
    auto back = roce_change_from_json(json::parse(roce_change_to_json(c).dump()), "h2");
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(roce_change_to_json(*back), roce_change_to_json(c));
    EXPECT_TRUE(back->rdma.begin()->second.at("rcvd_seq_err").cleared);
    json bad = roce_change_to_json(c);
    bad["rdma"]["rxe_h2/1"]["rcvd_pkts"].erase("delta");
    auto err = roce_change_from_json(bad, "rank 2 (h2)");
    ASSERT_FALSE(err);
    EXPECT_NE(err.error().message.find("rank 2 (h2)"), std::string::npos);
}

IncastData incast(double idle_median, double idle_p99, double loaded_median, double loaded_p99) {
    IncastData d;
    d.spec.size = 32768;
    d.probe.op = Op::Read;
    d.probe.measure = Measure::Latency;
    d.probe.size = 64;
    d.status = "complete";
    d.phase = "done";
    for (int r = 0; r < 5; ++r) {
        MeshRank m;
        m.rank = r;
        m.host = "h" + std::to_string(r + 1);
        m.device = "rxe_h" + std::to_string(r + 1);
        m.port = 1;
        d.ranks.push_back(m);
    }
    d.receiver = 0;
    d.prober = 1;
    d.senders = {2, 3, 4};
    d.idle = {true, "", {50, idle_median, idle_p99, idle_p99, idle_p99, idle_median, 1000}, 2};
    d.loaded = {true, "", {60, loaded_median, loaded_p99, loaded_p99, loaded_p99, 0, 300}, 2.4};
    for (int s : d.senders) d.flows.push_back({s, true, true, "", 0.03, 0.02, 15000000, 4});
    return d;
}

TEST(Incast, TheP99RisePastTheLimitsIsAFindingWithBothRuns) {
    const Thresholds t = default_thresholds();  // warn at +100 us, error at +1 ms
    IncastData d = incast(200, 900, 17000, 26000);
    IncastAnalysis a = analyse_incast(d, t);
    ASSERT_TRUE(a.have_rise);
    EXPECT_DOUBLE_EQ(a.median_rise_us, 16800);
    EXPECT_DOUBLE_EQ(a.p99_rise_us, 25100);
    EXPECT_NEAR(a.total_gbps, 0.09, 1e-9);
    ASSERT_EQ(a.findings.size(), 1u);
    const Finding& f = a.findings[0];
    EXPECT_EQ(f.kind, "latency_under_load");
    EXPECT_EQ(f.severity, Severity::Error);
    EXPECT_NE(f.summary.find("h1: latency toward it rose under an incast of 3 senders: p99 900 "
                             "us -> 26.0 ms (+25.1 ms), median 200 us -> 17.0 ms (+16.8 ms)"),
              std::string::npos)
        << f.summary;
    EXPECT_EQ(f.evidence["senders"], json({"h3", "h4", "h5"}));
    EXPECT_TRUE(a.failed());

    // Between the limits: a warning; under them: nothing.
    a = analyse_incast(incast(200, 900, 230, 1300), t);
    ASSERT_EQ(a.findings.size(), 1u);
    EXPECT_EQ(a.findings[0].severity, Severity::Warning);
    a = analyse_incast(incast(200, 900, 210, 990), t);
    EXPECT_TRUE(a.findings.empty());
    EXPECT_FALSE(a.failed());

    // A thresholds file moves them.
    auto custom = parse_thresholds(
        "fabscope_thresholds: 1\nlatency_under_load: "
        "{p99_rise_warn_us: 50000, p99_rise_error_us: 90000}\n",
        "t.yaml");
    ASSERT_TRUE(custom) << custom.error().message;
    EXPECT_TRUE(analyse_incast(d, *custom).findings.empty());
    EXPECT_FALSE(
        parse_thresholds("fabscope_thresholds: 1\nlatency_under_load: "
                         "{p99_rise_warn_us: 5, p99_rise_error_us: 1}\n",
                         "t.yaml"));
    EXPECT_FALSE(parse_thresholds("fabscope_thresholds: 1\nlatency_under_load: {p99_rise_us: 5}\n",
                                  "t.yaml"));

    // Without the loaded probe there is no rise and no latency finding.
    d.loaded = {};
    d.loaded.error = "a work request failed";
    a = analyse_incast(d, t);
    EXPECT_FALSE(a.have_rise);
    EXPECT_TRUE(a.findings.empty());
    EXPECT_NE(incast_summary(d, a)[0].find("not measured (a work request failed)"),
              std::string::npos);
}

TEST(Incast, HostsCountersGoThroughTheRoceDetectorsAndTheKernelsEcnCounters) {
    Thresholds t = default_thresholds();
    IncastData d = incast(200, 900, 210, 950);
    IncastCongestion rx{0, rxe_host("h1", 40000), {{"InCEPkts", 5000}, {"InECT0Pkts", 35000}}, ""};
    IncastCongestion lossy{2, rxe_host("h3", 100), {{"InCEPkts", 0}}, ""};
    lossy.change.rdma.begin()->second["completer_retry_err"] = {40, 10, false};
    IncastCongestion none{3, {}, {}, "no device"};
    d.congestion = {rx, lossy, none};
    IncastAnalysis a = analyse_incast(d, t);
    std::vector<std::string> kinds;
    for (const Finding& f : a.findings)
        kinds.push_back(f.kind + "@" + f.evidence.value("host", ""));
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "ecn_without_cnp@h1"), kinds.end())
        << ::testing::PrintToString(kinds);
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "loss_on_lossless_class@h3"), kinds.end())
        << ::testing::PrintToString(kinds);

    json doc = incast_json(d, a, t);
    for (const auto& e : testing::schema_errors(doc, "mesh-incast.schema.json")) ADD_FAILURE() << e;
    EXPECT_EQ(doc["result"], "fail");
    EXPECT_EQ(doc["latency"]["median_rise_us"], 10.0);
    EXPECT_EQ(doc["congestion"][0]["role"], "receiver");
    EXPECT_EQ(doc["congestion"][0]["ip_ecn"]["InCEPkts"], 5000);
    EXPECT_EQ(doc["congestion"][2]["change"], nullptr);
    EXPECT_EQ(doc["ranks"][1]["role"], "prober");
    json bad = doc;
    bad["latency"]["idle"].erase("p99_us");
    EXPECT_FALSE(testing::schema_errors(bad, "mesh-incast.schema.json").empty());

    // A clean run passes, and the report says so.
    d.congestion = {};
    d.findings = {};
    doc = incast_json(d, analyse_incast(d, t), t);
    EXPECT_EQ(doc["result"], "pass");
    for (const auto& e : testing::schema_errors(doc, "mesh-incast.schema.json")) ADD_FAILURE() << e;
    // A rank that went missing is a problem: the run fails.
    d.findings.push_back({"rank-gone", 3, 2, "rank 3 (h4) stopped reporting"});
    doc = incast_json(d, analyse_incast(d, t), t);
    EXPECT_EQ(doc["result"], "fail");
    EXPECT_EQ(doc["problems"][0]["host"], "h4");
}

}  // namespace
}  // namespace fabscope::perf
