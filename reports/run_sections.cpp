#include "reports/run_sections.h"

#include <fmt/format.h>

#include <cctype>
#include <vector>

#include "mesh/results/counter_evidence.h"
#include "reports/escape.h"
#include "reports/report_runs.h"

namespace fabscope {
namespace {

std::string suspect_label(const MeshSuspectDoc& s) {
    return s.kind == "lanes" ? "lane" : s.kind;
}

std::string mesh_line(const MeshRunDoc& d) {
    std::string out = fmt::format(
        "{}, {}: {} of {} flows measured in {} of {} rounds, {} slow (below {:.2f} of their "
        "plane's median, or losing packets)",
        d.pattern, d.test, d.measured(), d.flows.size(), d.rounds_done, d.rounds, d.slow(),
        d.slow_ratio);
    if (d.lanes > 0)
        out += fmt::format("; {} of {} switch-to-switch lanes crossed", d.lanes_crossed, d.lanes);
    if (d.status != "complete") out += fmt::format("; the run is {}", d.status);
    return out + ".";
}

/// Flow i's text, and how many more when the list is cut at `max`.
std::vector<std::string> flow_texts(const MeshRunDoc& d, const std::vector<size_t>& flows,
                                    size_t max) {
    std::vector<std::string> out;
    for (size_t i = 0; i < flows.size() && i < max; ++i) out.push_back(d.flow_text(flows[i]));
    if (flows.size() > max) out.push_back(fmt::format("and {} more", flows.size() - max));
    return out;
}

std::string gbps(double v) {
    return fmt::format("{:.3g} Gb/s", v);
}

}  // namespace

std::string micros_text(double us) {
    return us < 1000 && us > -1000 ? fmt::format("{:.1f} µs", us)
                                   : fmt::format("{:.2f} ms", us / 1000);
}

std::string mesh_html(const ReportModel& m) {
    if (!m.mesh) return "";
    const MeshRunDoc& d = *m.mesh;
    std::string out =
        fmt::format("<section id=\"suspects\"><h2>Suspects</h2>\n<p>Mesh run {}</p>\n",
                    html_escape(mesh_line(d)));
    if (d.suspects.empty()) {
        return out +
               "<p>No suspect: no cable, lane or endpoint explains the slow flows.</p>"
               "</section>\n";
    }
    out +=
        "<table class=\"suspects\"><thead><tr><th>#</th><th>Suspect</th><th>Slow flows through "
        "it</th><th>Healthy</th><th>Slow at</th><th>Evidence</th></tr></thead><tbody>\n";
    for (size_t i = 0; i < d.suspects.size(); ++i) {
        const MeshSuspectDoc& s = d.suspects[i];
        std::string ev;
        if (!s.counted.empty())
            ev += fmt::format("<p>Their ends counted {}</p>",
                              html_escape(perf::event_counters_line(s.counted)));
        if (s.switch_counted) {
            std::string said = *s.switch_counted;
            if (!said.empty()) said[0] = static_cast<char>(std::toupper(said[0]));
            ev += fmt::format("<p>{}</p>", html_escape(said));
        }
        ev += "<details><summary>slow flows</summary><ul>";
        for (const std::string& t : flow_texts(d, s.evidence, 16))
            ev += fmt::format("<li>{}</li>", html_escape(t));
        ev += "</ul></details>";
        if (!s.healthy.empty()) {
            ev += "<details><summary>healthy flows</summary><ul>";
            for (const std::string& t : flow_texts(d, s.healthy, 16))
                ev += fmt::format("<li>{}</li>", html_escape(t));
            ev += "</ul></details>";
        }
        out += fmt::format(
            "<tr class=\"suspect {0}\"><td class=\"num\">{1}</td><td><span class=\"sev {2}\">{0}"
            "</span> <code>{3}</code> ({4})</td><td class=\"num\">{5} of {6}</td><td "
            "class=\"num\">{7}</td><td class=\"num\">{8:.2f} of the median</td><td>{9}</td></tr>\n",
            html_escape(suspect_label(s)), i + 1,
            s.kind == "lanes" || s.detail.rfind("one of", 0) == 0 ? "warning" : "error",
            html_escape(s.name), html_escape(s.detail), s.slow_flows, s.total_flows,
            s.healthy_flows(), s.mean_ratio, ev);
    }
    return out + "</tbody></table>\n</section>\n";
}

std::string incast_html(const ReportModel& m) {
    if (!m.incast) return "";
    const IncastDoc& d = *m.incast;
    auto probe_row = [](const char* what, const IncastProbeDoc& p) {
        if (!p.measured) {
            return fmt::format("<tr><td>{}</td><td colspan=\"3\">not measured{}</td></tr>\n", what,
                               p.error.empty() ? "" : fmt::format(" ({})", html_escape(p.error)));
        }
        return fmt::format(
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
            "class=\"num\">{}</td></tr>\n",
            what, micros_text(p.median_us), micros_text(p.p99_us), p.samples);
    };
    std::string out = fmt::format(
        "<section id=\"incast\"><h2>Latency under load</h2>\n<p>A {} B READ probe from <code>{}"
        "</code> to <code>{}</code>, alone and while {} sender{} WRITE {} B messages to it ({} "
        "together); counters of {} host{} read over the loaded interval; the run is {}.</p>\n"
        "<table class=\"latency\"><thead><tr><th>Probe</th><th>Median</th><th>p99</th><th>"
        "Samples</th></tr></thead><tbody>\n",
        d.probe_size, html_escape(d.prober), html_escape(d.receiver), d.flows.size(),
        d.flows.size() == 1 ? "" : "s", d.write_size, gbps(d.senders_gbps), d.hosts_read,
        d.hosts_read == 1 ? "" : "s", html_escape(d.status));
    out += probe_row("alone", d.idle);
    out += probe_row("during the incast", d.loaded);
    if (d.median_rise_us && d.p99_rise_us) {
        out += fmt::format(
            "<tr><th>rise</th><td class=\"num\">{}</td><td class=\"num\">{}</td><td></td></tr>\n",
            micros_text(*d.median_rise_us), micros_text(*d.p99_rise_us));
    }
    out += "</tbody></table>\n";
    if (d.flows.empty()) return out + "</section>\n";
    out +=
        "<table class=\"senders\"><thead><tr><th>Sender</th><th>Bandwidth</th><th>Lowest "
        "window</th></tr></thead><tbody>\n";
    for (const IncastFlowDoc& f : d.flows) {
        if (!f.measured || !f.ok) {
            out += fmt::format("<tr><td><code>{}</code></td><td colspan=\"2\">{}</td></tr>\n",
                               html_escape(f.src_host),
                               f.measured ? fmt::format("failed: {}", html_escape(f.error))
                                          : std::string("not measured"));
            continue;
        }
        out += fmt::format(
            "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
            html_escape(f.src_host), gbps(f.avg_gbps), gbps(f.min_window_gbps));
    }
    return out + "</tbody></table>\n</section>\n";
}

std::string mesh_md(const ReportModel& m) {
    if (!m.mesh) return "";
    const MeshRunDoc& d = *m.mesh;
    std::string out = fmt::format("### Suspects\n\nMesh run {}\n\n", md_escape(mesh_line(d)));
    if (d.suspects.empty()) return out + "No suspect.\n\n";
    out +=
        "| # | Suspect | Slow flows | Healthy | Slow at | Slow flows (first) |\n"
        "|---:|---|---:|---:|---:|---|\n";
    for (size_t i = 0; i < d.suspects.size(); ++i) {
        const MeshSuspectDoc& s = d.suspects[i];
        std::string flows;
        for (const std::string& t : flow_texts(d, s.evidence, 3))
            flows.append(flows.empty() ? "" : "; ").append(md_escape(t));
        if (!s.counted.empty())
            flows = fmt::format("counted {}: {}", md_escape(perf::event_counters_line(s.counted)),
                                flows);
        if (s.switch_counted) flows = fmt::format("{}: {}", md_escape(*s.switch_counted), flows);
        out += fmt::format("| {} | {} **{}** ({}) | {} of {} | {} | {:.2f} | {} |\n", i + 1,
                           suspect_label(s), md_escape(s.name), md_escape(s.detail), s.slow_flows,
                           s.total_flows, s.healthy_flows(), s.mean_ratio, flows);
    }
    return out + "\n";
}

std::string incast_md(const ReportModel& m) {
    if (!m.incast) return "";
    const IncastDoc& d = *m.incast;
    auto probe = [](const IncastProbeDoc& p) {
        return p.measured ? fmt::format("{} | {}", micros_text(p.median_us), micros_text(p.p99_us))
                          : "not measured | ";
    };
    std::string out = fmt::format(
        "### Latency under load\n\nProbe {} → {} ({} B READ), incast of {} sender{} ({} "
        "together).\n\n| Probe | Median | p99 |\n|---|---:|---:|\n| alone | {} |\n| during the "
        "incast | {} |\n",
        md_escape(d.prober), md_escape(d.receiver), d.probe_size, d.flows.size(),
        d.flows.size() == 1 ? "" : "s", gbps(d.senders_gbps), probe(d.idle), probe(d.loaded));
    if (d.median_rise_us && d.p99_rise_us)
        out += fmt::format("| rise | {} | {} |\n", micros_text(*d.median_rise_us),
                           micros_text(*d.p99_rise_us));
    return out + "\n";
}

namespace {

/// A row's cells: size, type, then time, algbw, busbw and #wrong out of
/// place and in place, as nccl-tests prints them ("" for a half not run).
std::vector<std::string> collective_cells(const CollectiveRow& r) {
    std::vector<std::string> out{std::to_string(r.size), r.type};
    for (const std::optional<CollectiveTiming>* t : {&r.out_of_place, &r.in_place}) {
        if (!*t) {
            out.insert(out.end(), 4, "");
            continue;
        }
        const CollectiveTiming& x = **t;
        out.insert(out.end(), {micros_text(x.time_us), fmt::format("{:.2f}", x.algbw_gbps),
                               fmt::format("{:.2f}", x.busbw_gbps),
                               x.wrong ? std::to_string(*x.wrong) : "N/A"});
    }
    return out;
}

std::string collective_line(const CollectiveBench& b, const ReportModel& m) {
    std::string out = fmt::format("{} sizes from {}; bus bandwidth {}", b.rows.size(), b.source,
                                  collective_busbw_line(b, m.meta.expect_busbw_gbps));
    if (b.avg_busbw_gbps) out += fmt::format("; average over sizes {:.2f}", *b.avg_busbw_gbps);
    return out + fmt::format("; {} element{} wrong.", b.wrong(), b.wrong() == 1 ? "" : "s");
}

}  // namespace

std::string collective_html(const ReportModel& m) {
    if (m.collectives.empty()) return "";
    std::string out = "<section id=\"collective\"><h2>Collective benchmarks (nccl-tests)</h2>\n";
    for (const CollectiveBench& b : m.collectives) {
        out += fmt::format(
            "<h3>{}</h3>\n<p>{}</p>\n<table class=\"collective\"><thead><tr><th>Size (B)</th>"
            "<th>Type</th><th>Time</th><th>algbw GB/s</th><th>busbw GB/s</th><th>#wrong</th>"
            "<th>Time (in place)</th><th>algbw</th><th>busbw</th><th>#wrong</th></tr></thead>"
            "<tbody>\n",
            html_escape(collective_title(b)), html_escape(collective_line(b, m)));
        for (const CollectiveRow& r : b.rows) {
            out += "<tr>";
            for (const std::string& c : collective_cells(r))
                out += fmt::format("<td class=\"num\">{}</td>", html_escape(c));
            out += "</tr>\n";
        }
        out += "</tbody></table>\n";
    }
    return out + "</section>\n";
}

std::string collective_md(const ReportModel& m) {
    std::string out;
    for (const CollectiveBench& b : m.collectives) {
        out += fmt::format(
            "### {} (nccl-tests)\n\n{}\n\n| Size (B) | Type | Time | algbw GB/s | busbw GB/s | "
            "#wrong | in place: time | algbw | busbw | #wrong |\n"
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n",
            md_escape(collective_title(b)), md_escape(collective_line(b, m)));
        for (const CollectiveRow& r : b.rows) {
            for (const std::string& c : collective_cells(r)) out += "| " + md_escape(c) + " ";
            out += "|\n";
        }
        out += "\n";
    }
    return out;
}

}  // namespace fabscope
