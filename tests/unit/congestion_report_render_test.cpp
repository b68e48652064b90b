// `fabscope report` on a congestion report: the document congestion_to_json
// writes for a routed leaf-spine, read back with its snapshot and rendered
// (HTML, Markdown, JUnit, CSV), roots before victims, names escaped.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "congestion/congestion_report.h"
#include "model/thresholds.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "test_fabrics.h"
#include "xmit_wait_readings.h"

namespace fabscope {
namespace {

using nlohmann::json;

// leaf03's description, as an untrusted switch could set it.
const std::string kEvil = "leaf03 <script>alert(1)</script>`|*";
using testing::kTenPercent;

std::vector<Node> routed_nodes() {
    std::vector<Node> nodes = testing::leaf_spine_nodes({});
    testing::add_dmodk_routes(nodes);
    testing::node_named(nodes, "leaf03").description = kEvil;
    return nodes;
}

struct Measured : testing::XmitWaitReadings {
    Measured() : XmitWaitReadings(Fabric::build(routed_nodes()).value()) {}
    json doc() const {
        Thresholds t = default_thresholds();
        CongestionResult r = analyse_congestion(f, before, after, true, t);
        return congestion_to_json(f, r,
                                  {"2026-12-01T13:00:00Z", "ibsim0 port 1", 1, false, t.xmit_wait});
    }
    Snapshot snapshot() const {
        Snapshot s;
        s.source.method = "sweep";
        s.fabric = Fabric::build(routed_nodes()).value();
        return s;
    }
};

/// spine01[3] waits toward leaf03, leaf03[2] toward its host h0010: one
/// tree, rooted at leaf03[2]; spine02[4] does not answer the second reading.
Measured congested() {
    Measured t;
    t.wait("spine01", 3, kTenPercent);
    t.wait(kEvil, 2, 2 * kTenPercent);
    t.after.erase(t.ref("spine02", 4));
    return t;
}

// Per test and process: ctest -j runs this file's tests side by side, and a
// file one test rewrites must not be the one another is reading. Removed
// when the process ends.
std::string write(const std::string& name, const json& j) {
    struct Written {
        std::vector<std::string> paths;
        Written() = default;
        Written(const Written&) = delete;
        Written& operator=(const Written&) = delete;
        ~Written() {
            for (const std::string& p : paths) std::remove(p.c_str());
        }
    };
    static Written written;
    std::string path = ::testing::TempDir() + std::to_string(::getpid()) + "-" +
                       ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" + name;
    std::ofstream(path) << j.dump();
    written.paths.push_back(path);
    return path;
}

ReportModel congested_model() {
    Measured t = congested();
    auto m = load_report(
        {write("c-snap.json", snapshot_to_json(t.snapshot())), write("c-cong.json", t.doc())},
        {"1.2.3", "fabscope report x", "2026-12-01T00:00:00Z", {}});
    if (!m) throw std::runtime_error(m.error().message);
    return std::move(m).value();
}

size_t link_index(const ReportModel& m, PortRef p) {
    const Fabric& f = m.snapshot->fabric;
    return static_cast<size_t>(f.link_of(p) - f.links().data());
}

size_t count_of(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
    return n;
}

TEST(CongestionReportInput, ReadsBackTheTreesAndMarksTheLinksRootFirst) {
    ReportModel m = congested_model();
    ASSERT_TRUE(m.congestion);
    const CongestionDoc& c = *m.congestion;
    ASSERT_EQ(c.trees.size(), 1U);
    EXPECT_EQ(c.trees[0].root.label.node, kEvil);
    EXPECT_EQ(c.trees[0].root.label.port, 2);
    EXPECT_EQ(c.trees[0].cause, "slow_receiver");
    EXPECT_NEAR(c.trees[0].root.share, 0.20, 1e-9);
    EXPECT_EQ(c.trees[0].root.delta_ticks, 2 * kTenPercent);
    ASSERT_EQ(c.trees[0].victims.size(), 1U);
    EXPECT_EQ(c.trees[0].victims[0].label.node, "spine01");
    ASSERT_EQ(c.trees[0].victims[0].chain.size(), 2U);
    EXPECT_EQ(c.trees[0].victims[0].chain[1].node, kEvil);
    EXPECT_EQ(c.hottest.size(), 2U);
    EXPECT_EQ(c.ports_unanswered, 1U);
    EXPECT_EQ(m.verdict(), "FAIL");
    EXPECT_TRUE(m.meta.inputs.back().ends_with("-c-cong.json (congestion report)"))
        << m.meta.inputs.back();

    // Its findings join the report's, the root's before the victim's.
    long root = -1;
    long victim = -1;
    size_t unanswered = 0;
    for (size_t i = 0; i < m.findings.size(); ++i) {
        const ReportFinding& f = m.findings[i];
        if (f.source != "congestion") continue;
        if (f.kind == "congestion_root") root = static_cast<long>(i);
        if (f.kind == "congestion_victim") victim = static_cast<long>(i);
        unanswered += f.kind == "counters_unanswered" ? 1 : 0;
    }
    ASSERT_GE(root, 0);
    ASSERT_GE(victim, 0);
    EXPECT_EQ(unanswered, 1U);
    EXPECT_FALSE(m.findings[static_cast<size_t>(root)].evidence.empty());
    // The root's and the victim's links are marked in the drawing.
    Measured t;
    size_t root_link = link_index(m, t.ref(kEvil, 2));
    size_t victim_link = link_index(m, t.ref("spine01", 3));
    ASSERT_TRUE(m.link_severity(root_link));
    ASSERT_TRUE(m.link_severity(victim_link));
    EXPECT_EQ(m.link_findings[root_link].front(), static_cast<size_t>(root));
}

TEST(CongestionReportInput, WrongTypesNameTheFileAndThePath) {
    Measured t = congested();
    std::string snap = write("c-snap.json", snapshot_to_json(t.snapshot()));
    json bad_share = t.doc();
    bad_share["trees"][0]["root"]["share"] = "lots";
    json bad_result = t.doc();
    bad_result["result"] = 3;
    json bad_cause = t.doc();
    bad_cause["trees"][0]["cause"] = "gremlins";
    json bad_version = t.doc();
    bad_version["version"] = 2;
    json bad_ticks = t.doc();
    bad_ticks["hottest"][1]["delta_ticks"] = -4;
    for (const auto& [j, path] :
         std::vector<std::pair<json, std::string>>{{bad_share, "/trees/0/root/share"},
                                                   {bad_result, "/result"},
                                                   {bad_cause, "/trees/0/cause"},
                                                   {bad_version, "version 2"},
                                                   {bad_ticks, "/hottest/1/delta_ticks"}}) {
        std::string file = write("c-bad.json", j);
        auto r = load_report({snap, file}, {});
        ASSERT_FALSE(r) << path;
        EXPECT_EQ(r.error().code, 2);
        EXPECT_NE(r.error().message.find(file), std::string::npos) << r.error().message;
        EXPECT_NE(r.error().message.find(path), std::string::npos) << r.error().message;
    }
    std::string cong = write("c-cong.json", t.doc());
    auto twice = load_report({cong, cong}, {});
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("second congestion report"), std::string::npos);
    // Alone, without a snapshot: the trees are shown, nothing drawn.
    auto alone = load_report({cong}, {});
    ASSERT_TRUE(alone) << alone.error().message;
    EXPECT_FALSE(alone->snapshot);
    EXPECT_NE(render_html_report(*alone).find("<section id=\"congestion\">"), std::string::npos);
}

TEST(CongestionReportHtml, TreesRootFirstHottestPortsAndFindingsEscaped) {
    ReportModel m = congested_model();
    std::string html = render_html_report(m);
    size_t section = html.find("<section id=\"congestion\"><h2>Congestion</h2>");
    ASSERT_NE(section, std::string::npos);
    size_t root = html.find(
        "<h3>Root <span class=\"port\">leaf03 &lt;script&gt;alert(1)&lt;/script&gt;`|*[2]</span> "
        "<span class=\"cause\">slow_receiver</span>, 20.00% waiting</h3>",
        section);
    ASSERT_NE(root, std::string::npos) << html.substr(section, 1500);
    size_t victim = html.find("<td><span class=\"port\">spine01[3]</span></td>", root);
    size_t hottest = html.find("<h3>Hottest ports</h3>", root);
    EXPECT_LT(root, victim);
    EXPECT_LT(victim, hottest);
    EXPECT_NE(hottest, std::string::npos);
    EXPECT_NE(html.find("did not answer", section), std::string::npos);
    // The findings list has them, with their evidence.
    EXPECT_NE(html.find("<summary>congestion_root</summary>"), std::string::npos);
    EXPECT_NE(html.find("<summary>congestion_victim</summary>"), std::string::npos);
    EXPECT_NE(html.find("<summary>counters_unanswered</summary>"), std::string::npos);
    // The drawing marks the root's and the victim's links.
    EXPECT_GE(count_of(html, "<g class=\"bad-link "), 2U);
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("<li>congestion: PortXmitWait ("), std::string::npos);  // checked
}

