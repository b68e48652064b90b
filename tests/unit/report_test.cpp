// The renderers of `fabscope report` on fixture fabrics: what each shows,
// that text from the fabric never becomes markup, and that the inputs are
// told apart and read back through the model.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "check/validate.h"
#include "model/plan.h"
#include "reports/csv_report.h"
#include "reports/escape.h"
#include "reports/fabric_svg.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "reports/validation_report.h"
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
    EXPECT_EQ(md_escape("a|b *c* <x> & y\nd"), "a\\|b \\*c\\* \\<x\\> \\& y d");
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

TEST(HtmlReport, A76NodeFabricIsDrawnAtItsOwnSizeTiersWrapped) {
    // 4 spines, 8 leaves, 64 hosts: one line of 64 hosts was a drawing 7030
    // wide that a 1200-pixel page scaled to a sixth (unreadable text). The
    // tiers wrap instead: no wider than the page, every node drawn.
    Snapshot s;
    s.fabric = testing::leaf_spine({.spines = 4, .leaves = 8, .hosts_per_leaf = 8});
    ReportModel m = build_report(std::move(s), std::nullopt, {}, {});
    const std::string svg = render_fabric_svg(m);
    int w = 0;
    int h = 0;
    ASSERT_EQ(std::sscanf(svg.c_str(), "<svg class=\"fabric\" viewBox=\"0 0 %d %d\"", &w, &h), 2)
        << svg.substr(0, 80);
    EXPECT_LE(w, FabricSvgOptions{}.max_width);
    EXPECT_GE(w, 900);  // a line as full as it fits, not a narrow column
    EXPECT_EQ(count_of(svg, "<g class=\"node "), 76U);
    EXPECT_EQ(count_of(svg, "collapsed"), 0U);
    // Hosts on several lines, each box inside the drawing.
    std::set<int> host_rows;
    for (size_t at = svg.find("<g class=\"node host\">"); at != std::string::npos;
         at = svg.find("<g class=\"node host\">", at + 1)) {
        int x = 0;
        int y = 0;
        const size_t rect = svg.find("<rect x=", at);
        ASSERT_EQ(std::sscanf(svg.c_str() + rect, "<rect x=\"%d\" y=\"%d\"", &x, &y), 2);
        EXPECT_LE(x + 96, w);
        EXPECT_LE(y + 28, h);
        host_rows.insert(y);
    }
    EXPECT_GE(host_rows.size(), 7U);
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
    // Markdown: every < from the fabric backslash-escaped (CommonMark shows
    // it as text; no tag can start), only the report's own <sub> left.
    std::string md = render_markdown_report(m);
    for (size_t at = md.find('<'); at != std::string::npos; at = md.find('<', at + 1)) {
        if (md.compare(at, 5, "<sub>") == 0 || md.compare(at, 6, "</sub>") == 0) continue;
        EXPECT_TRUE(at > 0 && md[at - 1] == '\\') << md.substr(at, 20);
    }
    EXPECT_NE(md.find("\\<script\\>"), std::string::npos) << md;
}

TEST(MarkdownReport, VerdictFindingsLinksPairs) {
    std::string md = render_markdown_report(degraded_model());
    EXPECT_EQ(md.rfind("## fabscope report: **FAIL**", 0), 0U);
    EXPECT_NE(md.find("| Severity | Finding | Where | Evidence |"), std::string::npos);
    EXPECT_NE(md.find("- **warning** leaf02\\[5\\] -- spine01\\[2\\]\n"), std::string::npos) << md;
    EXPECT_NE(md.find("**degraded**"), std::string::npos);
}

TEST(MarkdownReport, AOneProblemTicketReadsAsTheGoldenFile) {
    // What a vendor gets: the one problem (--finding leaf02[5]), its ports
    // with GUIDs and LIDs, its evidence as words with both ends' active,
    // enabled and supported rates, when it was measured, and no HTML
    // entity or raw JSON anywhere.
    const std::string dir = std::string(FIXTURES_DIR) + "/report/";
    auto m = load_report({dir + "fabric-degraded.json"},
                         {"1.2.3",
                          "fabscope report fabric-degraded.json --finding leaf02[5]",
                          "2026-12-04T12:00:00Z",
                          {}});
    ASSERT_TRUE(m) << m.error().message;
    m->meta.inputs = {"fabric-degraded.json (snapshot)"};
    ASSERT_TRUE(keep_findings(*m, FindingFilter{{"leaf02[5]"}, {}}));
    ASSERT_EQ(m->findings.size(), 1U);
    const std::string md = render_markdown_report(*m);
    std::stringstream golden;
    golden << std::ifstream(dir + "ticket.md").rdbuf();
    if (md != golden.str()) {
        // What it wrote, to compare with (and, when the change is meant, copy to) the golden file.
        const std::string actual = ::testing::TempDir() + "ticket.md";
        std::ofstream(actual) << md;
        ADD_FAILURE() << "the ticket differs from tests/fixtures/report/ticket.md; it wrote "
                      << actual;
    }
    EXPECT_EQ(md.find("&lt;"), std::string::npos);
    EXPECT_EQ(md.find("{\""), std::string::npos);

    // Nothing of that kind or place: an error naming what to give, exit 2.
    auto none = keep_findings(*m, FindingFilter{{"link_down"}, {}});
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, 2);
    EXPECT_NE(none.error().message.find("--finding link_down"), std::string::npos);
}

