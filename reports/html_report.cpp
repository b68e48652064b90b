#include "reports/html_report.h"

#include <fmt/format.h>

#include "reports/cables_sections.h"
#include "reports/escape.h"
#include "reports/fabric_svg.h"
#include "reports/heat_map.h"
#include "reports/routing_sections.h"
#include "reports/run_sections.h"

namespace fabscope {
namespace {

constexpr const char* kStyle = R"(
:root { --fg:#1b1f24; --muted:#5b6470; --line:#d0d7de; --bg:#fff; --err:#c62828; --warn:#e08600;
  --info:#1565c0; --ok:#2e7d32; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  background: var(--bg); margin: 0 auto; padding: 16px; max-width: 1200px; }
h1 { font-size: 1.6em; margin: 0; } h2 { font-size: 1.2em; border-bottom: 1px solid var(--line);
  padding-bottom: 4px; margin-top: 28px; } h3 { font-size: 1em; }
.verdict { border-left: 8px solid var(--ok); padding: 8px 16px; background: #f3f8f3; }
.verdict.fail { border-color: var(--err); background: #fdf1f1; }
.verdict.interrupted { border-color: var(--warn); background: #fff7e8; }
.verdict p { margin: 4px 0; color: var(--muted); }
table { border-collapse: collapse; width: 100%; margin: 8px 0; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.sev { font-weight: 600; text-transform: uppercase; font-size: .8em; white-space: nowrap; }
.sev.error { color: var(--err); } .sev.warning { color: var(--warn); } .sev.info { color: var(--info); }
pre { background: #f6f8fa; padding: 8px; overflow-x: auto; font-size: .85em; margin: 4px 0; }
code, .port { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .9em; }
.guid { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: .8em; color: #57606a; }
.rates { font-size: .85em; color: #57606a; margin-top: 2px; }
.drawing { overflow-x: auto; border: 1px solid var(--line); padding: 4px; }
svg { max-width: 100%; height: auto; }
svg text { font: 11px ui-monospace, "DejaVu Sans Mono", monospace; fill: var(--fg); }
svg.fabric .node rect { fill: #eef3f8; stroke: #6a7a8c; }
svg.fabric .node.spine rect, svg.fabric .node.core rect { fill: #e3ecf7; }
svg.fabric .node.host rect { fill: #f7f7f7; }
svg.fabric .node text, svg.heat-map .heat-cell text { text-anchor: middle; }
svg.fabric text.tier { font-weight: 600; fill: var(--muted); }
svg.fabric .link { stroke: #9aa5b1; stroke-width: 1.2; }
svg.fabric .link.bad { stroke-width: 5; stroke-linecap: round; }
svg.fabric .link.bad.sev-error { stroke: var(--err); } svg.fabric .link.bad.sev-warning { stroke: var(--warn); }
svg.fabric .link.bad.sev-info { stroke: var(--info); }
svg.fabric .link-label { text-anchor: middle; font-weight: 700; paint-order: stroke;
  stroke: #fff; stroke-width: 4px; fill: var(--err); }
svg.fabric .loop-step { stroke: #6a1b9a; stroke-width: 2.5; }
svg.fabric .loop-arrow { fill: #6a1b9a; }
svg.fabric .loop-number { text-anchor: middle; font-weight: 700; fill: #6a1b9a; paint-order: stroke;
  stroke: #fff; stroke-width: 3px; }
svg.heat-map text.row { text-anchor: end; } svg.heat-map .heat-cell text { fill: #fff; font-weight: 600; }
svg.heat-map .heat-cell.degraded rect { stroke: #000; stroke-width: 2; }
.tree h3 .cause { font-weight: normal; color: var(--muted); }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dt { color: var(--muted); } dd { margin: 0; word-break: break-word; }
@media (max-width: 640px) {
  body { padding: 8px; font-size: 14px; }
  table, thead, tbody, tr, th, td { display: block; width: 100%; }
  thead { display: none; } tr { border-bottom: 2px solid var(--line); padding: 4px 0; }
  td { border: 0; padding: 2px 4px; } td.num { text-align: left; }
  dl { grid-template-columns: 1fr; } dd { margin-bottom: 6px; }
  .drawing svg { max-width: none; }  /* legible, scrolled sideways */
}
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  .verdict { background: none; }
  h2 { break-after: avoid; } tr, .drawing, figure { break-inside: avoid; }
  .drawing { overflow: visible; border: 0; }
  details > *:not(summary) { display: block; }
  a { color: inherit; text-decoration: none; }
}
)";

std::string where_html(const ReportFinding& f) {
    std::string out;
    for (const PortLabel& l : f.labels) {
        if (!out.empty()) out += "<br>";
        std::string node = l.node.empty() ? format_guid(l.node_guid) : l.node;
        out += fmt::format("<span class=\"port\">{}[{}]</span>", html_escape(node), l.port);
        // GUID and LID: what a vendor matches to the hardware.
        if (l.node_guid != 0)
            out += fmt::format(" <span class=\"guid\">{}</span>{}", format_guid(l.node_guid),
                               l.lid ? fmt::format(" LID {}", l.lid) : "");
    }
    return out.empty() ? "—" : out;
}

std::string findings_html(const ReportModel& m) {
    if (m.findings.empty()) return "<p>No findings.</p>\n";
    std::string out =
        "<table class=\"findings\"><thead><tr><th>Severity</th><th>Finding</th><th>Where</th>"
        "<th>Evidence</th></tr></thead><tbody>\n";
    for (const ReportFinding& f : m.findings) {
        std::string ev = f.evidence.empty()
                             ? std::string()
                             : "<details open><summary>" + html_escape(f.kind) + "</summary><pre>" +
                                   html_escape(f.evidence.dump(1)) + "</pre></details>";
        for (size_t i = 0; i < f.labels.size() && f.labels.size() <= 4; ++i) {
            std::string r = port_rates(m, f.labels[i]);
            if (!r.empty()) ev += "<div class=\"rates\">" + html_escape(r) + "</div>";
        }
        if (ev.empty()) ev = "—";
        out += fmt::format(
            "<tr class=\"finding {0}\"><td class=\"sev {0}\">{0}</td><td>{1}</td><td>{2}</td>"
            "<td>{3}</td></tr>\n",
            name(f.severity), html_escape(f.summary), where_html(f), ev);
    }
    return out + "</tbody></table>\n";
}

std::string fabric_html(const ReportModel& m) {
    if (!m.snapshot) return "";
    std::string out = "<section id=\"fabric\"><h2>Fabric</h2>\n<div class=\"drawing\">\n" +
                      render_fabric_svg(m) + "</div>\n";
    std::string list;
    for (size_t li = 0; li < m.link_findings.size(); ++li) {
        auto sev = m.link_severity(li);
        if (!sev) continue;
        list += fmt::format(
            "<li><a href=\"#{}\"><span class=\"sev {}\">{}</span> <code>{}</code></a>",
            link_element_id(m, li), name(*sev), name(*sev), html_escape(m.link_name(li)));
        for (size_t fi : m.link_findings[li]) list += " — " + html_escape(m.findings[fi].summary);
        list += "</li>\n";
    }
    if (!list.empty()) out += "<p>Marked links:</p>\n<ul class=\"bad-links\">\n" + list + "</ul>\n";
    return out + "</section>\n";
}

std::string pairs_html(const ReportModel& m) {
    if (m.matrices.empty()) return "";
    std::string out = "<section id=\"pairs\"><h2>Pair matrix</h2>\n";
    for (const PairMatrix& pm : m.matrices) {
        out += fmt::format(
            "<figure><h3>{} ({}; best {:.3g}, worst {:.3g})</h3>\n<div class=\"drawing\">\n{}</div>"
            "</figure>\n",
            html_escape(pm.test), html_escape(pm.unit), pm.best, pm.worst,
            render_heat_map_svg(m, pm));
    }
    return out + "</section>\n";
}

std::string counters_html(const ReportModel& m) {
    if (!m.snapshot) return "";
    std::vector<CounterRow> rows = counter_rows(m);
    std::string out = "<section id=\"counters\"><h2>Counters</h2>\n";
    if (!counters_read(m)) {
        return out +
               "<p>Counters were not read: this snapshot holds none (<code>discover</code> reads "
               "none; <code>sweep</code> and <code>validate</code> do).</p></section>\n";
    }
    if (rows.empty()) return out + "<p>No error counter is above zero.</p></section>\n";
    out +=
        "<table class=\"counters\"><thead><tr><th>Port</th><th>Counter</th><th>Value</th></tr>"
        "</thead><tbody>\n";
    for (const CounterRow& r : rows) {
        out +=
            fmt::format("<tr><td class=\"port\">{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                        html_escape(r.where), name(r.counter), r.value);
    }
    return out +
           "</tbody></table>\n<p>Totals since the counters were last cleared, as read.</p>"
           "</section>\n";
}

std::string share_html(const CongestionPort& p) {
    return fmt::format("{:.2f}%{}", p.share * 100, p.cleared ? " (at least; cleared)" : "");
}

std::string port_html(const PortLabel& l) {
    return "<span class=\"port\">" + html_escape(label_name(l)) + "</span>";
}

std::string congestion_html(const ReportModel& m) {
    if (!m.congestion) return "";
    const CongestionDoc& c = *m.congestion;
    std::string out = fmt::format(
        "<section id=\"congestion\"><h2>Congestion</h2>\n<p>{} tree{}; PortXmitWait of {} port{} "
        "over {:.1f} s{}{}.</p>\n",
        c.trees.size(), c.trees.size() == 1 ? "" : "s", c.ports_read, c.ports_read == 1 ? "" : "s",
        c.interval_s, c.round > 1 ? fmt::format(", round {}", c.round) : "",
        c.ports_unanswered ? fmt::format(", {} did not answer", c.ports_unanswered) : "");
    for (const CongestionTreeDoc& t : c.trees) {
        out += fmt::format(
            "<div class=\"tree\"><h3>Root {} <span class=\"cause\">{}</span>, {} waiting</h3>\n",
            port_html(t.root.label), html_escape(t.cause), share_html(t.root));
        if (t.victims.empty()) {
            out += "<p>No victims.</p></div>\n";
            continue;
        }
        out +=
            "<table class=\"victims\"><thead><tr><th>Victim</th><th>Waiting</th><th>Chain to the "
            "root</th></tr></thead><tbody>\n";
        for (const CongestionPort& v : t.victims) {
            std::string chain;
            for (const PortLabel& l : v.chain) chain += (chain.empty() ? "" : " → ") + port_html(l);
            out += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                               port_html(v.label), share_html(v), chain);
        }
        out += "</tbody></table></div>\n";
    }
    if (c.hottest.empty()) return out + "<p>No port waited.</p></section>\n";
    out +=
        "<h3>Hottest ports</h3>\n<table class=\"hottest\"><thead><tr><th>Port</th><th>Waiting"
        "</th><th>PortXmitWait rise</th></tr></thead><tbody>\n";
    for (const CongestionPort& h : c.hottest) {
        out +=
            fmt::format("<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
                        port_html(h.label), share_html(h), h.delta_ticks);
    }
    return out + "</tbody></table>\n</section>\n";
}

std::string meta_html(const ReportModel& m) {
    auto row = [](std::string_view k, const std::string& v) {
        return v.empty() ? std::string()
                         : fmt::format("<dt>{}</dt><dd>{}</dd>\n", k, html_escape(v));
    };
    std::string out = "<section id=\"run\"><h2>Run</h2>\n<dl>\n";
    out += row("fabscope", m.meta.tool_version);
    out += row("command", m.meta.command_line);
    out += row("report written", m.meta.generated);
    out += row("fabric", m.fabric_identity());
    if (m.snapshot) {
        const SnapshotSource& s = m.snapshot->source;
        out += row("snapshot taken", s.started);
        out += row("discovered by",
                   s.method + (s.tool_version.empty() ? "" : ", fabscope " + s.tool_version));
    }
    if (m.validation) {
        out += row("validated", m.validation->meta.started);
        out += row("plan", m.validation->meta.plan);
        out += row("baseline", m.validation->meta.baseline);
    }
    for (const perf::PerfReport& p : m.perf) out += row("perf run", p.meta.started);
    if (m.congestion) out += row("congestion measured", m.congestion->started);
    if (m.mesh)
        out += row("mesh run", fmt::format("{}, {:.1f} s", m.mesh->status, m.mesh->wall_seconds));
    if (m.incast)
        out += row("incast run",
                   fmt::format("{}, {:.1f} s", m.incast->status, m.incast->wall_seconds));
    for (const std::string& in : m.meta.inputs) out += row("input", in);
    for (const std::string& w : m.warnings) out += row("warning", w);
    return out + "</dl>\n</section>\n";
}

}  // namespace

std::string render_html_report(const ReportModel& m) {
    std::string verdict = m.verdict();
    std::string cls = verdict == "PASS" ? "pass" : verdict == "FAIL" ? "fail" : "interrupted";
    size_t e = m.count(Severity::Error);
    size_t w = m.count(Severity::Warning);
    std::string counts =
        fmt::format("{} error{}, {} warning{}, {} for information", e, e == 1 ? "" : "s", w,
                    w == 1 ? "" : "s", m.count(Severity::Info));
    std::string checks;
    for (const CheckMade& c : m.checks) checks += "<li>" + html_escape(c.text()) + "</li>\n";
    return fmt::format(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
        "'unsafe-inline'\">\n<title>fabscope report: {0} ({1})</title>\n<style>{2}</style>\n"
        "</head>\n<body>\n<header class=\"verdict {3}\" id=\"verdict\"><h1>{0}</h1>\n<p>{4}</p>\n"
        "<p>{1}</p></header>\n{12}{13}<section id=\"findings\"><h2>Findings</h2>\n{5}</section>\n"
        "{6}{7}{8}{9}<section id=\"checks\"><h2>Checked</h2>\n<ul>\n{10}</ul>\n</section>\n"
        "{11}</body>\n</html>\n",
        verdict, html_escape(m.fabric_identity()), kStyle, cls, counts, findings_html(m),
        fabric_html(m) + routing_html(m) + cables_html(m), congestion_html(m), pairs_html(m),
        counters_html(m), checks, meta_html(m), mesh_html(m), incast_html(m) + collective_html(m));
}

}  // namespace fabscope
