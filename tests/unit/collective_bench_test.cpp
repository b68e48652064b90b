// nccl-tests' output as a report input: the parser on the synthetic fixtures
// of tests/fixtures/nccl (nccl-tests' published format, written by hand),
// its bounds and errors, and what the report makes of it: findings, checks
// and the JUnit suite a cluster acceptance run gates on.

#include "formats/collective_bench.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "model/thresholds.h"
#include "reports/junit_report.h"
#include "reports/report_model.h"
#include "reports/report_runs.h"

namespace fabscope {
namespace {

std::string nccl_fixture(const std::string& name) {
    std::ifstream f(std::string(FIXTURES_DIR) + "/nccl/" + name);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

TEST(CollectiveBench, ReadsEveryRowRankAndTheSummary) {
    auto b = parse_nccl_tests(nccl_fixture("all_reduce_perf-healthy.txt"),
                              "run/all_reduce_perf-healthy.txt");
    ASSERT_TRUE(b) << b.error().message;
    EXPECT_EQ(b->collective, "all_reduce");
    ASSERT_EQ(b->ranks.size(), 16u);
    EXPECT_EQ(b->ranks[9].host, "gpu002");
    EXPECT_EQ(b->ranks[9].device, "NVIDIA H100 80GB HBM3");
    EXPECT_EQ(collective_title(*b), "all_reduce over 16 ranks on 2 hosts");
    ASSERT_EQ(b->rows.size(), 16u);  // 8 B to 8 GiB, by 4
    const CollectiveRow& top = *b->largest();
    EXPECT_EQ(top.size, 8589934592u);
    EXPECT_EQ(top.count, 2147483648u);
    EXPECT_EQ(top.type, "float");
    EXPECT_EQ(top.redop, "sum");
    EXPECT_EQ(top.root, -1);
    ASSERT_TRUE(top.out_of_place && top.in_place);
    EXPECT_DOUBLE_EQ(top.out_of_place->busbw_gbps, 189.94);
    // busbw is algbw x 2(n-1)/n for an all-reduce, as nccl-tests' PERFORMANCE.md says.
    EXPECT_NEAR(top.out_of_place->busbw_gbps, top.out_of_place->algbw_gbps * 2 * 15 / 16, 0.02);
    EXPECT_EQ(top.out_of_place->wrong, 0u);
    EXPECT_EQ(b->out_of_bounds, 0u);
    ASSERT_TRUE(b->avg_busbw_gbps);
    EXPECT_EQ(b->wrong(), 0u);
    EXPECT_TRUE(looks_like_nccl_tests(nccl_fixture("all_reduce_perf-healthy.txt")));
    EXPECT_FALSE(looks_like_nccl_tests("{\"format\": \"fabscope-snapshot\"}"));
    // A JSON document quoting nccl-tests is still JSON.
    EXPECT_FALSE(looks_like_nccl_tests(" {\"description\": \"# nThread 1 nGpus 8\"}"));
}

TEST(CollectiveBench, TheCollectiveIsToldFromSizesAndCountsWithoutAName) {
    const std::string head =
        "#       size         count      type   redop    root     time   algbw   busbw #wrong     "
        "time   algbw   busbw #wrong\n"
        "#  Rank  0 Group  0 Pid  1 on a device  0 [0x07] X\n"
        "#  Rank  1 Group  0 Pid  2 on b device  0 [0x07] X\n";
    auto rs = parse_nccl_tests(
        head + "  1024  128  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n",
        "out.txt");
    ASSERT_TRUE(rs) << rs.error().message;
    EXPECT_EQ(rs->collective, "reduce_scatter");  // 128 floats per rank, 2 ranks: 1 KiB
    auto bc = parse_nccl_tests(
        head + "  1024  256  float  none  0  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n",
        "out.txt");
    ASSERT_TRUE(bc);
    EXPECT_EQ(bc->collective, "broadcast");
    auto named = parse_nccl_tests(
        head + "  1024  128  float  none  -1  10.0  0.10  0.10  N/A  N/A N/A N/A N/A\n",
        "logs/all_gather_perf.out");
    ASSERT_TRUE(named) << named.error().message;
    EXPECT_EQ(named->collective, "all_gather");
    EXPECT_FALSE(named->rows[0].out_of_place->wrong);  // not checked (-c 0)
    EXPECT_FALSE(named->rows[0].in_place);
}

TEST(CollectiveBench, BadOutputIsAnErrorNamingTheLine) {
    const std::string header =
        "# nThread 1\n#       size         count      type   redop    root     time   algbw   "
        "busbw "
        "#wrong     time   algbw   busbw #wrong\n";
    struct Case {
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {"# nThread 1\nno header here\n", "x.txt: no nccl-tests column header"},
        {header, "x.txt: no results under the column header"},
        {header + "  1024  256  float  sum  -1  10.0  0.10\n",
         "x.txt:3: 7 fields where the header has 13"},
        {header + "  1024  256  float  sum  -1  ten  0.10  0.10  0  10.0  0.10  0.10  0\n",
         "x.txt:3: time, algbw and busbw must be numbers"},
        {header + "  1024  256  float  sum  -1  10.0  0.10  0.10  -3  10.0  0.10  0.10  0\n",
         "x.txt:3: #wrong \"-3\" is not a count"},
        {"#       size   count  type  redop  time  algbw  busbw  error  time  algbw  busbw  "
         "error\n",
         "x.txt:1: a \"error\" column where nccl-tests 2.10 and later print #wrong"},
        {header + std::string(5000, ' ') + "\n", "x.txt:3: line longer than 4096 bytes"},
    };
    for (const Case& c : cases) {
        auto b = parse_nccl_tests(c.text, "x.txt");
        ASSERT_FALSE(b) << c.says;
        EXPECT_NE(b.error().message.find(c.says), std::string::npos) << b.error().message;
        EXPECT_EQ(b.error().code, 2);
    }
}

ReportModel report_of(const std::string& name, std::optional<double> expect) {
    ReportMeta meta;
    meta.expect_busbw_gbps = expect;
    auto b = parse_nccl_tests(nccl_fixture(name), name);
    EXPECT_TRUE(b) << b.error().message;
    RunDocs runs;
    runs.collectives.push_back(std::move(*b));
    return build_report(std::nullopt, std::nullopt, {}, meta, std::nullopt, std::move(runs));
}

TEST(CollectiveReport, AHealthyRunPassesAndSaysWhatWasJudged) {
    ReportModel m = report_of("all_reduce_perf-healthy.txt", 180);
    EXPECT_EQ(m.verdict(), "PASS");
    EXPECT_TRUE(m.findings.empty());
    JunitReport j = junit_report(m);
    EXPECT_EQ(j.tests, 2u);
    EXPECT_EQ(j.failures, 0u);
    EXPECT_NE(j.xml.find("name=\"all_reduce over 16 ranks on 2 hosts bus bandwidth\""),
              std::string::npos)
        << j.xml;
    EXPECT_NE(j.xml.find("189.94 GB/s at 8589934592 B, expected 180.00"), std::string::npos);
    // Without an expectation nothing judges the bandwidth, and the case says so.
    ReportModel unjudged = report_of("all_reduce_perf-slow.txt", std::nullopt);
    EXPECT_EQ(unjudged.verdict(), "PASS");
    EXPECT_NE(junit_report(unjudged).xml.find(
                  "not judged (no --expect-busbw, no collective.busbw_gbps in --thresholds)"),
              std::string::npos);
}

TEST(CollectiveReport, TheThresholdsFileCarriesTheBusBandwidthExpected) {
    auto t = parse_thresholds("fabscope_thresholds: 1\ncollective: {busbw_gbps: 180.5}\n", "t");
    ASSERT_TRUE(t) << t.error().message;
    ASSERT_TRUE(t->collective.busbw_gbps);
    EXPECT_DOUBLE_EQ(*t->collective.busbw_gbps, 180.5);
    EXPECT_FALSE(default_thresholds().collective.busbw_gbps);  // not judged without one
    for (const char* bad : {"collective: {busbw_gbps: 0}\n", "collective: {busbw_gbps: -3}\n",
                            "collective: {busbw: 180}\n", "collective: 180\n"}) {
        auto r = parse_thresholds(std::string("fabscope_thresholds: 1\n") + bad, "gate.yaml");
        ASSERT_FALSE(r) << bad;
        EXPECT_NE(r.error().message.find("gate.yaml:2:"), std::string::npos) << r.error().message;
    }
}

TEST(CollectiveReport, ABusBandwidthBelowTheExpectationFailsItsCase) {
    ReportModel m = report_of("all_reduce_perf-slow.txt", 180);
    EXPECT_EQ(m.verdict(), "FAIL");
    ASSERT_EQ(m.findings.size(), 1u);
    const ReportFinding& f = m.findings[0];
    EXPECT_EQ(f.kind, "collective_busbw_low");
    EXPECT_EQ(f.severity, Severity::Error);
    EXPECT_EQ(f.summary,
              "all_reduce over 16 ranks on 2 hosts: 95.0 GB/s bus bandwidth at 8589934592 B, 53% "
              "of the 180.0 GB/s expected");
    EXPECT_DOUBLE_EQ(f.evidence["busbw_gbps"].get<double>(), 94.99);
    JunitReport j = junit_report(m);
    EXPECT_EQ(j.failures, 1u);
    EXPECT_NE(j.xml.find("<failure type=\"collective_busbw_low\""), std::string::npos);
}

TEST(CollectiveReport, AWrongElementIsAnErrorWhateverTheBandwidth) {
    ReportModel m = report_of("all_reduce_perf-wrong.txt", std::nullopt);
    EXPECT_EQ(m.verdict(), "FAIL");
    ASSERT_EQ(m.findings.size(), 1u);
    EXPECT_EQ(m.findings[0].kind, "collective_wrong");
    EXPECT_NE(m.findings[0].summary.find("3 elements computed wrong (first at 2097152 B, "
                                         "out-of-place)"),
              std::string::npos)
        << m.findings[0].summary;
    EXPECT_EQ(m.findings[0].evidence["rows"][0]["line"], 35);
    JunitReport j = junit_report(m);
    EXPECT_EQ(j.failures, 1u);
    EXPECT_NE(j.xml.find("<failure type=\"collective_wrong\""), std::string::npos);
}

TEST(CollectiveBench, ANumberThatIsNotFiniteIsAnErrorNamingItsLine) {
    // NaN passed the gate: "busbw < expected" is false for it.
    auto nan = parse_nccl_tests(nccl_fixture("all_reduce_perf-nan.txt"), "nan.txt");
    ASSERT_FALSE(nan);
    EXPECT_EQ(nan.error().code, 2);
    EXPECT_NE(nan.error().message.find("nan.txt:41: busbw \"nan\" is not a finite number"),
              std::string::npos)
        << nan.error().message;
    const std::string header =
        "# nThread 1\n#       size         count      type   redop    root     time   algbw   "
        "busbw #wrong     time   algbw   busbw #wrong\n";
    const std::string row =
        "  1024  256  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n";
    struct Case {
        std::string text;
        const char* says;
    };
    const Case cases[] = {
        {header + "  1024  256  float  sum  -1  10.0  0.10  -nan  0  10.0  0.10  0.10  0\n",
         "x.txt:3: busbw \"-nan\" is not a finite number"},
        {header + "  1024  256  float  sum  -1  inf  0.10  0.10  0  10.0  0.10  0.10  0\n",
         "x.txt:3: time \"inf\" is not a finite number"},
        {header + "  1024  256  float  sum  -1  10.0  0.10  0.10  0  10.0  NaN  0.10  0\n",
         "x.txt:3: algbw \"NaN\" is not a finite number"},
        {header + row + "# Out of bounds values : nan FAILED\n",
         "x.txt:4: Out of bounds values \"nan\" is not a finite number"},
        {header + row + "# Avg bus bandwidth    : -nan\n",
         "x.txt:4: Avg bus bandwidth \"-nan\" is not a finite number"},
    };
    for (const Case& c : cases) {
        auto b = parse_nccl_tests(c.text, "x.txt");
        ASSERT_FALSE(b) << c.says;
        EXPECT_NE(b.error().message.find(c.says), std::string::npos) << b.error().message;
        EXPECT_EQ(b.error().code, 2);
    }
}

TEST(CollectiveBench, ARowThatCannotBeReadIsAnErrorNotALogLine) {
    // It was skipped (its size is not all digits) and the gate judged the
    // size before it, as the user guide says it must not.
    auto garbled = parse_nccl_tests(nccl_fixture("all_reduce_perf-garbled.txt"), "g.txt");
    ASSERT_FALSE(garbled);
    EXPECT_EQ(garbled.error().code, 2);
    EXPECT_NE(garbled.error().message.find("g.txt:41: size \"8.0e+09\" is not a number"),
              std::string::npos)
        << garbled.error().message;
    const std::string header =
        "#       size         count      type   redop    root     time   algbw   "
        "busbw #wrong     time   algbw   busbw #wrong\n";
    const std::string row =
        "  1024  256  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n";
    for (const char* bad :
         {"  -1024  256  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n",
          "  2048x  512  float  sum  -1  10.0  0.10  0.10  0\n",
          "  big  512  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n"}) {
        auto b = parse_nccl_tests(header + row + bad, "x.txt");
        ASSERT_FALSE(b) << bad;
        EXPECT_NE(b.error().message.find("x.txt:3: "), std::string::npos) << b.error().message;
    }
    // Log lines are still skipped: a launcher's timestamp, a tagged line, NCCL
    // INFO with as many words as the header has columns.
    auto logs = parse_nccl_tests(
        header + "2026-12-07 23:00:01 job 42 started\n23:00:02 ranks up\n[1,0]<stdout>: hello\n" +
            "gpu001:41000:41000 [0] NCCL INFO Channel 00/02 : 0 1 2 3 4 5\n" + row,
        "x.txt");
    ASSERT_TRUE(logs) << logs.error().message;
    EXPECT_EQ(logs->rows.size(), 1u);
}

TEST(CollectiveReport, OutOfBoundsValuesOtherThanZeroOkIsCollectiveWrong) {
    // Every row's #wrong is 0: nccl-tests' own check was the only one to fail.
    ReportModel m = report_of("all_reduce_perf-oob-failed.txt", 180);
    EXPECT_EQ(m.verdict(), "FAIL");
    ASSERT_EQ(m.findings.size(), 1u);
    EXPECT_EQ(m.findings[0].kind, "collective_wrong");
    EXPECT_EQ(m.findings[0].evidence["out_of_bounds"], "2 FAILED");
    const std::string header =
        "#       size         count      type   redop    root     time   algbw   "
        "busbw #wrong     time   algbw   busbw #wrong\n"
        "  1024  256  float  sum  -1  10.0  0.10  0.10  0  10.0  0.10  0.10  0\n";
    for (const char* said : {"0 FAILED", "garbage", "0 OK but not really"}) {
        auto b = parse_nccl_tests(header + "# Out of bounds values : " + said + "\n", "x.txt");
        ASSERT_TRUE(b) << b.error().message;
        EXPECT_TRUE(b->out_of_bounds_failed) << said;
        auto f = collective_findings(*b, std::nullopt);
        ASSERT_EQ(f.size(), 1u) << said;
        EXPECT_EQ(f[0].kind, "collective_wrong");
        EXPECT_NE(f[0].summary.find("nccl-tests' check of its results failed"), std::string::npos)
            << f[0].summary;
    }
    auto ok = parse_nccl_tests(header + "# Out of bounds values : 0 OK\n", "x.txt");
    ASSERT_TRUE(ok);
    EXPECT_FALSE(ok->out_of_bounds_failed);
    EXPECT_TRUE(collective_findings(*ok, std::nullopt).empty());
}

}  // namespace
}  // namespace fabscope