TEST(MarkdownReport, ATicketForOneLinkKeepsTheFindingsNamingBothItsEnds) {
    auto m = std::make_optional(degraded_model());  // a degraded link and slow pairs
    ASSERT_GT(m->findings.size(), 1U);
    // Its ports either way round, or its nodes: the degraded link's finding alone.
    for (const auto& link : {std::array<std::string, 2>{"leaf02[5]", "spine01[2]"},
                             std::array<std::string, 2>{"spine01[2]", "leaf02[5]"},
                             std::array<std::string, 2>{"leaf02", "spine01"}}) {
        ReportModel one = *m;
        ASSERT_TRUE(keep_findings(one, FindingFilter{{}, {link}}));
        ASSERT_EQ(one.findings.size(), 1U) << link[0] << " " << link[1];
        EXPECT_EQ(one.findings[0].kind, "link_below_peers");
    }
    // One end of it and another port: no finding names both, exit 2 saying so.
    ReportModel other = *m;
    auto none = keep_findings(other, FindingFilter{{}, {{"leaf02[5]", "spine02[2]"}}});
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().code, 2);
    EXPECT_NE(none.error().message.find("--link leaf02[5] spine02[2]"), std::string::npos)
        << none.error().message;
}

TEST(JunitReport, OneCasePerLinkCheckAndPairFailuresCarryTheEvidence) {
    ReportModel m = degraded_model();
    std::string xml = render_junit_report(m);
    size_t links = m.snapshot->fabric.links().size();
    // A case per cable, per check of the validation (the perf check is its
    // suite's) and per pair; a finding is in its check's case, not its own.
    EXPECT_EQ(count_of(xml, "<testcase "), links + (m.checks.size() - 1) + m.pairs.size());
    EXPECT_EQ(count_of(xml, "<testsuite "), 3U);
    EXPECT_NE(xml.find("name=\"leaf02[5] -- spine01[2]\">\n      <failure type=\"link_below"),
              std::string::npos);
    EXPECT_NE(xml.find("evidence: {"), std::string::npos);
    EXPECT_NE(xml.find("<failure type=\"pair_degraded\""), std::string::npos);
    EXPECT_NE(xml.find("<failure type=\"test_failed\""), std::string::npos);
    EXPECT_NE(xml.find("peer gone"), std::string::npos);
}

/// classname|name of every test case, and the failing ones.
struct JunitCases {
    std::set<std::string> all;
    std::set<std::string> failing;
};
JunitCases junit_cases(const std::string& xml) {
    JunitCases out;
    const std::string open = "<testcase classname=\"";
    for (size_t at = xml.find(open); at != std::string::npos; at = xml.find(open, at + 1)) {
        size_t c_end = xml.find('"', at + open.size());
        size_t n_at = xml.find("name=\"", c_end) + 6;
        size_t n_end = xml.find('"', n_at);
        std::string key = xml.substr(at + open.size(), c_end - at - open.size()) + "|" +
                          xml.substr(n_at, n_end - n_at);
        out.all.insert(key);
        size_t next = xml.find("<testcase ", n_end);
        size_t failure = xml.find("<failure ", n_end);
        if (failure != std::string::npos && failure < next) out.failing.insert(key);
    }
    return out;
}

/// `validate --plan` on `nodes` as JUnit, through the validation document
/// as `report` reads it.
JunitReport junit_of_validation(std::vector<Node> nodes, const Plan& plan) {
    Snapshot s;
    s.fabric = Fabric::build(std::move(nodes)).value();
    Tiers t = classify_tiers(s.fabric);
    Validation v = validate(ValidationInput{s.fabric, t, {}, nullptr, nullptr, &plan});
    ValidationMeta meta;
    meta.command = "validate";
    auto doc = validation_doc_from_json(validation_to_json(s.fabric, v, meta));
    EXPECT_TRUE(doc) << doc.error().message;
    return junit_report(build_report(std::move(s), std::move(doc).value(), {}, {}));
}

