// The report's routing section: from a snapshot's forwarding tables, the
// credit loops in order (listed, and drawn as numbered arrows on the fabric)
// and the uplink balance per leaf, on the fabrics the routing analysis is
// tested on (min-hop on a ring of switches, D-mod-K on a leaf-spine with one
// leaf's routes piled onto one uplink).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "fake_fabric.h"
#include "reports/html_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "reports/routing_sections.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

ReportModel model_of(Fabric f, std::optional<double> limit = std::nullopt) {
    Snapshot s;
    s.fabric = std::move(f);
    ReportMeta meta;
    meta.imbalance_limit = limit;
    return build_report(std::move(s), std::nullopt, {}, meta);
}

/// leaf01 sends every destination up its first uplink (port 5).
Fabric piled_uplink(int leaves) {
    auto nodes = testing::leaf_spine_nodes({.spines = 4, .leaves = leaves, .hosts_per_leaf = 4});
    testing::add_dmodk_routes(nodes);
    for (uint8_t& port : testing::node_named(nodes, "leaf01").lft)
        if (port >= 6 && port <= 8) port = 5;
    return *Fabric::build(nodes);
}

TEST(ReportRouting, ACreditLoopIsListedInOrderAndDrawnAsNumberedArrows) {
    auto nodes = testing::switch_ring(5);
    testing::program_min_hop_routes(nodes);
    ReportModel m = model_of(*Fabric::build(nodes));
    ASSERT_TRUE(m.routing);
    ASSERT_EQ(m.routing->loops.size(), 2u);  // each way round the ring
    for (const LoopDoc& loop : m.routing->loops) {
        ASSERT_EQ(loop.steps.size(), 5u);
        // Each cable starts at the switch where the one before ended.
        for (size_t k = 0; k < loop.steps.size(); ++k) {
            const std::string to = loop.steps[k].to;
            const std::string next = loop.steps[(k + 1) % loop.steps.size()].from;
            EXPECT_EQ(to.substr(0, to.find('[')), next.substr(0, next.find('['))) << k;
        }
        EXPECT_NE(loop.example.find(" to host"), std::string::npos) << loop.example;
    }
    const std::string html = render_html_report(m);
    EXPECT_NE(html.find("<section id=\"routing\"><h2>Routing</h2>"), std::string::npos);
    EXPECT_NE(html.find("<li id=\"credit-loop-1\">"), std::string::npos);
    EXPECT_NE(html.find("credit loop 1 on VL 0, 5 cables: ring"), std::string::npos);
    // The drawing: one group per loop, five arrows and their numbers each.
    const size_t g1 = html.find("<g class=\"credit-loop\" id=\"loop-1\" data-vl=\"0\">");
    const size_t g2 = html.find("<g class=\"credit-loop\" id=\"loop-2\" data-vl=\"0\">");
    ASSERT_NE(g1, std::string::npos);
    ASSERT_NE(g2, std::string::npos);
    const std::string first = html.substr(g1, g2 - g1);
    EXPECT_EQ(occurrences(first, "<line class=\"loop-step\""), 5u) << first;
    EXPECT_EQ(occurrences(first, "marker-end=\"url(#loop-arrow)\""), 5u);
    for (int k = 1; k <= 5; ++k)
        EXPECT_NE(first.find(fmt::format("\">{}</text>", k)), std::string::npos) << k;
    EXPECT_EQ(occurrences(html, "<marker id=\"loop-arrow\""), 1u);
    // The loop's cables are marked as the credit_loop finding's too.
    EXPECT_EQ(m.verdict(), "FAIL");
    const std::string md = render_markdown_report(m);
    EXPECT_NE(md.find("### Routing"), std::string::npos);
    EXPECT_NE(md.find("- **error** credit loop 2 on VL 0, 5 cables:"), std::string::npos) << md;
}

