// The pure parts of the performance tests: statistics, test specs, the
// comparison of peers, sysfs counters on a fixture tree.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "congestion/flow_congestion.h"
#include "congestion/sysfs_counters.h"
#include "pairtest/results/compare.h"
#include "pairtest/results/report.h"
#include "rdma/stats.h"
#include "rdma/test_spec.h"
#include "rdma/verbs.h"

namespace fabscope::perf {
namespace {

// The registered buffer: whole pages, page-aligned (as perftest's), zeroed;
// its second half, the one sent from, starts on a page of its own.
TEST(PerfBuffer, WholePagesAlignedAndZeroed) {
    const size_t page = page_size();
    EXPECT_GE(page, 4096U);
    EXPECT_EQ(page_round(1), page);
    EXPECT_EQ(page_round(page), page);
    EXPECT_EQ(page_round(page + 1), 2 * page);
    EXPECT_EQ(page_round(0), page);
    for (size_t bytes : {size_t{2}, size_t{1000}, size_t{65536} * 2, size_t{3} * page + 5}) {
        PageBuffer b = page_buffer(bytes);
        ASSERT_TRUE(b);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(b.get()) % page, 0U) << bytes;
        const size_t n = page_round(bytes);
        EXPECT_TRUE(std::all_of(b.get(), b.get() + n, [](uint8_t x) { return x == 0; }));
    }
}

TEST(PerfStats, LatencyPercentilesByNearestRank) {
    std::vector<double> s;
    for (int i = 1000; i >= 1; --i) s.push_back(i);  // 1..1000 us, unsorted
    LatencyStats st = latency_stats(s);
    EXPECT_EQ(st.samples, 1000u);
    EXPECT_EQ(st.min_us, 1);
    EXPECT_EQ(st.median_us, 500);
    EXPECT_EQ(st.p99_us, 990);
    EXPECT_EQ(st.p999_us, 999);
    EXPECT_EQ(st.max_us, 1000);
    EXPECT_DOUBLE_EQ(st.mean_us, 500.5);
    std::vector<double> none;
    EXPECT_EQ(latency_stats(none).samples, 0u);
}

TEST(PerfStats, TheMinimumWindowShowsAStall) {
    // 1 GB/s for 1 s in 100 ms windows, except nothing in the fourth window.
    BandwidthMeter m(100000000);
    for (uint64_t t = 0; t < 1000000000; t += 1000000) {
        if (t >= 300000000 && t < 400000000) continue;
        m.add(t + 500000, 1000000);
    }
    m.finish(1000000000);
    EXPECT_EQ(m.windows(), 10u);
    EXPECT_NEAR(m.average_gbps(), 7.2, 1e-9);  // 900 MB in 1 s
    EXPECT_NEAR(m.peak_gbps(), 8.04,
                1e-6);  // the first window also holds half of the 100.5 ms completion
    // The first completion after the stall stands for 101 ms: 1 MB of it falls in the gap.
    EXPECT_NEAR(m.min_window_gbps(), 8.0 / 101, 1e-6);
}

TEST(PerfStats, CoarseCompletionsAreSpreadNotMistakenForStalls) {
    // CQ moderation on a slow link: 100 x 64K signalled every 128 ms, 100 ms windows.
    BandwidthMeter m(100000000);
    for (uint64_t t = 128000000; t <= 5120000000; t += 128000000) m.add(t, 6553600);
    m.finish(5120000000);  // the run ends with its last completion
    EXPECT_NEAR(m.min_window_gbps(), m.average_gbps(), 0.01 * m.average_gbps());
    EXPECT_NEAR(m.peak_gbps(), m.average_gbps(), 0.01 * m.average_gbps());
}

TEST(PerfStats, ThePartialLastWindowDoesNotCount) {
    BandwidthMeter m(100000000);
    m.add(50000000, 1000);
    m.add(150000000, 1000);
    m.finish(150000000);  // the second window is half done
    EXPECT_EQ(m.windows(), 1u);
    EXPECT_GT(m.min_window_gbps(), 0);
}

TEST(PerfSpec, SizesAndNames) {
    EXPECT_EQ(parse_size("64K"), 65536u);
    EXPECT_EQ(parse_size("1M"), 1048576u);
    EXPECT_EQ(parse_size("2"), 2u);
    EXPECT_FALSE(parse_size("0"));
    EXPECT_FALSE(parse_size("2G"));
    EXPECT_FALSE(parse_size("lots"));
    EXPECT_EQ(format_size(65536), "64K");
    EXPECT_EQ(format_size(3), "3");
    TestSpec s;
    s.op = Op::Send;
    s.measure = Measure::Latency;
    EXPECT_EQ(s.name(), "send_lat");
    s.measure = Measure::Bandwidth;
    s.bidirectional = true;
    EXPECT_EQ(s.name(), "send_bw_bidir");
}

TEST(PerfSpec, RoundTripsAndRejectsNonsense) {
    TestSpec s;
    s.op = Op::Read;
    s.size = 4096;
    s.iterations = 77;
    s.window = Millis(50);
    TestSpec back = spec_from_json(spec_to_json(s));
    EXPECT_EQ(back.name(), s.name());
    EXPECT_EQ(back.size, 4096u);
    EXPECT_EQ(back.iterations, 77u);
    EXPECT_EQ(back.window, Millis(50));
    auto j = spec_to_json(s);
    j["op"] = "atomic";
    EXPECT_THROW(spec_from_json(j), nlohmann::json::exception);
    j = spec_to_json(s);
    j["size"] = 0;
    EXPECT_THROW(spec_from_json(j), nlohmann::json::exception);
}

TestResult bw(const std::string& peer, double gbps) {
    TestResult r;
    r.peer = peer;
    r.ok = true;
    r.avg_gbps = gbps;
    return r;
}

TEST(PerfCompare, ThePeerBelowTheBestIsDegraded) {
    std::vector<TestResult> rs{bw("h2", 0.28), bw("h3", 0.05), bw("h4", 0.26)};
    rs[1].counters = {{"local", {{"completer_retry_err", 221}}}};
    auto f = compare_peers(rs, 0.7);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, "pair_degraded");
    EXPECT_EQ(f[0].peer, "h3");
    EXPECT_NEAR(f[0].evidence["ratio"].get<double>(), 0.05 / 0.28, 1e-9);
    EXPECT_EQ(f[0].evidence["counters"]["local"]["completer_retry_err"], 221);
    EXPECT_NE(f[0].summary.find("is 18% of the best pair (h2"), std::string::npos) << f[0].summary;
}

