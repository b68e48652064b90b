// `fabscope report` on a mesh run's and an incast run's reports (fixtures
// written by the code paths of mesh_run_test and incast_test): the suspects
// named first with their evidence, the pair matrix, the findings, in HTML,
// Markdown and JUnit; bad documents refused naming the file, with code 2.

#include "reports/report_runs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "model/json_io.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"

namespace fabscope {
namespace {

using nlohmann::json;

const std::string kCable = "l1[10.9.12.0] <-> s2[10.9.12.1]";
// As HTML and JUnit write it, and as Markdown does (brackets escaped too).
const std::string kCableXml = "l1[10.9.12.0] &lt;-&gt; s2[10.9.12.1]";
const std::string kCableMd = "l1\\[10.9.12.0\\] \\<-\\> s2\\[10.9.12.1\\]";

std::string fixture(const std::string& name) {
    return std::string(FIXTURES_DIR) + "/report/" + name;
}

json read_fixture(const std::string& name) {
    std::ifstream in(fixture(name));
    std::stringstream s;
    s << in.rdbuf();
    return json::parse(s.str());
}

std::string write(const std::string& name, const json& j) {
    std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << j.dump();
    return path;
}

ReportModel load(const std::vector<std::string>& names) {
    std::vector<std::string> paths;
    for (const std::string& n : names) paths.push_back(fixture(n));
    auto m = load_report(paths, {"1.2.3", "fabscope report x", "2026-12-01T00:00:00Z", {}});
    if (!m) throw std::runtime_error(m.error().message);
    return std::move(m).value();
}

TEST(ReportMesh, TheCableIsTheFirstFindingWithItsEvidence) {
    ReportModel m = load({"mesh-cable.json"});
    ASSERT_TRUE(m.mesh);
    EXPECT_EQ(m.meta.inputs.front(), fixture("mesh-cable.json") + " (mesh run report)");
    ASSERT_FALSE(m.mesh->suspects.empty());
    const MeshSuspectDoc& top = m.mesh->suspects.front();
    EXPECT_EQ(top.kind, "cable");
    EXPECT_EQ(top.name, kCable);
    EXPECT_EQ(top.detail, "both ways");
    EXPECT_GE(top.slow_flows, 2u);
    EXPECT_EQ(top.evidence.size(), top.slow_flows);
    for (size_t i : top.evidence) EXPECT_TRUE(m.mesh->flows[i].slow) << i;
    for (size_t i : top.healthy) EXPECT_FALSE(m.mesh->flows[i].slow) << i;
    EXPECT_NEAR(top.mean_ratio, 1.0 / 3, 0.05);  // the fixture steers its cable to a third

    ASSERT_FALSE(m.findings.empty());
    const ReportFinding& f = m.findings.front();
    EXPECT_EQ(f.source, "mesh");
    EXPECT_EQ(f.kind, "mesh_suspect");
    EXPECT_EQ(f.severity, Severity::Error);
    EXPECT_EQ(f.summary.rfind("suspect cable " + kCable + " (both ways): ", 0), 0u) << f.summary;
    EXPECT_EQ(f.evidence["name"], kCable);
    EXPECT_FALSE(f.evidence["slow"].empty());
    EXPECT_EQ(m.verdict(), "FAIL");
    EXPECT_EQ(m.checks.front().id, "mesh");
    EXPECT_NE(m.checks.front().text().find("mesh run (cover, write_bw"), std::string::npos)
        << m.checks.front().text();

    // The pair matrix: one grid of the mesh's flows, the 6 hosts cover paired.
    ASSERT_EQ(m.matrices.size(), 1u);
    EXPECT_EQ(m.matrices[0].test.rfind("mesh write_bw", 0), 0u) << m.matrices[0].test;
    EXPECT_EQ(m.matrices[0].rows.size(), 6u);
    EXPECT_EQ(m.matrices[0].cols.size(), 6u);
}

TEST(ReportRing, TheRingsBusBandwidthIsACheckAndBelowTheExpectationAnError) {
    // ring-cable.json: the Soft-RoCE lab's ring of 6 hosts with the cable
    // l1 <-> s1 shaped both ways (tests/lab/ring_vm_test.cpp).
    ReportModel plain = load({"ring-cable.json"});
    // It is from before planes: one "ring", no "rings".
    ASSERT_TRUE(plain.mesh);
    ASSERT_EQ(plain.mesh->rings.size(), 1u);
    EXPECT_FALSE(plain.mesh->ring_planes);
    const MeshRingDoc& r = plain.mesh->rings[0];
    EXPECT_EQ(r.plane, 0);
    EXPECT_EQ(r.ranks, 6u);
    ASSERT_NE(r.verdict(), nullptr);
    EXPECT_EQ(r.verdict()->bytes, 1u << 20);
    ASSERT_TRUE(r.slowest);
    EXPECT_EQ(r.slowest->cables, std::vector<std::string>{"l1[10.9.11.0] <-> s1[10.9.11.1]"});
    EXPECT_EQ(r.slowest->slow.size(), 2u);
    bool check = false;
    for (const CheckMade& c : plain.checks) {
        if (c.text().find("ring all-reduce of 1M over 6 ranks") != std::string::npos) check = true;
    }
    EXPECT_TRUE(check);
    bool slow_edge = false;
    for (const ReportFinding& f : plain.findings) {
        EXPECT_NE(f.kind, "ring_busbw_low");  // not judged without --expect-busbw
        slow_edge = slow_edge || f.kind == "mesh_ring_slow_edge";
    }
    EXPECT_TRUE(slow_edge);

    auto m = load_report({fixture("ring-cable.json")},
                         {"1.2.3", "fabscope report x", "2026-12-01T00:00:00Z", {}, 0.01});
    ASSERT_TRUE(m) << m.error().message;
    ASSERT_FALSE(m->findings.empty());
    const ReportFinding& f = m->findings.front();
    EXPECT_EQ(f.kind, "ring_busbw_low");
    EXPECT_EQ(f.severity, Severity::Error);
    EXPECT_NE(f.summary.find("its slowest edge"), std::string::npos) << f.summary;
    EXPECT_NEAR(f.evidence["cost"].get<double>(), r.slowest->cost, 1e-12);
    EXPECT_EQ(m->verdict(), "FAIL");
}

TEST(ReportMesh, HtmlAndMarkdownNameTheSuspectsBeforeTheFindings) {
    ReportModel m = load({"mesh-cable.json"});
    std::string html = render_html_report(m);
    size_t suspects = html.find("<section id=\"suspects\">");
    size_t findings = html.find("<section id=\"findings\">");
    ASSERT_NE(suspects, std::string::npos);
    EXPECT_LT(suspects, findings);
    size_t row = html.find("<table class=\"suspects\">");
    ASSERT_NE(row, std::string::npos);
    EXPECT_LT(html.find("<code>" + kCableXml + "</code>", row), findings);  // in the table
    EXPECT_NE(html.find("class=\"heat-map\""), std::string::npos);
    EXPECT_NE(html.find("mesh run"), std::string::npos);
    EXPECT_NE(html.find("<summary>slow flows</summary>"), std::string::npos);

    std::string md = render_markdown_report(m);
    size_t s = md.find("### Suspects");
    ASSERT_NE(s, std::string::npos);
    EXPECT_LT(s, md.find("### Findings"));
    EXPECT_NE(md.find("| 1 | cable **" + kCableMd + "** (both ways) |"), std::string::npos) << md;
    // Only the slow and failed flows are listed as pairs.
    EXPECT_EQ(md.find("| ok |"), std::string::npos);
}

TEST(ReportMesh, ASuspectsCountersAreItsEvidenceInEveryFormat) {
    // The cable's two directions each counted retransmissions: the cable
    // shows their sum, events only (traffic counters say nothing).
    json doc = read_fixture("mesh-cable.json");
    doc["link_suspects"][0]["counters"]["slow"]["sum"] = {{"completer_retry_err", 8},
                                                          {"sent_pkts", 500}};
    doc["link_suspects"][1]["counters"]["slow"]["sum"] = {{"completer_retry_err", 4},
                                                          {"duplicate_request", 30}};
    auto m = load_report({write("counted-mesh.json", doc)}, {});
    ASSERT_TRUE(m) << m.error().message;
    const MeshSuspectDoc& cable = m->mesh->suspects.front();
    EXPECT_EQ(cable.counted, (CounterMap{{"completer_retry_err", 12}, {"duplicate_request", 30}}));
    const std::string said = "duplicate_request +30, completer_retry_err +12";
    const ReportFinding& f = m->findings.front();
    EXPECT_NE(f.summary.find("its slow flows' ends counted " + said), std::string::npos)
        << f.summary;
    EXPECT_EQ(f.evidence["counted"]["duplicate_request"], 30);
    EXPECT_NE(render_html_report(*m).find("<p>Their ends counted " + said + "</p>"),
              std::string::npos);
    // Markdown escapes the underscores.
    EXPECT_NE(render_markdown_report(*m).find(
                  "counted duplicate\\_request +30, completer\\_retry\\_err +12: "),
              std::string::npos);
    // Reports written before suspects carried counters still load.
    json old = read_fixture("mesh-cable.json");
    for (json& s : old["link_suspects"]) s.erase("counters");
    auto o = load_report({write("old-mesh.json", old)}, {});
    ASSERT_TRUE(o) << o.error().message;
    EXPECT_TRUE(o->mesh->suspects.front().counted.empty());
}

TEST(ReportMesh, WhatTheSwitchPortsCountedGoesIntoTheTicket) {
    // An InfiniBand run (--load) read its switch ports: the first lane's
    // receiving port saw symbol errors, the second lane's ports nothing.
    json doc = read_fixture("mesh-cable.json");
    doc["link_suspects"][0]["switch_ports"] = json::array(
        {{{"port", "l1[10.9.12.0]"}, {"side", "sends"}, {"changes", {{"PortXmitData", 900}}}},
         {{"port", "s2[10.9.12.1]"},
          {"side", "receives"},
          {"changes", {{"SymbolErrorCounter", 4000}, {"PortRcvErrors", 12}}}}});
    doc["link_suspects"][1]["switch_ports"] = json::array(
        {{{"port", "s2[10.9.12.1]"}, {"side", "sends"}, {"changes", json::object()}},
         {{"port", "l1[10.9.12.0]"}, {"side", "receives"}, {"changes", json::object()}}});
    auto m = load_report({write("switch-mesh.json", doc)}, {});
    ASSERT_TRUE(m) << m.error().message;
    // The cable: one phrase per direction.
    const std::string said =
        "its switch ports counted s2[10.9.12.1] (receiving) SymbolErrorCounter +4000, "
        "PortRcvErrors +12; its switch ports counted no errors or waits";
    ASSERT_TRUE(m->mesh->suspects.front().switch_counted);
    EXPECT_EQ(*m->mesh->suspects.front().switch_counted, said);
    const ReportFinding& f = m->findings.front();
    EXPECT_NE(f.summary.find("; " + said), std::string::npos) << f.summary;
    EXPECT_EQ(f.evidence["switch_ports"], said);
    EXPECT_NE(render_html_report(*m).find("<p>Its switch ports counted s2[10.9.12.1] (receiving) "
                                          "SymbolErrorCounter +4000"),
              std::string::npos);
    EXPECT_NE(render_markdown_report(*m).find("switch ports counted s2\\[10.9.12.1\\]"),
              std::string::npos)
        << render_markdown_report(*m);

    // A port that did not answer is said, not taken for a clean one.
    json half = doc;
    half["link_suspects"][1]["switch_ports"][1]["unread"] = "l1[10.9.12.0] did not answer the PMA";
    auto h = load_report({write("half-mesh.json", half)}, {});
    ASSERT_TRUE(h) << h.error().message;
    EXPECT_NE(h->mesh->suspects.front().switch_counted->find(
                  "its switch ports counted no errors or waits (l1[10.9.12.0] did not answer "
                  "the PMA)"),
              std::string::npos)
        << *h->mesh->suspects.front().switch_counted;

    // A RoCE run's suspects have none, and say nothing of switch ports.
    auto roce = load({"mesh-cable.json"});
    EXPECT_FALSE(roce.mesh->suspects.front().switch_counted);
    EXPECT_EQ(roce.findings.front().summary.find("switch ports"), std::string::npos);

    // More than a lane's two ends, or a side that is neither, is refused.
    json three = doc;
    three["link_suspects"][0]["switch_ports"].push_back(doc["link_suspects"][1]["switch_ports"][0]);
    auto bad = load_report({write("three-ports.json", three)}, {});
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("switch_ports"), std::string::npos) << bad.error().message;
    json sideways = doc;
    sideways["link_suspects"][0]["switch_ports"][0]["side"] = "both";
    EXPECT_FALSE(load_report({write("sideways.json", sideways)}, {}));
}

TEST(ReportMesh, JunitHasOneCasePerSuspectAndFinding) {
    ReportModel cable = load({"mesh-cable.json"});
    std::string xml = render_junit_report(cable);
    EXPECT_NE(xml.find("<testsuite name=\"mesh\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("name=\"suspect " + kCableXml + "\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<failure type=\"mesh_suspect\""), std::string::npos);
    EXPECT_EQ(xml.find("fabscope.perf."), std::string::npos);  // the flows are not cases

    ReportModel host = load({"mesh-host.json"});
    ASSERT_FALSE(host.mesh->suspects.empty());
    EXPECT_EQ(host.mesh->suspects.front().kind, "endpoint");
    EXPECT_EQ(host.mesh->suspects.front().name, "h3 (receiving)");
    xml = render_junit_report(host);
    EXPECT_NE(xml.find("name=\"suspect h3 (receiving)\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<failure type=\"mesh_rank_gone\""), std::string::npos) << xml;
    size_t suite = xml.find("<testsuite name=\"mesh\"");
    ASSERT_NE(suite, std::string::npos);
    size_t cases = 0;
    for (size_t at = xml.find("classname=\"fabscope.mesh\"", suite); at != std::string::npos;
         at = xml.find("classname=\"fabscope.mesh\"", at + 1))
        ++cases;
    EXPECT_EQ(cases, host.mesh->suspects.size() + host.mesh->findings.size());
}

TEST(ReportMesh, ARunWithoutSuspectsPassesAndSaysSo) {
    json doc = read_fixture("mesh-host.json");
    doc["suspects"] = json::array();
    doc["findings"] = json::array();
    for (json& f : doc["flows"]) f["slow"] = false;
    auto m = load_report({write("clean-mesh.json", doc)}, {});
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->verdict(), "PASS");
    EXPECT_NE(render_html_report(*m).find("No suspect"), std::string::npos);
    const std::string xml = render_junit_report(*m);
    EXPECT_NE(xml.find("name=\"no suspect\">\n      <system-out>"), std::string::npos) << xml;
}

