// The renderers of `fabscope report` on fixture fabrics: what each shows,
// that text from the fabric never becomes markup, and that the inputs are
// told apart and read back through the model.

#include <gtest/gtest.h>

#include <fstream>

#include "reports/csv_report.h"
#include "reports/escape.h"
#include "reports/fabric_svg.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

size_t count_of(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

/// 2 spines, 4 leaves, 4 hosts each; leaf02's first uplink (port 5) runs 1X.
Snapshot degraded_snapshot(const std::string& host_name = "") {
    std::vector<Node> nodes = testing::leaf_spine_nodes({});
    testing::set_link_width(nodes, "leaf02", 5, Width::X1, WidthSet{Width::X1});
    if (!host_name.empty()) testing::node_named(nodes, "h0001 HCA-1").description = host_name;
    Snapshot s;
    s.source.method = "sweep";
    s.source.ca = "ibsim0";
    s.source.ca_port = 1;
    s.fabric = Fabric::build(std::move(nodes)).value();
    return s;
}

perf::TestResult bw(const std::string& peer, double gbps, bool ok = true) {
    perf::TestResult r;
    r.peer = peer;
    r.peer_host = peer;
    r.ok = ok;
    r.avg_gbps = gbps;
    if (!ok) r.error = "peer gone";
    return r;
}

perf::PerfReport perf_from(const std::string& host, std::vector<perf::TestResult> results) {
    perf::PerfReport p;
    p.meta.host = host;
    p.meta.device = "mlx5_0";
    p.results = std::move(results);
    return p;
}

ReportModel degraded_model() {
    std::vector<perf::PerfReport> perf{
        perf_from("h0001", {bw("h0005", 190), bw("h0009", 60), bw("h0013", 188)}),
        perf_from("h0005", {bw("h0001", 191), bw("h0009", 189), bw("h0013", 0, false)})};
    return build_report(degraded_snapshot(), std::nullopt, std::move(perf),
                        {"1.2.3", "fabscope report x", "2026-12-01T00:00:00Z", {}});
}

size_t degraded_link(const ReportModel& m) {
    const Fabric& f = m.snapshot->fabric;
    const Link* l = f.link_of({0x2002, 5});
    return static_cast<size_t>(l - f.links().data());
}

TEST(ReportEscape, HtmlCsvMarkdown) {
    EXPECT_EQ(html_escape("<a href='x'>&\"</a>"),
              "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;");
    EXPECT_EQ(html_escape(std::string("a\x01"
                                      "b")),
              "a\xEF\xBF\xBD"
              "b");
    EXPECT_EQ(csv_field("plain"), "plain");
    EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
    EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
    EXPECT_EQ(csv_field("=cmd()"), "'=cmd()");
    EXPECT_EQ(csv_field("-5"), "-5");
    EXPECT_EQ(md_escape("a|b *c* <x>\nd"), "a\\|b \\*c\\* &lt;x&gt; d");
    EXPECT_EQ(html_id("leaf02[5] -- spine01[2]"), "leaf02_5__--_spine01_2_");
}

TEST(ReportModel, SnapshotAloneIsCheckedAndTheBadLinkFound) {
    ReportModel m = degraded_model();
    EXPECT_EQ(m.verdict(), "FAIL");
    ASSERT_FALSE(m.findings.empty());
    size_t li = degraded_link(m);
    ASSERT_TRUE(m.link_severity(li).has_value());
    EXPECT_EQ(m.link_name(li), "leaf02[5] -- spine01[2]");
    size_t bad = 0;
    for (size_t i = 0; i < m.link_findings.size(); ++i) bad += m.link_severity(i) ? 1 : 0;
    EXPECT_EQ(bad, 1U);
    // Perf: one matrix, both hosts by three peers; the short pair degraded, the failed one failed.
    ASSERT_EQ(m.matrices.size(), 1U);
    EXPECT_EQ(m.matrices[0].rows.size(), 2U);
    EXPECT_EQ(m.matrices[0].cols.size(), 4U);
    EXPECT_DOUBLE_EQ(m.matrices[0].best, 191);
    size_t degraded = 0;
    size_t failed = 0;
    for (const PairCheck& c : m.pairs) {
        degraded += c.degraded ? 1 : 0;
        failed += c.ok ? 0 : 1;
    }
    EXPECT_EQ(degraded, 1U);
    EXPECT_EQ(failed, 1U);
}

TEST(ReportModel, HealthyFabricPasses) {
    Snapshot s;
    s.fabric = testing::leaf_spine({});
    ReportModel m = build_report(std::move(s), std::nullopt, {}, {});
    EXPECT_EQ(m.verdict(), "PASS");
    std::string html = render_html_report(m);
    EXPECT_EQ(count_of(html, "<g class=\"bad-link "), 0U);
    EXPECT_EQ(count_of(render_junit_report(m), "<failure"), 0U);
}

TEST(HtmlReport, DrawingMarksAndNamesTheBadLinkAndHasTheHeatMap) {
    ReportModel m = degraded_model();
    std::string html = render_html_report(m);
    EXPECT_NE(html.find("<svg class=\"fabric\""), std::string::npos);
    EXPECT_NE(html.find("id=\"link-leaf02_5__--_spine01_2_\""), std::string::npos);
    EXPECT_NE(html.find("data-link=\"leaf02[5] -- spine01[2]\""), std::string::npos);
    EXPECT_EQ(count_of(html, "<g class=\"bad-link "), 1U);
    EXPECT_EQ(count_of(html, "<g class=\"heat-cell "), 6U);
    EXPECT_EQ(count_of(html, "<g class=\"heat-cell degraded\""), 1U);
    EXPECT_EQ(count_of(html, "<g class=\"heat-cell failed\""), 1U);
    // Every node drawn: 2 spines, 4 leaves, 16 hosts.
    EXPECT_EQ(count_of(html, "<g class=\"node "), 22U);
    // Self-contained: nothing to fetch, and the page forbids fetching.
    EXPECT_EQ(html.find("http://"), std::string::npos);
    EXPECT_EQ(html.find("https://"), std::string::npos);
    EXPECT_EQ(html.find("src="), std::string::npos);
    EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
    EXPECT_NE(html.find("@media print"), std::string::npos);
    EXPECT_NE(html.find("@media (max-width"), std::string::npos);
    // The verdict comes before the drawing.
    EXPECT_LT(html.find(">FAIL<"), html.find("<svg"));
}

TEST(HtmlReport, NodeDescriptionsAreInert) {
    const std::string evil = "<script>alert(1)</script><img src=x onerror=alert(2)>";
    std::vector<perf::PerfReport> perf{perf_from(evil, {bw(evil, 100)})};
    ReportModel m = build_report(degraded_snapshot(evil), std::nullopt, std::move(perf),
                                 {"1", evil, "now", {evil}});
    for (const std::string& out : {render_html_report(m), render_junit_report(m)}) {
        EXPECT_EQ(out.find("<script"), std::string::npos);
        EXPECT_EQ(out.find("<img"), std::string::npos);
        EXPECT_NE(out.find("&lt;script&gt;"), std::string::npos);
    }
    std::string md = render_markdown_report(m);
    EXPECT_EQ(md.find("<script"), std::string::npos);
    EXPECT_EQ(md.find("<img"), std::string::npos);
}

TEST(MarkdownReport, VerdictFindingsLinksPairs) {
    std::string md = render_markdown_report(degraded_model());
    EXPECT_EQ(md.rfind("## fabscope report: **FAIL**", 0), 0U);
    EXPECT_NE(md.find("| Severity | Finding | Where | Evidence |"), std::string::npos);
    EXPECT_NE(md.find("- **warning** leaf02\\[5\\] -- spine01\\[2\\]\n"), std::string::npos) << md;
    EXPECT_NE(md.find("**degraded**"), std::string::npos);
}

TEST(JunitReport, OneCasePerLinkCheckAndPairFailuresCarryTheEvidence) {
    ReportModel m = degraded_model();
    std::string xml = render_junit_report(m);
    size_t links = m.snapshot->fabric.links().size();
    size_t other = 0;  // findings not on a cable
    for (size_t i = 0; i < m.findings.size(); ++i) {
        bool on_link = false;
        for (const auto& v : m.link_findings)
            on_link = on_link || std::find(v.begin(), v.end(), i) != v.end();
        other += (!on_link && m.findings[i].source == "validation") ? 1 : 0;
    }
    EXPECT_EQ(count_of(xml, "<testcase "), links + m.checks.size() + other + m.pairs.size());
    EXPECT_EQ(count_of(xml, "<testsuite "), 3U);
    EXPECT_NE(xml.find("name=\"leaf02[5] -- spine01[2]\">\n      <failure type=\"link_below"),
              std::string::npos);
    EXPECT_NE(xml.find("evidence: {"), std::string::npos);
    EXPECT_NE(xml.find("<failure type=\"pair_degraded\""), std::string::npos);
    EXPECT_NE(xml.find("<failure type=\"test_failed\""), std::string::npos);
    EXPECT_NE(xml.find("peer gone"), std::string::npos);
}

TEST(CsvReport, SectionsAndQuoting) {
    ReportModel m = build_report(degraded_snapshot("h0001 \"lab\", rack 3"), std::nullopt, {}, {});
    std::string csv = render_csv_report(m);
    EXPECT_EQ(csv.rfind("START_LINKS\r\nNodeGuid1,PortNum1,NodeDesc1,", 0), 0U);
    EXPECT_NE(csv.find("START_PORTS\r\n"), std::string::npos);
    EXPECT_NE(csv.find("END_FINDINGS\r\n"), std::string::npos);
    EXPECT_EQ(csv.find("START_PAIRS"), std::string::npos);
    EXPECT_NE(csv.find(",\"h0001 \"\"lab\"\", rack 3\","), std::string::npos);
    // The bad link's record says so; every LINKS record has the header's 11 fields.
    size_t start = csv.find("START_LINKS\r\n") + 13;
    size_t end = csv.find("END_LINKS");
    size_t bad = 0;
    for (size_t at = start; at < end;) {
        size_t eol = csv.find("\r\n", at);
        std::string line = csv.substr(at, eol - at);
        if (line.find(",error,") != std::string::npos ||
            line.find(",warning,") != std::string::npos)
            ++bad;
        at = eol + 2;
    }
    EXPECT_EQ(bad, 1U);
}

TEST(ReportInput, ValidationDocumentReadsBack) {
    ReportModel from_snapshot = degraded_model();
    Snapshot s = degraded_snapshot();
    Validation v;
    v.checks = {"a check"};
    Finding f{"link_below_peers",
              Severity::Warning,
              "leaf02[5] runs 1X",
              {{0x2002, 5}, {0x3001, 2}},
              {{"width", "1X"}}};
    v.findings.push_back(f);
    ValidationMeta meta;
    meta.command = "validate";
    auto doc = validation_doc_from_json(validation_to_json(s.fabric, v, meta));
    ASSERT_TRUE(doc) << doc.error().message;
    ASSERT_EQ(doc->findings.size(), 1U);
    EXPECT_EQ(doc->findings[0].labels[0].node, "leaf02");
    EXPECT_EQ(doc->findings[0].where[0], (PortRef{0x2002, 5}));
    EXPECT_EQ(doc->findings[0].evidence["width"], "1X");
    EXPECT_EQ(doc->result, "fail");
    // With the snapshot the finding marks its cable; without, it still has a verdict.
    ReportModel both = build_report(std::move(s), *doc, {}, {});
    EXPECT_TRUE(both.link_severity(degraded_link(both)).has_value());
    EXPECT_EQ(build_report(std::nullopt, *doc, {}, {}).verdict(), "FAIL");

    EXPECT_FALSE(validation_doc_from_json({{"format", "fabscope-validation"}, {"version", 2}}));
    auto bad = validation_doc_from_json(
        {{"format", "fabscope-validation"}, {"version", 1}, {"findings", {{{"kind", 3}}}}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("/findings/0/kind"), std::string::npos)
        << bad.error().message;
}

TEST(ReportInput, TellsKindsApartAndNamesTheBadFile) {
    std::string dir = ::testing::TempDir();
    auto write = [&](const std::string& name, const std::string& text) {
        std::ofstream(dir + name) << text;
        return dir + name;
    };
    std::string snap = write("r-snap.json", snapshot_to_json(degraded_snapshot()).dump());
    std::string perf =
        write("r-perf.json", perf::perf_report_to_json({}, {bw("h2", 100)}, {}).dump());
    auto m = load_report({snap, perf}, {});
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_TRUE(m->snapshot);
    EXPECT_EQ(m->perf.size(), 1U);
    EXPECT_EQ(m->meta.inputs.size(), 2U);

    for (const std::string& text :
         {std::string(R"({"pattern":"cover","rounds":[],"endpoints":[]})"),
          std::string(R"({"format":"other"})"), std::string("[1,2"),
          std::string(R"({"format":"fabscope-perf","version":1,"results":3})")}) {
        std::string bad = write("r-bad.json", text);
        auto r = load_report({snap, bad}, {});
        ASSERT_FALSE(r) << text;
        EXPECT_EQ(r.error().code, 2);
        EXPECT_NE(r.error().message.find(bad), std::string::npos) << r.error().message;
    }
    auto twice = load_report({snap, snap}, {});
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("second snapshot"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
