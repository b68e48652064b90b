#include "reports/junit_report.h"

#include <fmt/format.h>

#include <set>

#include "reports/escape.h"

namespace fabscope {
namespace {

struct Case {
    std::string classname;
    std::string name;
    std::string failure_type;  ///< "" = passed
    std::string message;
    std::string body;
    std::string out;  ///< information only
};

std::string suite_xml(const std::string& name, const std::vector<Case>& cases) {
    size_t failures = 0;
    for (const Case& c : cases) failures += c.failure_type.empty() ? 0 : 1;
    std::string out = fmt::format(
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" "
        "skipped=\"0\">\n",
        xml_escape(name), cases.size(), failures);
    for (const Case& c : cases) {
        out += fmt::format("    <testcase classname=\"{}\" name=\"{}\"", xml_escape(c.classname),
                           xml_escape(c.name));
        if (c.failure_type.empty() && c.out.empty()) {
            out += "/>\n";
            continue;
        }
        out += ">\n";
        if (!c.failure_type.empty()) {
            out +=
                fmt::format("      <failure type=\"{}\" message=\"{}\">{}</failure>\n",
                            xml_escape(c.failure_type), xml_escape(c.message), xml_escape(c.body));
        }
        if (!c.out.empty())
            out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.out));
        out += "    </testcase>\n";
    }
    return out + "  </testsuite>\n";
}

std::string finding_text(const ReportFinding& f) {
    std::string s = fmt::format("{} ({}): {}", f.kind, name(f.severity), f.summary);
    if (!f.evidence.empty()) s += "\nevidence: " + f.evidence.dump(1);
    return s;
}

}  // namespace

std::string render_junit_report(const ReportModel& m) {
    std::vector<std::pair<std::string, std::vector<Case>>> suites;
    std::set<size_t> on_links;
    if (m.snapshot) {
        std::vector<Case> cases;
        for (size_t li = 0; li < m.snapshot->fabric.links().size(); ++li) {
            Case c{"fabscope.links", m.link_name(li), "", "", "", ""};
            for (size_t fi : m.link_findings[li]) {
                on_links.insert(fi);
                const ReportFinding& f = m.findings[fi];
                std::string& text = f.severity == Severity::Info ? c.out : c.body;
                if (!text.empty()) text += "\n\n";
                text += finding_text(f);
                if (f.severity == Severity::Info) continue;
                if (c.failure_type.empty()) {
                    c.failure_type = f.kind;
                    c.message = f.summary;
                }
            }
            cases.push_back(std::move(c));
        }
        suites.emplace_back("links", std::move(cases));
    }
    std::vector<Case> checks;
    for (const std::string& text : m.checks)
        checks.push_back({"fabscope.checks", text, "", "", "", ""});
    for (size_t i = 0; i < m.findings.size(); ++i) {
        const ReportFinding& f = m.findings[i];
        if (on_links.count(i) || f.source == "perf") continue;
        std::string where;
        for (const PortLabel& l : f.labels)
            where +=
                fmt::format(" {}[{}]", l.node.empty() ? format_guid(l.node_guid) : l.node, l.port);
        Case c{"fabscope.findings." + f.kind, f.kind + where, "", "", "", ""};
        if (f.severity == Severity::Info) {
            c.out = finding_text(f);
        } else {
            c.failure_type = f.kind;
            c.message = f.summary;
            c.body = finding_text(f);
        }
        checks.push_back(std::move(c));
    }
    suites.emplace_back("validation", std::move(checks));
    if (!m.pairs.empty()) {
        std::vector<Case> cases;
        for (const PairCheck& p : m.pairs) {
            Case c{"fabscope.perf." + p.test,
                   fmt::format("{} -> {} {}", p.from, p.to, p.test),
                   "",
                   "",
                   "",
                   ""};
            std::string result = p.ok ? fmt::format("{:.4g} {}", p.value, p.unit) : "failed";
            if (!p.ok || p.degraded) {
                c.failure_type = p.ok ? "pair_degraded" : "test_failed";
                c.message = p.message;
                c.body = result + (p.evidence.empty() ? "" : "\nevidence: " + p.evidence.dump(1));
            } else {
                c.out = result;
            }
            cases.push_back(std::move(c));
        }
        suites.emplace_back("perf", std::move(cases));
    }
    size_t tests = 0;
    size_t failures = 0;
    std::string body;
    for (const auto& [n, cases] : suites) {
        tests += cases.size();
        for (const Case& c : cases) failures += c.failure_type.empty() ? 0 : 1;
        body += suite_xml(n, cases);
    }
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabscope\" tests=\"{}\" "
        "failures=\"{}\" errors=\"0\" timestamp=\"{}\">\n{}</testsuites>\n",
        tests, failures, xml_escape(m.meta.generated), body);
}

}  // namespace fabscope
