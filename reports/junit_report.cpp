#include "reports/junit_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "reports/cables_sections.h"
#include "reports/escape.h"
#include "reports/report_runs.h"

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

/// Adds a finding to a case: information in its output, anything worse
/// fails it (the first such finding gives the failure's type and message).
void add_to_case(Case& c, const ReportFinding& f) {
    std::string& text = f.severity == Severity::Info ? c.out : c.body;
    if (!text.empty()) text += "\n\n";
    text += finding_text(f);
    if (f.severity == Severity::Info) return;
    if (c.failure_type.empty()) {
        c.failure_type = f.kind;
        c.message = f.summary;
    }
}

/// "leaf03[1] -- spine01[2]", the ends in name order: the same cable is
/// named the same whichever end discovery met first.
std::string cable_name(const PortLabel& a, const PortLabel& b) {
    std::string x = label_name(a);
    std::string y = label_name(b);
    if (y < x) std::swap(x, y);
    return x + " -- " + y;
}

/// A finding's port names this end: the same node (by GUID where both have
/// one, else by name) and port. A finding about a whole node (port 0) is its
/// check's, not each of its cables'.
bool names_end(const PortLabel& l, const PortLabel& end) {
    if (l.port == 0 || l.port != end.port) return false;
    if (l.node_guid != 0 && end.node_guid != 0) return l.node_guid == end.node_guid;
    return !l.node.empty() && l.node == end.node;
}

/// One case per cable: the plan's (or baseline's) cables when the validation
/// names them, so a cable down, swapped or moved fails its own case under
/// the name it has when healthy, beside the snapshot's cables the plan does
/// not speak for; else the snapshot's cables. Congestion findings have
/// their own suite.
std::vector<Case> link_cases(const ReportModel& m) {
    struct Cable {
        std::string name;
        PortLabel a;
        PortLabel b;
    };
    std::vector<Cable> cables;
    std::set<std::pair<Guid, uint8_t>> planned;
    if (m.validation) {
        for (const ExpectedCable& c : m.validation->expected) {
            cables.push_back({cable_name(c.a, c.b), c.a, c.b});
            for (const PortLabel& e : {c.a, c.b}) {
                if (e.node_guid != 0) planned.insert({e.node_guid, e.port});
            }
        }
    }
    if (m.snapshot) {
        const Fabric& f = m.snapshot->fabric;
        for (const Link& l : f.links()) {
            if (planned.count({l.a.node, l.a.port}) || planned.count({l.b.node, l.b.port}))
                continue;  // a planned port: its findings are on the planned cable
            PortLabel a = port_label(f, l.a);
            PortLabel b = port_label(f, l.b);
            cables.push_back({cable_name(a, b), a, b});
        }
    }
    std::stable_sort(cables.begin(), cables.end(),
                     [](const Cable& x, const Cable& y) { return x.name < y.name; });
    std::vector<Case> cases;
    for (const Cable& cable : cables) {
        Case c{"fabscope.links", cable.name, "", "", "", ""};
        for (const ReportFinding& f : m.findings) {
            if (f.source == "congestion") continue;
            bool here = std::any_of(f.labels.begin(), f.labels.end(), [&](const PortLabel& l) {
                return names_end(l, cable.a) || names_end(l, cable.b);
            });
            if (here) add_to_case(c, f);
        }
        cases.push_back(std::move(c));
    }
    return cases;
}