TEST(PerfCompare, LatencyComparesMedians) {
    TestResult a;
    a.peer = "h2";
    a.ok = true;
    a.spec.measure = Measure::Latency;
    a.latency.median_us = 140;
    TestResult b = a;
    b.peer = "h4";
    b.latency.median_us = 1200;
    auto f = compare_peers({a, b}, 0.7);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].peer, "h4");
}

TEST(PerfCompare, FailedTestsAreFindingsAndDoNotSetTheBar) {
    TestResult dead = bw("h5", 0);
    dead.ok = false;
    dead.error = "the server closed the connection";
    auto f = compare_peers({bw("h2", 0.28), dead}, 0.7);
    ASSERT_EQ(f.size(), 1u);
    EXPECT_EQ(f[0].kind, "test_failed");
    EXPECT_EQ(f[0].severity, Severity::Error);
    EXPECT_TRUE(compare_peers({bw("h2", 0.28)}, 0.7).empty());  // one peer: nothing to compare
}

TEST(PerfCongestion, ATestsCountersGoThroughTheRoceDetectorsOnBothEnds) {
    const TestEnds ends{"h1", "mlx5_0/1", "h2", "mlx5_3/1"};
    // The receiver (remote, for a WRITE) saw marks and sent no CNP; the
    // sender's retransmissions are loss on the RoCE class; a value the
    // server should not have sent is left out, not trusted.
    nlohmann::json counters = {
        {"local", {{"local_ack_timeout_err", 30}, {"rp_cnp_handled", 0}}},
        {"remote",
         {{"np_ecn_marked_roce_packets", 5000}, {"np_cnp_sent", 0}, {"x", "lots"}, {"y", -5}}}};
    auto f = test_congestion(counters, ends, 5.0, RoceLimits{});
    ASSERT_EQ(f.size(), 2u);
    auto ecn = std::find_if(f.begin(), f.end(),
                            [](const Finding& x) { return x.kind == "ecn_without_cnp"; });
    ASSERT_NE(ecn, f.end());
    EXPECT_EQ(ecn->evidence["host"], "h2");
    EXPECT_EQ(ecn->evidence["port"], "mlx5_3/1");
    EXPECT_NE(ecn->summary.find("over 5.0 s"), std::string::npos) << ecn->summary;
    auto loss = std::find_if(f.begin(), f.end(),
                             [](const Finding& x) { return x.kind == "loss_on_lossless_class"; });
    ASSERT_NE(loss, f.end());
    EXPECT_EQ(loss->evidence["host"], "h1");
    EXPECT_DOUBLE_EQ(loss->evidence["per_second"].get<double>(), 6.0);

    // Below the limits, or no interval: nothing.
    EXPECT_TRUE(
        test_congestion({{"local", {{"local_ack_timeout_err", 2}}}}, ends, 5.0, RoceLimits{})
            .empty());
    EXPECT_TRUE(test_congestion(counters, ends, 0, RoceLimits{}).empty());
    EXPECT_TRUE(test_congestion(nullptr, ends, 5.0, RoceLimits{}).empty());

    // They ride in the result, come back from it, and are findings of their own.
    TestResult r = bw("h2", 0.3);
    r.counters = counters;
    r.congestion = f;
    TestResult back = result_from_json(result_to_json(r));
    ASSERT_EQ(back.congestion.size(), 2u);
    EXPECT_EQ(back.congestion[0].kind, f[0].kind);
    EXPECT_EQ(back.congestion[0].severity, f[0].severity);
    EXPECT_EQ(back.congestion[0].evidence, f[0].evidence);
    auto findings = compare_peers({r}, 0.7);
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_EQ(findings[0].kind, "congestion");
    EXPECT_EQ(findings[0].peer, "h2");
    EXPECT_EQ(findings[0].evidence["congestion"]["kind"], f[0].kind);
    EXPECT_EQ(findings[0].summary.rfind("write_bw 64K to h2: ", 0), 0u) << findings[0].summary;

    // A result file's congestion is bounded and checked.
    nlohmann::json j = result_to_json(r);
    j["congestion"][0]["severity"] = "fatal";
    EXPECT_THROW(result_from_json(j), std::exception);
    j["congestion"] = nlohmann::json::array();
    for (int i = 0; i < 65; ++i) j["congestion"].push_back(result_to_json(r)["congestion"][0]);
    EXPECT_THROW(result_from_json(j), std::exception);
}

