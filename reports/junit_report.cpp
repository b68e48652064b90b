#include "reports/junit_report.h"

#include <fmt/format.h>

#include <algorithm>
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

/// A finding as a case: information in its output, anything worse a failure.
Case finding_case(std::string classname, std::string name, const ReportFinding& f) {
    Case c{std::move(classname), std::move(name), "", "", "", ""};
    if (f.severity == Severity::Info) {
        c.out = finding_text(f);
    } else {
        c.failure_type = f.kind;
        c.message = f.summary;
        c.body = finding_text(f);
    }
    return c;
}

/// One case per tree root, per victim (naming its root), per port that did
/// not answer, and per hot port in no tree; one passing case when nothing waited.
std::vector<Case> congestion_cases(const ReportModel& m) {
    const CongestionDoc& c = *m.congestion;
    std::vector<Case> cases;
    auto evidence = [&](const CongestionRow& r) {
        std::string s = fmt::format("{:.2f}% of {:.1f} s waiting, PortXmitWait +{}{}",
                                    r.port.share * 100, r.port.interval_s, r.port.delta_ticks,
                                    r.port.cleared ? " (at least; the counter was cleared)" : "");
        for (const ReportFinding& f : c.findings) {
            bool here =
                !f.labels.empty() && label_name(f.labels.front()) == label_name(r.port.label);
            if (here && (f.kind == "congestion_root" || f.kind == "congestion_victim"))
                s.append("\n").append(finding_text(f));
        }
        return s;
    };
    for (const CongestionRow& r : congestion_rows(c)) {
        std::string port = label_name(r.port.label);
        Case k{"fabscope.congestion", port, "", "", "", ""};
        if (r.role == "root") {
            std::string cause;
            for (const CongestionTreeDoc& t : c.trees) {
                if (label_name(t.root.label) == port) cause = t.cause;
            }
            k.name = "root " + port;
            k.failure_type = "congestion_root";
            k.message = fmt::format("{}: root of a congestion tree ({}), {:.2f}% waiting", port,
                                    cause, r.port.share * 100);
            k.body = evidence(r);
        } else if (r.role == "victim") {
            k.name = "victim " + port;
            k.failure_type = "congestion_victim";
            k.message =
                fmt::format("{}: victim of the congestion tree rooted at {}, {:.2f}% waiting", port,
                            r.root, r.port.share * 100);
            k.body = evidence(r);
        } else {
            k.out = evidence(r);
        }
        cases.push_back(std::move(k));
    }
    for (const ReportFinding& f : c.findings) {
        if (f.kind != "counters_unanswered") continue;
        std::string where;
        for (const PortLabel& l : f.labels) where.append(" ").append(label_name(l));
        cases.push_back({"fabscope.congestion", fmt::format("unanswered{}", where), f.kind,
                         f.summary, finding_text(f), ""});
    }
    if (cases.empty()) {
        cases.push_back({"fabscope.congestion",
                         fmt::format("{} ports read, none waiting", c.ports_read), "", "", "", ""});
    }
    return cases;
}

/// One case per suspect, per finding of the run (a rank gone, a flow
/// failed); one passing case when the flows named no suspect.
std::vector<Case> mesh_cases(const ReportModel& m) {
    std::vector<Case> cases;
    for (const ReportFinding& f : m.findings) {
        if (f.source != "mesh") continue;
        std::string name = f.kind == "mesh_suspect"
                               ? fmt::format("suspect {}", f.evidence.value("name", ""))
                               : fmt::format("{} {}", f.kind, f.summary);
        cases.push_back({"fabscope.mesh", name, f.kind, f.summary, finding_text(f), ""});
    }
    if (cases.empty() || m.mesh->suspects.empty()) {
        cases.push_back({"fabscope.mesh",
                         fmt::format("{} of {} flows measured, no suspect", m.mesh->measured(),
                                     m.mesh->flows.size()),
                         "", "", "", ""});
    }
    return cases;
}

/// One case for the latency under load (failing with its finding), one per
/// other finding and per problem of the run.
std::vector<Case> incast_cases(const ReportModel& m) {
    const IncastDoc& d = *m.incast;
    Case latency{
        "fabscope.incast", fmt::format("latency under load toward {}", d.receiver), "", "", "", ""};
    if (d.median_rise_us && d.p99_rise_us) {
        latency.out =
            fmt::format("median {:.1f} us -> {:.1f} us, p99 {:.1f} us -> {:.1f} us",
                        d.idle.median_us, d.loaded.median_us, d.idle.p99_us, d.loaded.p99_us);
    }
    std::vector<Case> cases;
    for (const ReportFinding& f : m.findings) {
        if (f.source != "incast") continue;
        if (f.kind == "latency_under_load") {
            if (f.severity == Severity::Info) continue;
            latency.failure_type = f.kind;
            latency.message = f.summary;
            latency.body = finding_text(f);
            continue;
        }
        // Evidence is read from a file: a host that is not a string is no host.
        auto h = f.evidence.is_object() ? f.evidence.find("host") : f.evidence.end();
        std::string host = h != f.evidence.end() && h->is_string() ? h->get<std::string>() : "";
        cases.push_back(finding_case(
            "fabscope.incast", fmt::format("{}{}{}", f.kind, host.empty() ? "" : " ", host), f));
    }
    cases.insert(cases.begin(), std::move(latency));
    return cases;
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
                const ReportFinding& f = m.findings[fi];
                if (f.source == "congestion") continue;  // its own suite below
                on_links.insert(fi);
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
        if (on_links.count(i) || f.source == "perf" || f.source == "congestion" ||
            f.source == "mesh" || f.source == "incast")
            continue;
        std::string where;
        for (const PortLabel& l : f.labels)
            where +=
                fmt::format(" {}[{}]", l.node.empty() ? format_guid(l.node_guid) : l.node, l.port);
        checks.push_back(finding_case("fabscope.findings." + f.kind, f.kind + where, f));
    }
    suites.emplace_back("validation", std::move(checks));
    if (std::any_of(m.pairs.begin(), m.pairs.end(), [](const PairCheck& p) { return !p.mesh; })) {
        std::vector<Case> cases;
        for (const PairCheck& p : m.pairs) {
            if (p.mesh) continue;  // the mesh suite's suspects stand for them
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
    if (m.congestion) suites.emplace_back("congestion", congestion_cases(m));
    if (m.mesh) suites.emplace_back("mesh", mesh_cases(m));
    if (m.incast) suites.emplace_back("incast", incast_cases(m));
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
