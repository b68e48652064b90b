#include "reports/markdown_report.h"

#include <fmt/format.h>

#include "reports/escape.h"
#include "reports/run_sections.h"

namespace fabscope {
namespace {

std::string where_md(const ReportFinding& f) {
    std::string out;
    for (const PortLabel& l : f.labels) {
        if (!out.empty()) out += ", ";
        out += md_escape(label_name(l));
    }
    return out.empty() ? "—" : out;
}

/// Evidence on one line: {"key": value, ...} compact, escaped for a table cell.
std::string evidence_md(const nlohmann::json& e) {
    if (e.empty()) return "—";
    std::string s = e.dump();
    if (s.size() > 300) s = s.substr(0, 297) + "...";
    return md_escape(s);
}

std::string congestion_md(const CongestionDoc& c) {
    auto share = [](const CongestionPort& p) {
        return fmt::format("{:.2f}%{}", p.share * 100, p.cleared ? " (at least)" : "");
    };
    std::string out = fmt::format(
        "### Congestion\n\n{} tree{}; PortXmitWait of {} port{} over {:.1f} s{}.\n\n",
        c.trees.size(), c.trees.size() == 1 ? "" : "s", c.ports_read, c.ports_read == 1 ? "" : "s",
        c.interval_s,
        c.ports_unanswered ? fmt::format(", {} did not answer", c.ports_unanswered) : "");
    for (const CongestionTreeDoc& t : c.trees) {
        out += fmt::format("- **root** {} ({}), {} waiting\n", md_escape(label_name(t.root.label)),
                           md_escape(t.cause), share(t.root));
        for (const CongestionPort& v : t.victims) {
            std::string chain;
            for (const PortLabel& l : v.chain)
                chain += (chain.empty() ? "" : " → ") + md_escape(label_name(l));
            out += fmt::format("  - victim {}, {} waiting ({})\n", md_escape(label_name(v.label)),
                               share(v), chain);
        }
    }
    if (!c.trees.empty()) out += "\n";
    if (!c.hottest.empty()) {
        out += "| Port | Waiting | PortXmitWait rise |\n|---|---:|---:|\n";
        for (const CongestionPort& h : c.hottest)
            out += fmt::format("| {} | {} | {} |\n", md_escape(label_name(h.label)), share(h),
                               h.delta_ticks);
        out += "\n";
    }
    return out;
}

}  // namespace

std::string render_markdown_report(const ReportModel& m) {
    size_t e = m.count(Severity::Error);
    size_t w = m.count(Severity::Warning);
    std::string out = fmt::format(
        "## fabscope report: **{}**\n\n{} error{}, {} warning{}, {} for "
        "information. {}\n\n",
        m.verdict(), e, e == 1 ? "" : "s", w, w == 1 ? "" : "s", m.count(Severity::Info),
        md_escape(m.fabric_identity()));
    out += mesh_md(m) + incast_md(m);
    out += "### Findings\n\n";
    if (m.findings.empty()) {
        out += "No findings.\n\n";
    } else {
        out += "| Severity | Finding | Where | Evidence |\n|---|---|---|---|\n";
        for (const ReportFinding& f : m.findings) {
            out += fmt::format("| {} | {} | {} | {} |\n", name(f.severity), md_escape(f.summary),
                               where_md(f), evidence_md(f.evidence));
        }
        out += "\n";
    }
    std::string links;
    for (size_t li = 0; li < m.link_findings.size(); ++li) {
        auto sev = m.link_severity(li);
        // Escaped, not a code span: a node description may hold a backtick.
        if (sev) links += fmt::format("- **{}** {}\n", name(*sev), md_escape(m.link_name(li)));
    }
    if (!links.empty()) out += "### Marked links\n\n" + links + "\n";
    if (m.congestion) out += congestion_md(*m.congestion);
    if (!m.pairs.empty()) {
        out += "### Pairs\n\n| From | To | Test | Result | |\n|---|---|---|---|---|\n";
        for (const PairCheck& c : m.pairs) {
            if (c.mesh && c.ok && !c.degraded) continue;  // a mesh's healthy flows: too many
            std::string result = c.ok ? fmt::format("{:.3g} {}", c.value, c.unit) : "failed";
            std::string state = !c.ok ? "**failed**" : c.degraded ? "**degraded**" : "ok";
            out += fmt::format("| {} | {} | {} | {} | {} |\n", md_escape(c.from), md_escape(c.to),
                               md_escape(c.test), md_escape(result), state);
        }
        out += "\n";
    }
    std::vector<CounterRow> rows = counter_rows(m, 50);
    if (!rows.empty()) {
        out += "### Counters\n\n| Port | Counter | Value |\n|---|---|---:|\n";
        for (const CounterRow& r : rows)
            out += fmt::format("| {} | {} | {} |\n", md_escape(r.where), name(r.counter), r.value);
        out += "\n";
    }
    if (!m.checks.empty()) {
        out += "### Checked\n\n";
        for (const std::string& c : m.checks) out += "- " + md_escape(c) + "\n";
        out += "\n";
    }
    out += fmt::format("<sub>fabscope {} · {} · {}</sub>\n", md_escape(m.meta.tool_version),
                       md_escape(m.meta.generated), md_escape(m.meta.command_line));
    return out;
}

}  // namespace fabscope