TEST(ReportMesh, BadDocumentsAreRefusedNamingTheFile) {
    const json good = read_fixture("mesh-host.json");
    struct Case {
        const char* what;
        std::function<void(json&)> spoil;
        const char* says;
    };
    const std::vector<Case> cases = {
        {"version", [](json& j) { j["version"] = 2; }, "version 2 is not supported"},
        {"src", [](json& j) { j["flows"][0]["src"] = 99; }, "/flows/0/src: must be a rank below 6"},
        {"evidence", [](json& j) { j["suspects"][0]["evidence"][0] = 100000; },
         "/suspects/0/evidence/0: must be a flow index"},
        {"counts", [](json& j) { j["suspects"][0]["slow_flows"] = 1000; },
         "must be at most total_flows"},
        {"ratio", [](json& j) { j["slow_ratio"] = 1.5; }, "/slow_ratio: must be between 0 and 1"},
        {"gbps", [](json& j) { j["flows"][1]["avg_gbps"] = -1; }, "/flows/1/avg_gbps"},
        {"round", [](json& j) { j["flows"][0]["round"] = 0; }, "/flows/0/round"},
        {"rank twice", [](json& j) { j["ranks"][1]["rank"] = 0; }, "/ranks/1/rank"},
        {"flows", [](json& j) { j["flows"] = 3; }, "flows"},
        {"counter",
         [](json& j) { j["suspects"][0]["counters"]["slow"]["sum"]["port_rcv_errors"] = -4; },
         "/suspects/0/counters/slow/sum/port_rcv_errors: must be a counter"},
        {"counter name",
         [](json& j) { j["suspects"][0]["counters"]["slow"]["sum"][std::string(65, 'x')] = 4; },
         "/suspects/0/counters/slow/sum: counter names must be 1 to 64 characters"},
    };
    for (const Case& c : cases) {
        json bad = good;
        c.spoil(bad);
        std::string path = write(std::string("bad-mesh-") + c.what + ".json", bad);
        auto m = load_report({path}, {});
        ASSERT_FALSE(m) << c.what;
        EXPECT_EQ(m.error().code, 2) << c.what;
        EXPECT_EQ(m.error().message.rfind(path + ": ", 0), 0u) << m.error().message;
        EXPECT_NE(m.error().message.find(c.says), std::string::npos) << m.error().message;
    }
    auto twice = load_report({fixture("mesh-host.json"), fixture("mesh-cable.json")}, {});
    ASSERT_FALSE(twice);
    EXPECT_NE(twice.error().message.find("a second mesh run report"), std::string::npos);
}

