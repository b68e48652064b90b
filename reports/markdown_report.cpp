#include "reports/markdown_report.h"

#include <fmt/format.h>

#include "reports/escape.h"

namespace fabscope {
namespace {

std::string where_md(const ReportFinding& f) {
    std::string out;
    for (const PortLabel& l : f.labels) {
        if (!out.empty()) out += ", ";
        out += md_escape(
            fmt::format("{}[{}]", l.node.empty() ? format_guid(l.node_guid) : l.node, l.port));
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

}  // namespace

std::string render_markdown_report(const ReportModel& m) {
    size_t e = m.count(Severity::Error);
    size_t w = m.count(Severity::Warning);
    std::string out = fmt::format(
        "## fabscope report: **{}**\n\n{} error{}, {} warning{}, {} for "
        "information. {}\n\n",
        m.verdict(), e, e == 1 ? "" : "s", w, w == 1 ? "" : "s", m.count(Severity::Info),
        md_escape(m.fabric_identity()));
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
        if (sev) links += fmt::format("- **{}** `{}`\n", name(*sev), m.link_name(li));
    }
    if (!links.empty()) out += "### Marked links\n\n" + links + "\n";
    if (!m.pairs.empty()) {
        out += "### Pairs\n\n| From | To | Test | Result | |\n|---|---|---|---|---|\n";
        for (const PairCheck& c : m.pairs) {
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
