#include "reports/fabric_svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "reports/escape.h"

namespace fabscope {
namespace {

constexpr int kBoxW = 96;
constexpr int kBoxH = 28;
constexpr int kPitch = 108;
constexpr int kRowGap = 120;
constexpr int kMargin = 24;
constexpr int kLabelW = 70;   // the tier names on the left
constexpr int kLineGap = 14;  // between the lines of a wrapped tier

struct Placed {
    bool drawn = false;
    int x = 0;  // centre
    int y = 0;  // top
};

std::string short_name(const std::string& d) {
    std::string s = d.substr(0, d.find(' '));
    if (s.empty()) s = d;
    if (s.size() > 14) s = s.substr(0, 13) + "…";
    return s;
}

std::string_view severity_class(Severity s) {
    switch (s) {
        case Severity::Error: return "sev-error";
        case Severity::Warning: return "sev-warning";
        case Severity::Info: return "sev-info";
    }
    return "";
}

/// The drawing's rows from the top: the highest tier first, hosts last,
/// unreachable switches apart; within a row by name, and hosts under the
/// leaf they hang off, so cables stay short.
struct TierRows {
    std::vector<int> tiers;
    std::map<int, std::vector<size_t>> nodes;  ///< per tier, node indices in drawing order
};

TierRows tier_rows(const ReportModel& m, const std::vector<Node>& nodes) {
    TierRows out;
    std::vector<int>& row_tiers = out.tiers;
    for (int t = m.tiers.max_tier; t >= 0; --t) {
        if (m.tiers.count(t) > 0) row_tiers.push_back(t);
    }
    if (m.tiers.count(kTierUnreachable) > 0) row_tiers.push_back(kTierUnreachable);

    std::map<int, std::vector<size_t>>& rows = out.nodes;
    for (size_t i = 0; i < nodes.size(); ++i) rows[m.tiers.tier(i)].push_back(i);
    auto by_name = [&](size_t a, size_t b) { return nodes[a].description < nodes[b].description; };
    for (auto& [t, v] : rows) std::stable_sort(v.begin(), v.end(), by_name);
    if (rows.count(0) && rows.count(1)) {
        std::map<Guid, size_t> leaf_rank;
        for (size_t k = 0; k < rows[1].size(); ++k) leaf_rank[nodes[rows[1][k]].guid] = k;
        auto rank = [&](size_t i) {
            for (const Port& p : nodes[i].ports) {
                if (p.peer && leaf_rank.count(p.peer->node)) return leaf_rank[p.peer->node];
            }
            return leaf_rank.size();
        };
        std::stable_sort(rows[0].begin(), rows[0].end(),
                         [&](size_t a, size_t b) { return rank(a) < rank(b); });
    }
    return out;
}

/// Where a cable's two ends are drawn: (xa, ya) at its end a, (xb, yb) at b.
struct CableEnds {
    int xa = 0, ya = 0, xb = 0, yb = 0;
};

/// Each credit loop's cables as numbered arrows in the direction the loop
/// holds them, each loop a little aside of the cable (two loops may share
/// it, one each way), in a group a reader and a test can find.
std::string loop_arrows(const ReportModel& m, const std::map<size_t, CableEnds>& ends) {
    if (!m.routing) return "";
    std::string out;
    for (size_t i = 0; i < m.routing->loops.size(); ++i) {
        const LoopDoc& loop = m.routing->loops[i];
        std::string steps;
        for (size_t k = 0; k < loop.steps.size(); ++k) {
            const LoopStep& s = loop.steps[k];
            auto e = ends.find(s.link);
            if (e == ends.end()) continue;  // a collapsed tier: not drawn
            const CableEnds& c = e->second;
            const double x1 = s.a_to_b ? c.xa : c.xb, y1 = s.a_to_b ? c.ya : c.yb;
            const double x2 = s.a_to_b ? c.xb : c.xa, y2 = s.a_to_b ? c.yb : c.ya;
            const double len = std::max(1.0, std::hypot(x2 - x1, y2 - y1));
            const double off = 7.0 * static_cast<double>(i + 1);  // aside, perpendicular
            const double nx = -(y2 - y1) / len * off, ny = (x2 - x1) / len * off;
            // A point `t` of the way along the cable, set aside.
            auto at = [&](double t) {
                return std::pair{x1 + (x2 - x1) * t + nx, y1 + (y2 - y1) * t + ny};
            };
            auto [ax, ay] = at(0.2);
            auto [bx, by] = at(0.8);
            auto [tx, ty] = at(0.35);
            steps += fmt::format(
                "<line class=\"loop-step\" x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" "
                "y2=\"{:.0f}\" marker-end=\"url(#loop-arrow)\"><title>{}. {} → {}</title></line>"
                "<text class=\"loop-number\" x=\"{:.0f}\" y=\"{:.0f}\">{}</text>\n",
                ax, ay, bx, by, k + 1, html_escape(s.from), html_escape(s.to), tx + nx, ty + ny,
                k + 1);
        }
        out += fmt::format("<g class=\"credit-loop\" id=\"loop-{}\" data-vl=\"{}\">\n{}</g>\n",
                           i + 1, loop.vl, steps);
    }
    if (out.empty()) return "";
    return "<defs><marker id=\"loop-arrow\" viewBox=\"0 0 8 8\" refX=\"7\" refY=\"4\" "
           "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path class=\"loop-arrow\" "
           "d=\"M0,0 L8,4 L0,8 z\"/></marker></defs>\n" +
           out;
}

/// How the drawing is laid out: how many boxes a line holds, the widest
/// row's boxes, and the drawing's size.
struct Sheet {
    size_t per_line = 1;
    size_t max_per_tier = 0;
    size_t widest = 1;
    int width = 0;
    int height = 0;
    /// The lines a tier of `n` nodes takes: one when collapsed into a box.
    size_t lines_of(size_t n) const {
        return n > max_per_tier ? size_t{1} : std::max<size_t>(1, (n + per_line - 1) / per_line);
    }
    /// How far down the next row starts after a tier of `n` nodes.
    int row_height(size_t n) const {
        return kRowGap + static_cast<int>(lines_of(n) - 1) * (kBoxH + kLineGap);
    }
};

/// A line holds what fits in max_width; a longer tier wraps.
Sheet sheet_of(const TierRows& tr, const FabricSvgOptions& o) {
    Sheet out;
    out.per_line = static_cast<size_t>(
        std::max(1, (o.max_width - kMargin * 2 - kLabelW + (kPitch - kBoxW)) / kPitch));
    out.max_per_tier = o.max_per_tier;
    for (int t : tr.tiers) {
        out.widest =
            std::max(out.widest, std::min({tr.nodes.at(t).size(), o.max_per_tier, out.per_line}));
    }
    out.width = kMargin * 2 + kLabelW + static_cast<int>(out.widest) * kPitch;
    out.height = kMargin * 2 - (kRowGap - kBoxH);
    for (int t : tr.tiers) out.height += out.row_height(tr.nodes.at(t).size());
    return out;
}

/// The nodes drawn one by one, where each is, and the tiers' names.
struct NodeBoxes {
    std::vector<Placed> at;
    std::string boxes;
    std::string tier_labels;
};

/// One box for a whole tier too big to draw: its links are not drawn.
std::string collapsed_box(int t, size_t n, int x0, int y, const Sheet& sheet) {
    int w = static_cast<int>(sheet.widest) * kPitch - (kPitch - kBoxW);
    return fmt::format(
        "<g class=\"node collapsed\"><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" "
        "rx=\"4\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
        x0, y, w, kBoxH, x0 + w / 2, y + kBoxH / 2 + 4,
        html_escape(tier_count(t, n) + " (not drawn one by one)"));
}

std::string node_box(const Node& n, int t, int x, int y) {
    return fmt::format(
        "<g class=\"node {}\"><title>{} ({}, {})</title><rect x=\"{}\" y=\"{}\" "
        "width=\"{}\" height=\"{}\" rx=\"4\"/><text x=\"{}\" y=\"{}\">{}</text></g>\n",
        html_escape(tier_name(t)), html_escape(n.description), format_guid(n.guid),
        html_escape(name(n.type)), x, y, kBoxW, kBoxH, x + kBoxW / 2, y + kBoxH / 2 + 4,
        html_escape(short_name(n.description)));
}

/// The rows of boxes, tier by tier from the top, each line centred.
NodeBoxes node_boxes(const std::vector<Node>& nodes, const TierRows& tr, const Sheet& sheet) {
    NodeBoxes out;
    out.at.resize(nodes.size());
    int y_next = kMargin;
    for (int t : tr.tiers) {
        const std::vector<size_t>& v = tr.nodes.at(t);
        const int y = y_next;
        y_next += sheet.row_height(v.size());
        out.tier_labels += fmt::format(
            "<text class=\"tier\" x=\"{}\" y=\"{}\">{}</text>\n", kMargin, y + kBoxH / 2 + 4,
            html_escape(t == kTierUnreachable ? "unreach." : tier_plural(t)));
        int x0 = kMargin + kLabelW;
        if (v.size() > sheet.max_per_tier) {
            out.boxes += collapsed_box(t, v.size(), x0, y, sheet);
            continue;
        }
        const size_t per_line = sheet.per_line;
        for (size_t k = 0; k < v.size(); ++k) {
            size_t i = v[k];
            // Line by line, each centred (the last may be shorter).
            const size_t line = k / per_line;
            const size_t on_line = std::min(per_line, v.size() - line * per_line);
            const int offset =
                (static_cast<int>(sheet.widest) - static_cast<int>(on_line)) * kPitch / 2;
            int x = x0 + offset + static_cast<int>(k % per_line) * kPitch;
            const int yy = y + static_cast<int>(line) * (kBoxH + kLineGap);
            out.at[i] = {true, x + kBoxW / 2, yy};
            out.boxes += node_box(nodes[i], t, x, yy);
        }
    }
    return out;
}

/// The cables drawn, healthy and bad apart, and where each one's ends are.
struct Cables {
    std::string healthy;
    std::string bad;
    std::map<size_t, CableEnds> ends;
};

/// A cable with findings: its severity's colour, its name at its middle,
/// and its findings in its title.
std::string bad_cable(const ReportModel& m, size_t li, Severity sev, int x1, int y1, int x2,
                      int y2) {
    std::string why;
    for (size_t fi : m.link_findings[li]) why += "\n" + m.findings[fi].summary;
    std::string nm = m.link_name(li);
    int mx = (x1 + x2) / 2;
    int my = (y1 + y2) / 2;
    return fmt::format(
        "<g class=\"bad-link {0}\" id=\"{1}\" data-link=\"{2}\"><title>{2}{3}</title>"
        "<line class=\"link bad {0}\" x1=\"{4}\" y1=\"{5}\" x2=\"{6}\" y2=\"{7}\"/>"
        "<text class=\"link-label\" x=\"{8}\" y=\"{9}\">{2}</text></g>\n",
        severity_class(sev), link_element_id(m, li), html_escape(nm), html_escape(why), x1, y1, x2,
        y2, mx, my);
}

/// Cables between drawn nodes: parallel ones between the same two nodes
/// spread apart.
Cables drawn_cables(const ReportModel& m, const Fabric& f, const std::vector<Placed>& at) {
    Cables out;
    std::map<std::pair<size_t, size_t>, int> parallel;
    for (size_t li = 0; li < f.links().size(); ++li) {
        const Link& l = f.links()[li];
        auto ia = f.index_of(l.a.node);
        auto ib = f.index_of(l.b.node);
        if (!ia || !ib || !at[*ia].drawn || !at[*ib].drawn) continue;
        // From the upper node's bottom to the lower node's top.
        size_t up = at[*ia].y <= at[*ib].y ? *ia : *ib;
        size_t down = up == *ia ? *ib : *ia;
        int k = parallel[{std::min(up, down), std::max(up, down)}]++;
        int spread = (k % 2 == 0 ? 1 : -1) * ((k + 1) / 2) * 5;
        int x1 = at[up].x + spread;
        int y1 = at[up].y + (at[up].y == at[down].y ? 0 : kBoxH);
        int x2 = at[down].x + spread;
        int y2 = at[down].y;
        out.ends[li] = up == *ia ? CableEnds{x1, y1, x2, y2} : CableEnds{x2, y2, x1, y1};
        std::optional<Severity> sev = m.link_severity(li);
        if (!sev) {
            out.healthy += fmt::format(
                "<line class=\"link\" x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"><title>{}</title>"
                "</line>\n",
                x1, y1, x2, y2, html_escape(m.link_name(li)));
            continue;
        }
        out.bad += bad_cable(m, li, *sev, x1, y1, x2, y2);
    }
    return out;
}

}  // namespace

std::string link_element_id(const ReportModel& m, size_t link) {
    return "link-" + html_id(m.link_name(link));
}

std::string render_fabric_svg(const ReportModel& m, const FabricSvgOptions& o) {
    if (!m.snapshot) return "";
    const Fabric& f = m.snapshot->fabric;
    const TierRows tr = tier_rows(m, f.nodes());
    const Sheet sheet = sheet_of(tr, o);
    const NodeBoxes nodes = node_boxes(f.nodes(), tr, sheet);
    const Cables links = drawn_cables(m, f, nodes.at);
    return fmt::format(
        "<svg class=\"fabric\" viewBox=\"0 0 {0} {1}\" "
        "width=\"{0}\" height=\"{1}\" role=\"img\" aria-label=\"The fabric by tier\">\n"
        "{2}<g class=\"links\">\n{3}</g>\n<g class=\"nodes\">\n{4}</g>\n"
        "<g class=\"bad-links\">\n{5}</g>\n{6}</svg>\n",
        sheet.width, sheet.height, nodes.tier_labels, links.healthy, nodes.boxes, links.bad,
        loop_arrows(m, links.ends));
}

}  // namespace fabscope
