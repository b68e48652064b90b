// fabscope report: what fabscope wrote (a snapshot, a validation, perf
// reports, a congestion report), as a ticket wants it (HTML, Markdown), as CI wants it (JUnit XML)
// and as ibdiagnet users want it (CSV).

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <memory>

#include "cli/cli.h"
#include "model/json_io.h"
#include "model/thresholds.h"
#include "reports/csv_report.h"
#include "reports/html_report.h"
#include "reports/junit_report.h"
#include "reports/markdown_report.h"
#include "reports/report_model.h"
#include "util/exit_status.h"
#include "util/time_util.h"
#include "util/version.h"

namespace fabscope::cli {
namespace {

struct ReportCommand {
    std::vector<std::string> inputs;
    std::vector<std::string> findings;  ///< --finding: what the ticket is about
    std::vector<std::string> link;      ///< --link A B: both ends, in pairs
    std::string format = "html";
    std::string expect_busbw;  ///< --expect-busbw as given (GB/s); "" = not judged
    std::string thresholds;    ///< --thresholds: collective.busbw_gbps
    std::string output = "-";
    std::string command_line;
};

/// A bus bandwidth a gate compares with: above 0 and finite. NaN would pass
/// every comparison, and 0 or less judges nothing.
Result<double> expect_busbw_of(const std::string& text) {
    double v = 0;
    const char* end = text.data() + text.size();
    auto [at, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || at != end || !std::isfinite(v) || v <= 0 || v > 1e6)
        return make_error(fmt::format("--expect-busbw {}: a bus bandwidth in GB/s above 0 and at "
                                      "most 1000000 (e.g. 180)",
                                      text.substr(0, 64)),
                          kExitUsage);
    return v;
}

int run_report(const ReportCommand& o, const Globals& g) {
    using Renderer = std::string (*)(const ReportModel&);
    Renderer render = o.format == "html"    ? render_html_report
                      : o.format == "md"    ? render_markdown_report
                      : o.format == "junit" ? nullptr
                      : o.format == "csv"   ? render_csv_report
                                            : nullptr;
    if (!render && o.format != "junit") {
        return report(
            make_error(fmt::format("report: --format {}: use html, md, junit or csv", o.format)),
            g);
    }
    ReportMeta meta;
    meta.tool_version = version();
    meta.command_line = o.command_line;
    meta.generated = iso8601_now();
    if (!o.thresholds.empty()) {
        auto t = load_thresholds(o.thresholds);
        if (!t) return report(t.error(), g);
        meta.expect_busbw_gbps = t->collective.busbw_gbps;
        meta.imbalance_limit = t->routing.imbalance;
    }
    if (!o.expect_busbw.empty()) {  // the flag wins
        auto busbw = expect_busbw_of(o.expect_busbw);
        if (!busbw) return report(busbw.error(), g);
        meta.expect_busbw_gbps = *busbw;
    }
    auto m = load_report(o.inputs, meta);
    if (!m) return report(m.error(), g);
    FindingFilter keep{o.findings, {}};
    for (size_t i = 0; i + 1 < o.link.size(); i += 2)
        keep.links.push_back({o.link[i], o.link[i + 1]});
    if (auto k = keep_findings(*m, keep); !k) return report(k.error(), g);
    for (const std::string& w : m->warnings)
        std::fprintf(stderr, "fabscope: warning: %s\n", w.c_str());
    std::string text;
    std::string counted = fmt::format("{} findings", m->findings.size());
    if (render) {
        text = render(*m);
    } else {
        // What the CI server will count: failing cases, as the XML says.
        JunitReport j = junit_report(*m);
        text = std::move(j.xml);
        counted = fmt::format("{} of {} test cases failing; {}", j.failures, j.tests, counted);
    }
    auto w = json_io::write_file_atomically(o.output, [&](std::ostream& out) { out << text; });
    if (!w) return report(w.error(), g);
    if (!g.quiet && o.output != "-") {
        std::fprintf(stderr, "%s report (%s, %s) written to %s\n", o.format.c_str(),
                     m->verdict().c_str(), counted.c_str(), o.output.c_str());
    }
    return kExitClean;
}

}  // namespace

void add_report(CLI::App& app, Context& ctx, const std::vector<std::string>& argv) {
    auto o = std::make_shared<ReportCommand>();
    o->command_line = "fabscope";
    for (size_t i = 1; i < argv.size(); ++i) o->command_line += " " + argv[i];
    CLI::App* cmd = app.add_subcommand(
        "report",
        "Turn results (snapshot, validation, perf, congestion, nccl-tests) into HTML, Markdown, "
        "JUnit or CSV");
    cmd->add_option("FILE", o->inputs,
                    "Results fabscope wrote: a snapshot, a validation report, perf reports, a "
                    "congestion report; or the text output of nccl-tests' *_perf")
        ->required()
        ->check(CLI::ExistingFile);
    cmd->add_option("-f,--format", o->format, "html | md | junit | csv")->capture_default_str();
    cmd->add_option("--finding", o->findings,
                    "Only the findings of this kind (link_down), or naming this node (leaf02) or "
                    "port (leaf02[5]); repeat for more: a ticket about one problem");
    cmd->add_option("--link", o->link,
                    "Only the findings that name both ends of this link (nodes or ports: "
                    "--link leaf02[5] spine01[2]); repeat for more")
        ->expected(2)
        ->type_name("A B");
    cmd->add_option("--expect-busbw", o->expect_busbw,
                    "nccl-tests inputs: the bus bandwidth (GB/s, nccl-tests' unit) the largest "
                    "message must reach; below it is an error finding and a failing JUnit case")
        ->type_name("GBPS");
    cmd->add_option("--thresholds", o->thresholds,
                    "Thresholds file (as validate's): its collective.busbw_gbps is the bus "
                    "bandwidth nccl-tests inputs must reach, unless --expect-busbw says; its "
                    "routing.imbalance, the uplink spread the routing table marks");
    cmd->add_option("-o,--output", o->output, "Write to FILE (default -: stdout)")
        ->capture_default_str();
    cmd->footer(
        R"(Each file's kind is told from its content. One snapshot, one validation and one
congestion report (`congestion --json`, one round) at most; perf reports as many as
there are hosts that ran tests (their pairs make the heat map). With a snapshot, the
congestion trees' roots and victims mark their links in the drawing; one with forwarding
tables (sweep and validate read them unless --no-routes) adds a Routing section (HTML, Markdown): each credit
loop's cables in order, drawn as numbered arrows on the fabric, and the destinations
each leaf routes up by uplink, imbalanced leaves first.
A snapshot alone is checked as `validate --load` does (no plan, one counter reading).
nccl-tests' text output (all_reduce_perf and the others, 2.10 or later: the #wrong
column) is read too: its sizes, times and bus bandwidths in the report; any element
computed wrong is an error; with --expect-busbw, a bus bandwidth below it at the
largest message is an error (JUnit suite collective); --thresholds FILE gives the
same from its `collective: {busbw_gbps: N}`, so a cluster's acceptance gate keeps
its numbers in one file.
HTML is one self-contained file (inline CSS and SVG, nothing fetched).
CSV has ibdiagnet-style sections: START_LINKS, START_PORTS, START_FINDINGS, START_PAIRS,
START_CONGESTION. JUnit has suites links (one case per cable, the plan's when the
validation had one), validation (one case per check), perf, congestion, mesh and incast;
case names stay the same from run to run, counts are in each case's output.

Exit codes: 0 written (whatever the verdict), 2 bad flags or input files.

Examples:
  fabscope report fabric.json -o report.html
  fabscope report fabric.json validation.json perf-h1.json perf-h2.json -o report.html
  fabscope report validation.json --format junit -o fabscope-junit.xml
  fabscope report fabric.json --format csv -o fabric.csv
  fabscope report validation.json --format md | xclip
  fabscope report fabric.json validation.json --finding leaf02[5] --format md -o ticket.md
  fabscope report fabric.json validation.json --link leaf02[5] spine01[2] -f md -o ticket.md
  fabscope report fabric.json congestion.json -o congestion.html
  fabscope report all_reduce_perf.txt --expect-busbw 180 --format junit -o nccl-junit.xml
  fabscope report all_reduce_perf.txt --thresholds acceptance.yaml -f junit -o nccl.xml)");
    cmd->callback([&ctx, o] { ctx.action = [&ctx, o] { return run_report(*o, ctx.globals); }; });
}

}  // namespace fabscope::cli
