#include "reports/report_runs.h"

#include <fmt/format.h>

#include <algorithm>

#include "rdma/test_spec.h"

namespace fabscope {
namespace {

nlohmann::json flow_list(const MeshRunDoc& d, const std::vector<size_t>& flows, size_t max) {
    nlohmann::json out = nlohmann::json::array();
    for (size_t i = 0; i < flows.size() && i < max; ++i) out.push_back(d.flow_text(flows[i]));
    if (flows.size() > max) out.push_back(fmt::format("and {} more", flows.size() - max));
    return out;
}

std::string underscored(std::string s) {
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

}  // namespace

std::vector<ReportFinding> mesh_findings(const MeshRunDoc& d) {
    std::vector<ReportFinding> out;
    for (const MeshSuspectDoc& s : d.suspects) {
        const bool localized = s.kind != "lanes" && s.detail.rfind("one of", 0) != 0;
        ReportFinding f;
        f.source = "mesh";
        f.kind = "mesh_suspect";
        f.severity = localized ? Severity::Error : Severity::Warning;
        f.summary = fmt::format(
            "suspect {} {} ({}): {} of {} flows through it slow, at {:.2f} of the median; {} "
            "healthy",
            s.kind == "lanes" ? "lane" : s.kind, s.name, s.detail, s.slow_flows, s.total_flows,
            s.mean_ratio, s.healthy_flows());
        for (const std::string& p : suspect_counted_phrases(s)) f.summary += "; " + p;
        f.evidence = {{"suspect", s.kind},
                      {"name", s.name},
                      {"slow_flows", s.slow_flows},
                      {"total_flows", s.total_flows},
                      {"healthy_flows", s.healthy_flows()},
                      {"mean_ratio", s.mean_ratio},
                      {"slow", flow_list(d, s.evidence, 8)}};
        if (!s.healthy.empty()) f.evidence["healthy"] = flow_list(d, s.healthy, 4);
        if (!s.counted.empty()) f.evidence["counted"] = s.counted;
        if (s.switch_counted) f.evidence["switch_ports"] = *s.switch_counted;
        out.push_back(std::move(f));
    }
    for (const MeshFindingDoc& x : d.findings) {
        nlohmann::json ev = {{"kind", x.kind}};
        if (!x.host.empty()) ev["host"] = x.host;
        if (x.round) ev["round"] = x.round;
        out.push_back({"mesh",
                       fmt::format("mesh_{}", underscored(x.kind)),
                       Severity::Warning,
                       x.message,
                       {},
                       {},
                       ev});
    }
    if (d.status == "aborted") {
        out.push_back({"mesh",
                       "mesh_aborted",
                       Severity::Error,
                       "the mesh run was aborted: fewer than two ranks could test",
                       {},
                       {},
                       nlohmann::json::object()});
    }
    return out;
}

std::vector<ReportFinding> incast_findings(const IncastDoc& d) {
    std::vector<ReportFinding> out = d.findings;
    for (const IncastProblemDoc& p : d.problems) {
        nlohmann::json ev = {{"kind", p.kind}};
        if (!p.host.empty()) ev["host"] = p.host;
        out.push_back({"incast",
                       fmt::format("incast_{}", underscored(p.kind)),
                       Severity::Warning,
                       p.message,
                       {},
                       {},
                       ev});
    }
    return out;
}

std::string collective_busbw_line(const CollectiveBench& b,
                                  std::optional<double> expect_busbw_gbps) {
    const CollectiveRow* top = b.largest();
    return fmt::format(
        "{:.2f} GB/s at {} B{}", top->out_of_place ? top->out_of_place->busbw_gbps : 0.0, top->size,
        expect_busbw_gbps
            ? fmt::format(", expected {:.2f}", *expect_busbw_gbps)
            : std::string(
                  ", not judged (no --expect-busbw, no collective.busbw_gbps in --thresholds)"));
}

std::vector<ReportFinding> collective_findings(const CollectiveBench& b,
                                               std::optional<double> expect_busbw_gbps) {
    std::vector<ReportFinding> out;
    const std::string title = collective_title(b);
    nlohmann::json wrong_rows = nlohmann::json::array();
    for (const CollectiveRow& r : b.rows) {
        for (const auto& [half, t] :
             {std::pair{"out-of-place", &r.out_of_place}, std::pair{"in-place", &r.in_place}}) {
            if (*t && (*t)->wrong.value_or(0) > 0 && wrong_rows.size() < 16)
                wrong_rows.push_back(
                    {{"size", r.size}, {"half", half}, {"wrong", *(*t)->wrong}, {"line", r.line}});
        }
    }
    // The rows' #wrong, or nccl-tests' own count where the rows say none.
    const uint64_t wrong = b.wrong() > 0 ? b.wrong() : b.out_of_bounds.value_or(0);
    // nccl-tests' check said FAILED (or printed no count) while the rows say
    // nothing wrong: still its check failing, never a pass.
    const bool check_failed = wrong == 0 && b.out_of_bounds_failed;
    if (wrong > 0 || check_failed) {
        const std::string what =
            check_failed ? fmt::format(
                               "nccl-tests' check of its results failed (\"Out of bounds values : "
                               "{}\")",
                               b.out_of_bounds_said)
                         : fmt::format("{} element{} computed wrong", wrong, wrong == 1 ? "" : "s");
        nlohmann::json ev = {{"source", b.source}, {"wrong", b.wrong()}, {"rows", wrong_rows}};
        if (b.out_of_bounds_failed) ev["out_of_bounds"] = b.out_of_bounds_said;
        out.push_back(
            {"collective",
             "collective_wrong",
             Severity::Error,
             fmt::format(
                 "{}: {}{}: a rank's GPU, NIC or memory corrupts data (not a slow link); find it "
                 "by rerunning on halves of the hosts",
                 title, what,
                 wrong_rows.empty()
                     ? std::string()
                     : fmt::format(" (first at {} B, {})", wrong_rows[0]["size"].get<uint64_t>(),
                                   wrong_rows[0]["half"].get<std::string>())),
             {},
             {},
             std::move(ev)});
    }
    const CollectiveRow* top = b.largest();
    if (expect_busbw_gbps && top && top->out_of_place) {
        const double busbw = top->out_of_place->busbw_gbps;
        if (busbw < *expect_busbw_gbps) {
            nlohmann::json ev = {{"source", b.source},
                                 {"size", top->size},
                                 {"busbw_gbps", busbw},
                                 {"expected_gbps", *expect_busbw_gbps},
                                 {"ratio", busbw / *expect_busbw_gbps},
                                 {"line", top->line}};
            if (top->in_place) ev["in_place_busbw_gbps"] = top->in_place->busbw_gbps;
            out.push_back(
                {"collective",
                 "collective_busbw_low",
                 Severity::Error,
                 fmt::format("{}: {:.1f} GB/s bus bandwidth at {} B, {:.0f}% of the {:.1f} "
                             "GB/s expected",
                             title, busbw, top->size, 100 * busbw / *expect_busbw_gbps,
                             *expect_busbw_gbps),
                 {},
                 {},
                 std::move(ev)});
        }
    }
    return out;
}

/// A ring's bus bandwidth judged as a collective benchmark's: below
/// --expect-busbw at its largest size measured is an error, with what its
/// slow edges cost (each plane's ring on its own: a ring's busbw is what
/// each of its NICs carried).
std::vector<ReportFinding> ring_findings(const MeshRingDoc& r,
                                         std::optional<double> expect_busbw_gbps, bool name_plane) {
    std::vector<ReportFinding> out;
    const MeshRingSizeDoc* at = r.verdict();
    if (!expect_busbw_gbps || !at || at->busbw_gbs >= *expect_busbw_gbps) return out;
    nlohmann::json ev = {{"size", at->bytes},
                         {"busbw_gbps", at->busbw_gbs},
                         {"expected_gbps", *expect_busbw_gbps},
                         {"ratio", at->busbw_gbs / *expect_busbw_gbps}};
    std::string why;
    if (r.slowest) {
        ev["slowest_edge"] =
            fmt::format("{} -> {}", r.slowest->edge.src_host, r.slowest->edge.dst_host);
        ev["cost"] = r.slowest->cost;
        if (name_plane) ev["plane"] = r.plane;
        why = fmt::format("; its slowest edge {} → {} costs it {:.0f} %", r.slowest->edge.src_host,
                          r.slowest->edge.dst_host, r.slowest->cost * 100);
    }
    out.push_back({"mesh",
                   "ring_busbw_low",
                   Severity::Error,
                   fmt::format("{}ring all-reduce of {} over {} ranks: {:.3g} GB/s bus "
                               "bandwidth, {:.0f}% of the {:.3g} GB/s expected{}",
                               name_plane ? fmt::format("plane {}: ", r.plane) : std::string(),
                               format_size(at->bytes), r.ranks, at->busbw_gbs,
                               100 * at->busbw_gbs / *expect_busbw_gbps, *expect_busbw_gbps, why),
                   {},
                   {},
                   std::move(ev)});
    return out;
}

void add_runs(ReportModel& m) {
    std::vector<ReportFinding> first;
    if (m.mesh) {
        const MeshRunDoc& d = *m.mesh;
        m.checks.push_back(
            {"mesh", fmt::format("mesh run ({}, {})", d.pattern, d.test),
             fmt::format("{} of {} flows measured in {} of {} rounds, each against its plane's "
                         "median, slow below {:.2f}",
                         d.measured(), d.flows.size(), d.rounds_done, d.rounds, d.slow_ratio)});
        first = mesh_findings(d);
        std::vector<ReportFinding> rings;
        const bool planes = d.rings.size() > 1;
        for (const MeshRingDoc& r : d.rings) {
            const std::vector<std::string> lines = ring_lines(r, planes);
            m.checks.push_back(
                {"mesh",
                 planes ? fmt::format("ring all-reduce, plane {}", r.plane) : "ring all-reduce",
                 lines.front() +
                     (m.meta.expect_busbw_gbps
                          ? fmt::format(", expected {:.2f} GB/s", *m.meta.expect_busbw_gbps)
                          : std::string(", not judged (no --expect-busbw)"))});
            std::vector<ReportFinding> f = ring_findings(r, m.meta.expect_busbw_gbps, planes);
            rings.insert(rings.end(), f.begin(), f.end());
        }
        first.insert(first.begin(), rings.begin(), rings.end());
        if (d.ring_planes)
            m.checks.push_back(
                {"mesh", "ring all-reduce, the planes together", ring_planes_line(*d.ring_planes)});
        m.interrupted = m.interrupted || d.status == "interrupted" || d.status == "running";
        for (size_t i : mesh_matrix_flows(d, kMeshMatrixHosts)) {
            const MeshFlowDoc& f = d.flows[i];
            PairCheck c;
            c.from = f.src_host;
            c.to = f.dst_host;
            c.test = fmt::format("mesh {}", d.test);
            c.ok = f.ok;
            c.degraded = f.slow && f.ok;
            c.value = f.avg_gbps;
            c.unit = "Gb/s";
            c.mesh = true;
            if (!f.ok) c.message = f.error.empty() ? "the flow failed" : f.error;
            if (c.degraded)
                c.message = fmt::format("{:.2f} of the plane's median", f.ratio.value_or(0));
            m.pairs.push_back(std::move(c));
        }
    }
    if (m.incast) {
        const IncastDoc& d = *m.incast;
        m.checks.push_back(
            {"incast", "latency under load",
             fmt::format("a {} B READ probe from {} to {}, alone and during an incast of {} "
                         "sender{}",
                         d.probe_size, d.prober, d.receiver, d.flows.size(),
                         d.flows.size() == 1 ? "" : "s")});
        std::vector<ReportFinding> f = incast_findings(d);
        first.insert(first.end(), f.begin(), f.end());
        m.interrupted = m.interrupted || d.status == "interrupted" || d.status == "running";
    }
    for (const CollectiveBench& b : m.collectives) {
        m.checks.push_back(
            {"collective", fmt::format("{} (nccl-tests)", collective_title(b)),
             fmt::format("{} sizes; bus bandwidth {}; {} elements wrong", b.rows.size(),
                         collective_busbw_line(b, m.meta.expect_busbw_gbps), b.wrong())});
        std::vector<ReportFinding> f = collective_findings(b, m.meta.expect_busbw_gbps);
        first.insert(first.end(), f.begin(), f.end());
    }
    // Before the others: the findings are sorted by severity, stably.
    m.findings.insert(m.findings.begin(), first.begin(), first.end());
}

}  // namespace fabscope