TEST(ReportMesh, ABigRunsMatrixKeepsTheHostsOfItsSlowFlows) {
    MeshRunDoc d;
    const size_t n = 100;
    for (size_t r = 0; r < n; ++r) d.hosts.push_back(fmt::format("h{}", r + 1));
    for (size_t s = 0; s < n; ++s) {
        for (size_t t = 0; t < n; ++t) {
            if (s == t) continue;
            MeshFlowDoc f;
            f.src = s;
            f.dst = t;
            f.measured = f.ok = true;
            f.slow = t == 70;
            d.flows.push_back(f);
        }
    }
    std::vector<size_t> shown = mesh_matrix_flows(d, 64);
    std::set<size_t> hosts;
    bool to_70 = false;
    for (size_t i : shown) {
        hosts.insert(d.flows[i].src);
        hosts.insert(d.flows[i].dst);
        to_70 = to_70 || d.flows[i].dst == 70;
    }
    EXPECT_LE(hosts.size(), 64u);
    EXPECT_TRUE(hosts.count(70));
    EXPECT_TRUE(to_70);
    // A small run shows every flow once per direction.
    d.hosts.resize(3);
    std::erase_if(d.flows, [](const MeshFlowDoc& f) { return f.src >= 3 || f.dst >= 3; });
    d.flows.push_back(d.flows.front());  // an adaptive round's repeat
    EXPECT_EQ(mesh_matrix_flows(d, 64).size(), 6u);
}