TEST(ReportRouting, TheBalanceTableNamesTheUplinkThatTookTheRoutesFirst) {
    ReportModel m = model_of(piled_uplink(3));
    ASSERT_TRUE(m.routing);
    EXPECT_TRUE(m.routing->loops.empty());
    ASSERT_EQ(m.routing->leaves.size(), 3u);
    const LeafBalanceRow& top = m.routing->leaves[0];
    EXPECT_EQ(top.leaf, "leaf01");
    EXPECT_TRUE(top.imbalanced);
    EXPECT_DOUBLE_EQ(top.spread, 4.0);
    EXPECT_EQ(top.destinations, 8u);    // the hosts under the other two leaves
    ASSERT_EQ(top.uplinks.size(), 4u);  // those that carry nothing too
    EXPECT_EQ(top.uplinks[0].port, "leaf01[5]");
    EXPECT_EQ(top.uplinks[0].destinations, 8u);
    for (size_t i = 1; i < 4; ++i) EXPECT_EQ(top.uplinks[i].destinations, 0u) << i;
    for (size_t i = 1; i < 3; ++i) {
        EXPECT_FALSE(m.routing->leaves[i].imbalanced);
        EXPECT_DOUBLE_EQ(m.routing->leaves[i].spread, 1.0);
    }
    const std::string html = render_html_report(m);
    EXPECT_NE(html.find("<tr class=\"imbalanced\"><td><code>leaf01</code></td><td><span "
                        "class=\"sev warning\">imbalanced</span></td><td class=\"num\">4</td>"
                        "<td class=\"num\">8</td><td class=\"num\">4.00x</td><td>leaf01[5] → "
                        "spine01[1]: 8<br>"),
              std::string::npos)
        << html.substr(html.find("<section id=\"routing\""), 1500);
    EXPECT_EQ(occurrences(html, "<tr class=\"even\">"), 2u);
    EXPECT_EQ(html.find("class=\"credit-loop\""), std::string::npos);
    const std::string md = render_markdown_report(m);
    EXPECT_NE(md.find("| leaf01 | **imbalanced** | 4 | 8 | 4.00x | leaf01\\[5\\] → spine01\\[1\\]: "
                      "8; "),
              std::string::npos)
        << md;
    // The thresholds' limit: 5x tolerates it.
    ReportModel tolerant = model_of(piled_uplink(3), 5.0);
    ASSERT_TRUE(tolerant.routing);
    EXPECT_FALSE(tolerant.routing->leaves[0].imbalanced);
    EXPECT_NE(render_html_report(tolerant).find("imbalanced above 5.00x the mean"),
              std::string::npos);
    // Without --thresholds, the limit the validation judged with (its
    // route_imbalance findings carry it), so the table and findings agree.
    ValidationDoc v;
    v.result = "fail";
    ReportFinding f;
    f.source = "validation";
    f.kind = "route_imbalance";
    f.evidence = {{"limit", 3.5}, {"spread", 4.0}};
    v.findings.push_back(f);
    Snapshot s;
    s.fabric = piled_uplink(3);
    ReportModel judged = build_report(std::move(s), v, {}, {});
    ASSERT_TRUE(judged.routing);
    EXPECT_DOUBLE_EQ(judged.routing->limit, 3.5);
    EXPECT_TRUE(judged.routing->leaves[0].imbalanced);
}

TEST(ReportRouting, ALargeFabricShowsTheUnevenLeavesAndCountsTheRest) {
    ReportModel m = model_of(piled_uplink(40));
    ASSERT_TRUE(m.routing);
    ASSERT_EQ(m.routing->leaves.size(), 40u);
    const std::string html = render_html_report(m);
    EXPECT_EQ(
        occurrences(html, "<tr class=\"imbalanced\">") + occurrences(html, "<tr class=\"even\">"),
        kBalanceRows);
    EXPECT_NE(html.find("<p>8 more leaves, each within the limit.</p>"), std::string::npos);
}

TEST(ReportRouting, NoTablesNoSection) {
    ReportModel m = model_of(testing::leaf_spine({}));
    EXPECT_FALSE(m.routing);
    EXPECT_EQ(render_html_report(m).find("id=\"routing\""), std::string::npos);
    EXPECT_EQ(render_markdown_report(m).find("### Routing"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
