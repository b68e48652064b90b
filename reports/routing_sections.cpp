#include "reports/routing_sections.h"

#include <fmt/format.h>

#include <algorithm>

#include "reports/escape.h"

namespace fabscope {
namespace {

/// The rows the table shows: every imbalanced leaf, then up to kBalanceRows.
size_t rows_shown(const RoutingDoc& r) {
    size_t imbalanced = 0;
    for (const LeafBalanceRow& l : r.leaves) imbalanced += l.imbalanced ? 1 : 0;
    return std::min(r.leaves.size(), std::max(imbalanced, kBalanceRows));
}

/// "leaf02[5] → spine01[2]: 12": one uplink's load, escaped by `esc`.
template <typename Escape>
std::string uplinks_text(const LeafBalanceRow& l, const char* sep, Escape esc) {
    std::string out;
    for (const UplinkLoad& u : l.uplinks) {
        out += fmt::format("{}{} → {}: {}", out.empty() ? "" : sep, esc(u.port), esc(u.peer),
                           u.destinations);
    }
    return out;
}

std::string loop_line(const LoopDoc& d, size_t i) {
    std::string cables;
    for (const LoopStep& s : d.steps)
        cables += fmt::format("{}{} → {}", cables.empty() ? "" : ", ", s.from, s.to);
    return fmt::format("credit loop {} on VL {}, {} cables: {}, and back to the first; e.g. {}",
                       i + 1, d.vl, d.steps.size(), cables, d.example);
}

std::string rest_note(const RoutingDoc& r, size_t shown) {
    if (shown == r.leaves.size()) return "";
    return fmt::format("{} more lea{}, each within the limit.", r.leaves.size() - shown,
                       r.leaves.size() - shown == 1 ? "f" : "ves");
}

}  // namespace

std::string routing_html(const ReportModel& m) {
    if (!m.routing) return "";
    const RoutingDoc& r = *m.routing;
    std::string out =
        fmt::format("<section id=\"routing\"><h2>Routing</h2>\n<p>The forwarding tables: {}.</p>\n",
                    html_escape(r.summary));
    if (!r.loops.empty()) {
        out += "<ol class=\"credit-loops\">\n";
        for (size_t i = 0; i < r.loops.size(); ++i) {
            out += fmt::format(
                "<li id=\"credit-loop-{}\"><span class=\"sev error\">error</span> "
                "{} (numbered on the drawing)</li>\n",
                i + 1, html_escape(loop_line(r.loops[i], i)));
        }
        out += "</ol>\n";
    }
    if (r.leaves.empty()) return out + "</section>\n";
    const size_t shown = rows_shown(r);
    out += fmt::format(
        "<table class=\"balance\"><caption>Destinations each leaf routes up, by uplink (a leaf is "
        "imbalanced above {:.2f}x the mean)</caption><thead><tr><th>Leaf</th><th>Verdict</th>"
        "<th>Uplinks</th><th>Destinations</th><th>Spread</th><th>Per uplink</th></tr></thead>"
        "<tbody>\n",
        r.limit);
    for (size_t i = 0; i < shown; ++i) {
        const LeafBalanceRow& l = r.leaves[i];
        out += fmt::format(
            "<tr class=\"{}\"><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td>"
            "<td class=\"num\">{}</td><td class=\"num\">{:.2f}x</td><td>{}</td></tr>\n",
            l.imbalanced ? "imbalanced" : "even", html_escape(l.leaf),
            l.imbalanced ? "<span class=\"sev warning\">imbalanced</span>" : "ok", l.uplinks_up,
            l.destinations, l.spread,
            uplinks_text(l, "<br>", [](const std::string& s) { return html_escape(s); }));
    }
    out += "</tbody></table>\n";
    if (std::string rest = rest_note(r, shown); !rest.empty()) out += "<p>" + rest + "</p>\n";
    return out + "</section>\n";
}

std::string routing_md(const ReportModel& m) {
    if (!m.routing) return "";
    const RoutingDoc& r = *m.routing;
    std::string out =
        fmt::format("### Routing\n\nThe forwarding tables: {}.\n\n", md_escape(r.summary));
    for (size_t i = 0; i < r.loops.size(); ++i)
        out += fmt::format("- **error** {}\n", md_escape(loop_line(r.loops[i], i)));
    if (!r.loops.empty()) out += "\n";
    if (r.leaves.empty()) return out;
    const size_t shown = rows_shown(r);
    out += fmt::format(
        "Destinations each leaf routes up, by uplink (imbalanced above {:.2f}x the mean):\n\n"
        "| Leaf | Verdict | Uplinks | Destinations | Spread | Per uplink |\n"
        "|---|---|---:|---:|---:|---|\n",
        r.limit);
    for (size_t i = 0; i < shown; ++i) {
        const LeafBalanceRow& l = r.leaves[i];
        out += fmt::format(
            "| {} | {} | {} | {} | {:.2f}x | {} |\n", md_escape(l.leaf),
            l.imbalanced ? "**imbalanced**" : "ok", l.uplinks_up, l.destinations, l.spread,
            uplinks_text(l, "; ", [](const std::string& s) { return md_escape(s); }));
    }
    if (std::string rest = rest_note(r, shown); !rest.empty()) out += "\n" + rest + "\n";
    return out + "\n";
}

}  // namespace fabscope