TEST(ReportIncast, LatencyUnderLoadAndTheDetectorsFindingsInEveryFormat) {
    ReportModel m = load({"incast.json"});
    ASSERT_TRUE(m.incast);
    EXPECT_EQ(m.incast->receiver, "h1");
    ASSERT_TRUE(m.incast->p99_rise_us);
    EXPECT_DOUBLE_EQ(*m.incast->p99_rise_us, 25100);
    ASSERT_FALSE(m.findings.empty());
    EXPECT_EQ(m.findings.front().kind, "latency_under_load");
    EXPECT_EQ(m.findings.front().source, "incast");
    EXPECT_EQ(m.verdict(), "FAIL");
    std::vector<std::string> kinds;
    for (const ReportFinding& f : m.findings) kinds.push_back(f.kind);
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), "ecn_without_cnp"), kinds.end());

    std::string html = render_html_report(m);
    size_t at = html.find("<section id=\"incast\">");
    ASSERT_NE(at, std::string::npos);
    EXPECT_LT(at, html.find("<section id=\"findings\">"));
    EXPECT_NE(html.find("<th>rise</th><td class=\"num\">16.80 ms</td><td class=\"num\">25.10 ms"),
              std::string::npos);
    EXPECT_NE(render_markdown_report(m).find("| rise | 16.80 ms | 25.10 ms |"), std::string::npos);

    std::string xml = render_junit_report(m);
    EXPECT_NE(xml.find("<testsuite name=\"incast\""), std::string::npos);
    EXPECT_NE(xml.find("name=\"latency under load toward h1\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("<failure type=\"latency_under_load\""), std::string::npos);
    EXPECT_NE(xml.find("name=\"ecn_without_cnp h1\""), std::string::npos) << xml;

    json bad = read_fixture("incast.json");
    bad["latency"]["idle"]["p99_us"] = "fast";
    std::string path = write("bad-incast.json", bad);
    auto r = load_report({path}, {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, 2);
    EXPECT_NE(r.error().message.find(path + ": /latency/idle/p99_us"), std::string::npos)
        << r.error().message;
}

TEST(ReportMesh, BothRunsAndAFabricInOneReport) {
    ReportModel m = load({"fabric-degraded.json", "mesh-cable.json", "incast.json"});
    EXPECT_TRUE(m.snapshot && m.mesh && m.incast);
    // The suspect leads even the validation's errors.
    EXPECT_EQ(m.findings.front().kind, "mesh_suspect");
    std::string csv = render_csv_report(m);
    EXPECT_NE(csv.find("mesh write_bw"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