TEST(PerfReport, RoundTripsAndNamesTheBadValue) {
    TestResult a = bw("10.0.0.2", 0.4);
    a.peer_host = "h2";
    a.peak_gbps = 0.45;
    TestResult l;
    l.peer = "10.0.0.3";
    l.ok = true;
    l.spec.measure = Measure::Latency;
    l.latency.median_us = 51.5;
    l.latency.samples = 1000;
    nlohmann::json j =
        perf_report_to_json({"2026-11-29T16:00:00Z", "h1", "rxe_h1", 1, 0.7}, {a, l}, {});
    auto back = perf_report_from_json(j);
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->meta.host, "h1");
    ASSERT_EQ(back->results.size(), 2u);
    EXPECT_EQ(back->results[0].peer_host, "h2");
    EXPECT_DOUBLE_EQ(back->results[0].avg_gbps, 0.4);
    EXPECT_DOUBLE_EQ(back->results[0].peak_gbps, 0.45);
    EXPECT_DOUBLE_EQ(back->results[1].latency.median_us, 51.5);
    EXPECT_EQ(back->results[1].latency.samples, 1000u);

    j["results"][1]["latency_us"].erase("median");
    auto bad = perf_report_from_json(j);
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("/results/1/latency_us"), std::string::npos)
        << bad.error().message;
    EXPECT_FALSE(perf_report_from_json(nlohmann::json{{"format", "fabscope-snapshot"}}));
    j["version"] = 2;
    EXPECT_NE(perf_report_from_json(j).error().message.find("version 2"), std::string::npos);
}

TEST(SysfsCounters, ReadsAFixtureTreeAndTakesDeltas) {
    namespace fs = std::filesystem;
    fs::path root = fs::temp_directory_path() / "fabscope-sysfs-test";
    fs::remove_all(root);
    fs::create_directories(root / "rxe0/ports/1/hw_counters");
    fs::create_directories(root / "rxe0/ports/1/counters");
    std::ofstream(root / "rxe0/ports/1/hw_counters/rcvd_seq_err") << "5\n";
    std::ofstream(root / "rxe0/ports/1/hw_counters/lifespan") << "10\n";
    std::ofstream(root / "rxe0/ports/1/counters/port_xmit_data") << "1000\n";
    CounterMap before = read_sysfs_counters("rxe0", 1, root.string());
    EXPECT_EQ(before.at("rcvd_seq_err"), 5u);
    EXPECT_EQ(before.at("port_xmit_data"), 1000u);
    std::ofstream(root / "rxe0/ports/1/hw_counters/rcvd_seq_err") << "9\n";
    std::ofstream(root / "rxe0/ports/1/counters/port_xmit_data") << "10\n";  // reset
    CounterMap d = counter_deltas(before, read_sysfs_counters("rxe0", 1, root.string()));
    EXPECT_EQ(d.at("rcvd_seq_err"), 4u);
    EXPECT_EQ(d.at("port_xmit_data"), 10u);
    EXPECT_EQ(nonzero(d).count("lifespan"), 0u);
    EXPECT_TRUE(read_sysfs_counters("nodev", 1, root.string()).empty());
    fs::remove_all(root);
}

}  // namespace
}  // namespace fabscope::perf

// Found by fuzz_perf_report: a "format" or "version" of the wrong type threw
// out of the reader instead of saying the file is not a report.
TEST(PerfReport, HeaderFieldsOfTheWrongTypeAreNotAReport) {
    for (const char* text : {R"({"format":1,"started":[],"findings":[]})",
                             R"({"format":"fabscope-perf","version":"1"})",
                             R"({"format":"fabscope-perf","version":[1]})", R"([1,2])"}) {
        auto r = fabscope::perf::perf_report_from_json(nlohmann::json::parse(text));
        EXPECT_FALSE(r) << text;
    }
}