TEST(JunitReport, AHealthyAndAFaultedRunOfOnePlanHaveTheSameCases) {
    std::vector<Node> good = testing::leaf_spine_nodes({});
    Fabric f = Fabric::build(good).value();
    const Plan plan = plan_from_fabric(f, classify_tiers(f));
    JunitReport healthy = junit_of_validation(good, plan);
    EXPECT_EQ(healthy.failures, 0u) << healthy.xml;

    // Two host cables swapped on leaf03, leaf02[5] at 1X, leaf04[6] down.
    std::vector<Node> bad = good;
    testing::swap_cables(bad, "leaf03", 1, 2);
    testing::set_link_width(bad, "leaf02", 5, Width::X1, WidthSet{Width::X1});
    testing::unplug(bad, "leaf04", 6);
    JunitReport faulted = junit_of_validation(bad, plan);

    JunitCases h = junit_cases(healthy.xml);
    JunitCases x = junit_cases(faulted.xml);
    // The same cases, by suite and name: counts are not in names, the down
    // and the swapped cables keep their planned names, nothing moves suite.
    EXPECT_EQ(h.all, x.all);
    EXPECT_TRUE(h.failing.empty());
    EXPECT_EQ(x.failing, (std::set<std::string>{"fabscope.links|h0009[1] -- leaf03[1]",
                                                "fabscope.links|h0010[1] -- leaf03[2]",
                                                "fabscope.links|leaf02[5] -- spine01[2]",
                                                "fabscope.links|leaf04[6] -- spine02[4]",
                                                "fabscope.validation|cabling against the plan"}))
        << faulted.xml;
    EXPECT_EQ(faulted.failures, x.failing.size());
    EXPECT_NE(faulted.xml.find("failures=\"" + std::to_string(faulted.failures) + "\" errors"),
              std::string::npos);
    // The check made three findings: its message counts them.
    EXPECT_NE(faulted.xml.find("message=\"3 problems, first: "), std::string::npos) << faulted.xml;
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
    v.checks = {{"inventory", "a check", "3 nodes"}};
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
    EXPECT_TRUE(both.warnings.empty());  // the fabric it checked
    EXPECT_EQ(build_report(std::nullopt, *doc, {}, {}).verdict(), "FAIL");
    ASSERT_EQ(doc->checks.size(), 1U);
    EXPECT_EQ(doc->checks[0].id, "inventory");
    EXPECT_EQ(doc->checks[0].detail, "3 nodes");

    // A snapshot of the same fabric in another state (a cable since down):
    // joined, with a warning saying so.
    std::vector<Node> later = testing::leaf_spine_nodes({});
    testing::set_link_width(later, "leaf02", 5, Width::X1, WidthSet{Width::X1});
    testing::unplug(later, "leaf04", 6);
    Snapshot other;
    other.fabric = Fabric::build(std::move(later)).value();
    other.source.started = "2026-12-04T10:00:00Z";
    ReportModel mixed = build_report(std::move(other), *doc, {}, {});
    ASSERT_EQ(mixed.warnings.size(), 1U);
    EXPECT_NE(mixed.warnings[0].find("is not the fabric the validation checked"), std::string::npos)
        << mixed.warnings[0];
    EXPECT_NE(render_markdown_report(mixed).find("> **Warning:** the snapshot"), std::string::npos);

    EXPECT_FALSE(validation_doc_from_json({{"format", "fabscope-validation"}, {"version", 2}}));
    // The snapshot it names is a path, bounded as one.
    auto long_name = validation_doc_from_json({{"format", "fabscope-validation"},
                                               {"version", 1},
                                               {"findings", nlohmann::json::array()},
                                               {"snapshot", std::string(5000, 'a')}});
    ASSERT_FALSE(long_name);
    EXPECT_NE(long_name.error().message.find("/snapshot"), std::string::npos)
        << long_name.error().message;
    auto bad = validation_doc_from_json(
        {{"format", "fabscope-validation"}, {"version", 1}, {"findings", {{{"kind", 3}}}}});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("/findings/0/kind"), std::string::npos)
        << bad.error().message;
    // The checks and the planned cables are read as strictly: a cable that
    // is not a pair of ports, a check without its name.
    auto cable = validation_doc_from_json({{"format", "fabscope-validation"},
                                           {"version", 1},
                                           {"findings", nlohmann::json::array()},
                                           {"expected_links", {{1}}}});
    ASSERT_FALSE(cable);
    EXPECT_NE(cable.error().message.find("/expected_links/0"), std::string::npos)
        << cable.error().message;
    auto check = validation_doc_from_json({{"format", "fabscope-validation"},
                                           {"version", 1},
                                           {"findings", nlohmann::json::array()},
                                           {"check_list", {{{"id", "links"}}}}});
    ASSERT_FALSE(check);
    EXPECT_NE(check.error().message.find("/check_list/0"), std::string::npos)
        << check.error().message;
}