TEST(CongestionReportMarkdown, TreesAndHottestPortsEscaped) {
    std::string md = render_markdown_report(congested_model());
    size_t section = md.find("### Congestion\n\n1 tree; PortXmitWait of ");
    ASSERT_NE(section, std::string::npos) << md;
    size_t root = md.find(
        "- **root** leaf03 \\<script\\>alert(1)\\</script\\>\\`\\|\\*\\[2\\] "
        "(slow\\_receiver), "
        "20.00% waiting\n",
        section);
    ASSERT_NE(root, std::string::npos) << md.substr(section);
    EXPECT_NE(md.find("  - victim spine01\\[3\\], 10.00% waiting (spine01\\[3\\] → leaf03", root),
              std::string::npos)
        << md.substr(section);
    EXPECT_NE(md.find("| Port | Waiting | PortXmitWait rise |", root), std::string::npos);
    EXPECT_EQ(md.find(" <script"), std::string::npos);  // escaped: \<script
}

TEST(CongestionReportJunit, RootAndVictimAndSilentPortFailTheSuite) {
    std::string xml = render_junit_report(congested_model());
    size_t suite = xml.find("<testsuite name=\"congestion\" tests=\"3\" failures=\"3\"");
    ASSERT_NE(suite, std::string::npos) << xml;
    size_t root = xml.find("<failure type=\"congestion_root\"", suite);
    size_t victim = xml.find(
        "<failure type=\"congestion_victim\" message=\"spine01[3]: victim of "
        "the congestion tree rooted at leaf03 &lt;script&gt;",
        suite);
    EXPECT_LT(root, victim);
    EXPECT_NE(victim, std::string::npos) << xml.substr(suite);
    EXPECT_NE(xml.find("<failure type=\"counters_unanswered\"", suite), std::string::npos);
    EXPECT_EQ(xml.find("<script"), std::string::npos);
    // Not counted twice: the congestion findings are not in the links or validation suites.
    EXPECT_EQ(count_of(xml, "type=\"congestion_root\""), 1U);

    // Nothing waited: one passing case.
    Measured clean;
    auto m = load_report({write("c-clean.json", clean.doc())}, {});
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->verdict(), "PASS");
    std::string ok = render_junit_report(*m);
    EXPECT_NE(ok.find("<testsuite name=\"congestion\" tests=\"1\" failures=\"0\""),
              std::string::npos)
        << ok;
    // Named the same whatever was read; the count in its output.
    EXPECT_NE(ok.find("name=\"no port waiting\">\n      <system-out>48 ports read, none waiting"),
              std::string::npos)
        << ok;
}

TEST(CongestionReportCsv, OneRecordPerPortWithItsRole) {
    std::string csv = render_csv_report(congested_model());
    size_t start = csv.find(
        "START_CONGESTION\r\nNodeGuid,NodeDesc,PortNum,Share,DeltaTicks,Cleared,Role,Root\r\n");
    ASSERT_NE(start, std::string::npos) << csv;
    size_t end = csv.find("END_CONGESTION\r\n", start);
    std::string body = csv.substr(start, end - start);
    EXPECT_NE(body.find(",leaf03 <script>alert(1)</script>`|*,2,0.2,1250000000,no,root,\r\n"),
              std::string::npos)
        << body;
    EXPECT_NE(body.find(",spine01,3,0.1,625000000,no,victim,"), std::string::npos) << body;
    EXPECT_LT(body.find(",root,"), body.find(",victim,"));
}

}  // namespace
}  // namespace fabscope
