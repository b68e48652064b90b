#include "reports/markdown_report.h"

#include <fmt/format.h>

#include "reports/cables_sections.h"
#include "reports/escape.h"
#include "reports/routing_sections.h"
#include "reports/run_sections.h"

namespace fabscope {
namespace {

/// Each port with its GUID and LID, as a vendor matches them to the
/// hardware: "leaf02[5] (0x0002c90300002002, LID 3)".
std::string where_md(const ReportFinding& f) {
    std::string out;
    for (const PortLabel& l : f.labels) {
        if (!out.empty()) out += ", ";
        out += md_escape(label_name(l));
        if (l.node_guid == 0) continue;
        out += fmt::format(" ({}{})", format_guid(l.node_guid),
                           l.lid ? fmt::format(", LID {}", l.lid) : "");
    }
    return out.empty() ? "—" : out;
}

/// Evidence as words, not JSON: "width 1X, planned_width 4X"; the members
/// of an object in a list in parentheses.
std::string evidence_words(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    std::string out;
    if (v.is_object()) {
        for (const auto& [key, value] : v.items())
            out += (out.empty() ? "" : ", ") + key + " " + evidence_words(value);
        return out;
    }
    if (v.is_array()) {
        for (const nlohmann::json& item : v) {
            std::string words = evidence_words(item);
            out += (out.empty() ? "" : "; ") + (item.is_object() ? "(" + words + ")" : words);
        }
        return out;
    }
    return v.dump();
}

/// One readable line: the finding's numbers, then both ends' rates.
std::string evidence_md(const ReportModel& m, const ReportFinding& f) {
    std::string s = f.evidence.empty() ? "" : evidence_words(f.evidence);
    if (s.size() > 300) s = s.substr(0, 297) + "...";
    if (f.labels.size() <= 4) {
        for (const PortLabel& l : f.labels) {
            std::string r = port_rates(m, l);
            if (!r.empty()) s += (s.empty() ? "" : " · ") + r;
        }
    }
    return s.empty() ? "—" : md_escape(s);
}

/// When each input was measured and by what: what a vendor asks first.
std::string run_md(const ReportModel& m) {
    std::string out = "### Measured\n\n";
    if (m.snapshot) {
        const SnapshotSource& s = m.snapshot->source;
        out += fmt::format(
            "- snapshot: {} by {}{}\n", s.started.empty() ? "time unknown" : md_escape(s.started),
            md_escape(s.method),
            s.ca.empty() ? "" : fmt::format(" through {} port {}", md_escape(s.ca), s.ca_port));
    }
    if (m.validation) {
        const ValidationMeta& v = m.validation->meta;
        out += fmt::format(
            "- {}: {}{}{}\n", md_escape(v.command),
            v.started.empty() ? "time unknown" : md_escape(v.started),
            v.interval_s > 0 ? fmt::format(", counters over {:.1f} s", v.interval_s) : "",
            v.plan.empty() ? "" : ", plan " + md_escape(v.plan));
    }
    for (const perf::PerfReport& p : m.perf)
        out += fmt::format("- perf run from {}: {}\n", md_escape(p.meta.host),
                           md_escape(p.meta.started));
    if (m.congestion) out += fmt::format("- congestion: {}\n", md_escape(m.congestion->started));
    for (const std::string& in : m.meta.inputs) out += "- input: " + md_escape(in) + "\n";
    return out + "\n";
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
    for (const std::string& warning : m.warnings)
        out += "> **Warning:** " + md_escape(warning) + "\n\n";
    out += mesh_md(m) + incast_md(m) + collective_md(m);
    out += "### Findings\n\n";
    if (m.findings.empty()) {
        out += "No findings.\n\n";
    } else {
        out += "| Severity | Finding | Where | Evidence |\n|---|---|---|---|\n";
        for (const ReportFinding& f : m.findings) {
            out += fmt::format("| {} | {} | {} | {} |\n", name(f.severity), md_escape(f.summary),
                               where_md(f), evidence_md(m, f));
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
    out += routing_md(m);
    out += cables_md(m);
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
    out += run_md(m);
    if (!m.checks.empty()) {
        out += "### Checked\n\n";
        for (const CheckMade& c : m.checks) out += "- " + md_escape(c.text()) + "\n";
        out += "\n";
    }
    out += fmt::format("<sub>fabscope {} · {} · {}</sub>\n", md_escape(m.meta.tool_version),
                       md_escape(m.meta.generated), md_escape(m.meta.command_line));
    return out;
}

}  // namespace fabscope