/// `report validation.json` alone draws the fabric: the validation names
/// the snapshot it checked, found where it was written or beside the
/// validation; one of another state, or none, is a warning; one that is not
/// a snapshot is an error naming it.
TEST(ReportInput, AValidationAloneDrawsTheSnapshotItNames) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(::testing::TempDir()) / "r-named";
    fs::remove_all(dir);
    fs::create_directories(dir / "sweeps");
    fs::create_directories(dir / "ticket");
    auto put = [](const fs::path& p, const std::string& text) {
        std::ofstream(p) << text;
        return p.string();
    };
    Snapshot s = degraded_snapshot();
    Validation v = validate(ValidationInput{s.fabric, classify_tiers(s.fabric), {}});
    ValidationMeta meta;
    meta.command = "validate";
    meta.snapshot = (dir / "sweeps" / "fabric.json").string();
    put(meta.snapshot, snapshot_to_json(s).dump());
    const std::string val =
        put(dir / "ticket" / "validation.json", validation_to_json(s.fabric, v, meta).dump());

    auto where_written = load_report({val}, {});
    ASSERT_TRUE(where_written) << where_written.error().message;
    ASSERT_TRUE(where_written->snapshot);
    EXPECT_TRUE(where_written->warnings.empty());
    EXPECT_EQ(where_written->meta.inputs.back(),
              meta.snapshot + " (snapshot, named by the validation)");
    EXPECT_NE(render_fabric_svg(*where_written).find("class=\"link bad "), std::string::npos);

    // Moved beside the validation (the ticket's files travel together).
    fs::rename(meta.snapshot, dir / "ticket" / "fabric.json");
    auto beside = load_report({val}, {});
    ASSERT_TRUE(beside) << beside.error().message;
    EXPECT_TRUE(beside->snapshot);
    EXPECT_NE(render_html_report(*beside).find("<svg"), std::string::npos);

    // Beside it, another state of the fabric: not drawn, said.
    std::vector<Node> later = testing::leaf_spine_nodes({});
    testing::unplug(later, "leaf04", 6);
    Snapshot other;
    other.fabric = Fabric::build(std::move(later)).value();
    put(dir / "ticket" / "fabric.json", snapshot_to_json(other).dump());
    auto stale = load_report({val}, {});
    ASSERT_TRUE(stale) << stale.error().message;
    EXPECT_FALSE(stale->snapshot);
    ASSERT_EQ(stale->warnings.size(), 1U);
    EXPECT_NE(stale->warnings[0].find("now holds another fabric state"), std::string::npos)
        << stale->warnings[0];
    EXPECT_EQ(stale->verdict(), "FAIL");  // the validation's verdict stands

    // Not a snapshot: the file is named, exit code 2.
    put(dir / "ticket" / "fabric.json", R"({"format":"fabscope-snapshot","version":1,"nodes":3})");
    auto broken = load_report({val}, {});
    ASSERT_FALSE(broken);
    EXPECT_EQ(broken.error().code, 2);
    EXPECT_NE(broken.error().message.find((dir / "ticket" / "fabric.json").string()),
              std::string::npos)
        << broken.error().message;

    // Gone: the report is made, without the drawing, and says where it looked.
    fs::remove(dir / "ticket" / "fabric.json");
    auto gone = load_report({val}, {});
    ASSERT_TRUE(gone) << gone.error().message;
    EXPECT_FALSE(gone->snapshot);
    ASSERT_EQ(gone->warnings.size(), 1U);
    EXPECT_NE(gone->warnings[0].find("found neither there nor beside it"), std::string::npos)
        << gone->warnings[0];

    // A snapshot given beside the validation is the one drawn, as before.
    const std::string given = put(dir / "given.json", snapshot_to_json(s).dump());
    auto both = load_report({val, given}, {});
    ASSERT_TRUE(both) << both.error().message;
    EXPECT_TRUE(both->snapshot);
    EXPECT_TRUE(both->warnings.empty());
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