/// One case per check made, under the check's name (the same in every run:
/// what it covered this time is in its output), failed by every finding it
/// made that is a warning or an error, whether or not a cable's case names
/// it too.
std::vector<Case> validation_cases(const ReportModel& m) {
    static const std::set<std::string> own_suite = {"perf",   "congestion", "mesh",
                                                    "incast", "collective", "cables"};
    std::vector<CheckMade> made;
    for (const CheckMade& c : m.checks) {
        if (!own_suite.count(c.id)) made.push_back(c);
    }
    std::vector<Case> cases;
    for (const CheckMade& check : made) {
        Case c{"fabscope.validation", check.name, "", "", "", check.detail};
        size_t problems = 0;
        for (const ReportFinding& f : m.findings) {
            if (f.source != "validation" || check_of(f.kind, made) != check.id) continue;
            add_to_case(c, f);
            problems += f.severity == Severity::Info ? 0 : 1;
        }
        if (problems > 1) c.message = fmt::format("{} problems, first: {}", problems, c.message);
        cases.push_back(std::move(c));
    }
    return cases;
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
        cases.push_back({"fabscope.congestion", "no port waiting", "", "", "",
                         fmt::format("{} ports read, none waiting", c.ports_read)});
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
        cases.push_back({"fabscope.mesh", "no suspect", "", "", "",
                         fmt::format("{} of {} flows measured, no suspect", m.mesh->measured(),
                                     m.mesh->flows.size())});
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

/// Per benchmark: its results (failing with elements computed wrong) and
/// its bus bandwidth at the largest message (failing below --expect-busbw).
std::vector<Case> collective_cases(const ReportModel& m) {
    std::vector<Case> cases;
    for (const CollectiveBench& b : m.collectives) {
        const std::string title = collective_title(b);
        Case results{"fabscope.collective",
                     title + " results",
                     "",
                     "",
                     "",
                     fmt::format("{} sizes, {} elements wrong", b.rows.size(), b.wrong())};
        Case busbw{"fabscope.collective",
                   title + " bus bandwidth",
                   "",
                   "",
                   "",
                   collective_busbw_line(b, m.meta.expect_busbw_gbps)};
        for (const ReportFinding& f : m.findings) {
            if (f.source != "collective" || f.evidence.value("source", "") != b.source) continue;
            Case& c = f.kind == "collective_wrong" ? results : busbw;
            c.failure_type = f.kind;
            c.message = f.summary;
            c.body = finding_text(f);
        }
        cases.push_back(std::move(results));
        cases.push_back(std::move(busbw));
    }
    return cases;
}

/// One case per host port health read: its module's identity as output,
/// failed by what its own thresholds say (a warning fails it too, as every
/// suite's); a port without a module passes, saying so.
std::vector<Case> cable_cases(const ReportModel& m) {
    std::vector<Case> cases;
    for (const HostCables& h : m.cables) {
        for (const CableRow& r : h.rows) {
            Case c{"fabscope.cables." + r.host, cable_port_name(r), "", "", "", cable_identity(r)};
            if (!r.issues.empty() && r.severity != Severity::Info) {
                c.failure_type = "module";
                c.message = r.issues.front();
                for (const std::string& i : r.issues) c.body += (c.body.empty() ? "" : "\n") + i;
            }
            cases.push_back(std::move(c));
        }
    }
    return cases;
}

}  // namespace

JunitReport junit_report(const ReportModel& m) {
    std::vector<std::pair<std::string, std::vector<Case>>> suites;
    if (m.snapshot || (m.validation && !m.validation->expected.empty()))
        suites.emplace_back("links", link_cases(m));
    if (auto checks = validation_cases(m); !checks.empty())
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
    if (!m.collectives.empty()) suites.emplace_back("collective", collective_cases(m));
    if (!m.cables.empty()) suites.emplace_back("cables", cable_cases(m));
    JunitReport out;
    std::string body;
    for (const auto& [n, cases] : suites) {
        out.tests += cases.size();
        for (const Case& c : cases) out.failures += c.failure_type.empty() ? 0 : 1;
        body += suite_xml(n, cases);
    }
    out.xml = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"fabscope\" tests=\"{}\" "
        "failures=\"{}\" errors=\"0\" timestamp=\"{}\">\n{}</testsuites>\n",
        out.tests, out.failures, xml_escape(m.meta.generated), body);
    return out;
}

std::string render_junit_report(const ReportModel& m) {
    return junit_report(m).xml;
}

}  // namespace fabscope
