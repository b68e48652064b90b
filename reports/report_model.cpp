#include "reports/report_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "check/validate.h"
#include "model/fingerprint.h"
#include "model/thresholds.h"
#include "pairtest/results/compare.h"
#include "reports/cables_sections.h"
#include "reports/report_runs.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

ReportFinding from_finding(const Fabric& f, const Finding& x) {
    ReportFinding r{"validation", x.kind, x.severity, x.summary, x.where, {}, x.evidence};
    for (const PortRef& p : x.where) r.labels.push_back(port_label(f, p));
    return r;
}

/// A snapshot and a validation of another fabric, or of the same fabric at
/// another time, would mix one state's findings with another's drawing: say so.
void check_same_fabric(ReportModel& m) {
    const Fabric& f = m.snapshot->fabric;
    const ValidationDoc& v = *m.validation;
    const bool same = v.fingerprint.empty()
                          ? v.nodes == f.nodes().size() && v.links == f.links().size()
                          : v.fingerprint == fabric_fingerprint(f);
    if (same) return;
    m.warnings.push_back(fmt::format(
        "the snapshot ({} nodes, {} links, taken {}) is not the fabric the validation checked "
        "({} nodes, {} links, validated {}): its findings may name links the drawing shows "
        "otherwise; give the snapshot the validation checked (validate --snapshot FILE writes it)",
        f.nodes().size(), f.links().size(),
        m.snapshot->source.started.empty() ? "at an unknown time" : m.snapshot->source.started,
        v.nodes, v.links, v.meta.started.empty() ? "at an unknown time" : v.meta.started));
}

/// Per link of the snapshot, the findings naming one of its ports.
void index_link_findings(ReportModel& m) {
    m.link_findings.clear();
    if (!m.snapshot) return;
    const Fabric& f = m.snapshot->fabric;
    m.link_findings.assign(f.links().size(), {});
    for (size_t i = 0; i < m.findings.size(); ++i) {
        for (const PortRef& p : m.findings[i].where) {
            const Link* l = f.link_of(p);
            if (!l) continue;
            auto li = static_cast<size_t>(l - f.links().data());
            auto& v = m.link_findings[li];
            if (std::find(v.begin(), v.end(), i) == v.end()) v.push_back(i);
        }
    }
}

size_t index_of(std::vector<std::string>& names, const std::string& n) {
    auto it = std::find(names.begin(), names.end(), n);
    if (it != names.end()) return static_cast<size_t>(it - names.begin());
    names.push_back(n);
    return names.size() - 1;
}

void add_perf(ReportModel& m, const perf::PerfReport& rep) {
    std::vector<perf::PerfFinding> pf = perf::compare_peers(rep.results, rep.meta.degraded_at);
    std::string from = rep.meta.host.empty() ? "this host" : rep.meta.host;
    for (const perf::TestResult& r : rep.results) {
        PairCheck c;
        c.from = from;
        c.to = r.peer_host.empty() ? r.peer : r.peer_host;
        c.test = r.spec.name();
        c.ok = r.ok;
        bool bw = r.spec.measure == perf::Measure::Bandwidth;
        c.value = bw ? r.avg_gbps : r.latency.median_us;
        c.unit = bw ? "Gb/s" : "µs";
        if (!r.ok) c.message = r.error.empty() ? "the test failed" : r.error;
        for (const perf::PerfFinding& x : pf) {
            if (x.peer != r.peer || x.test != c.test) continue;
            c.degraded = x.kind == "pair_degraded";
            c.message = x.summary;
            c.evidence = x.evidence;
        }
        m.pairs.push_back(std::move(c));
    }
    // Several hosts' reports in one: say whose test it was.
    for (const perf::PerfFinding& x : pf)
        m.findings.push_back(
            {"perf", x.kind, x.severity, from + ": " + x.summary, {}, {}, x.evidence});
}

void build_matrices(ReportModel& m) {
    std::map<std::string, size_t> by_test;
    for (size_t i = 0; i < m.pairs.size(); ++i) {
        const PairCheck& c = m.pairs[i];
        auto [it, fresh] = by_test.try_emplace(c.test, m.matrices.size());
        if (fresh) {
            PairMatrix pm;
            pm.test = c.test;
            pm.unit = c.unit;
            pm.higher_is_better = c.unit == "Gb/s";
            m.matrices.push_back(std::move(pm));
        }
        PairMatrix& pm = m.matrices[it->second];
        index_of(pm.rows, c.from);
        index_of(pm.cols, c.to);
    }
    for (PairMatrix& pm : m.matrices) {
        pm.cells.assign(pm.rows.size() * pm.cols.size(), -1);
        bool first = true;
        for (size_t i = 0; i < m.pairs.size(); ++i) {
            const PairCheck& c = m.pairs[i];
            if (c.test != pm.test) continue;
            size_t r = index_of(pm.rows, c.from);
            size_t k = index_of(pm.cols, c.to);
            pm.cells[r * pm.cols.size() + k] = static_cast<long>(i);
            if (!c.ok) continue;
            bool better = pm.higher_is_better ? c.value > pm.best : c.value < pm.best;
            bool worse = pm.higher_is_better ? c.value < pm.worst : c.value > pm.worst;
            if (first || better) pm.best = c.value;
            if (first || worse) pm.worst = c.value;
            first = false;
        }
    }
}

}  // namespace

std::string ReportModel::verdict() const {
    if (interrupted) return "INTERRUPTED";
    return count(Severity::Error) + count(Severity::Warning) > 0 ? "FAIL" : "PASS";
}

size_t ReportModel::count(Severity s) const {
    return static_cast<size_t>(std::count_if(
        findings.begin(), findings.end(), [s](const ReportFinding& f) { return f.severity == s; }));
}

std::optional<Severity> ReportModel::link_severity(size_t link) const {
    std::optional<Severity> worst;
    if (link >= link_findings.size()) return worst;
    for (size_t i : link_findings[link]) {
        if (!worst || findings[i].severity > *worst) worst = findings[i].severity;
    }
    return worst;
}

std::string ReportModel::link_name(size_t link) const {
    if (!snapshot || link >= snapshot->fabric.links().size()) return "";
    const Fabric& f = snapshot->fabric;
    const Link& l = f.links()[link];
    return describe(f, l.a) + " -- " + describe(f, l.b);
}

std::string ReportModel::fabric_identity() const {
    std::vector<std::string> parts;
    if (snapshot) {
        const SnapshotSource& s = snapshot->source;
        if (!s.ca.empty()) parts.push_back(fmt::format("{} port {}", s.ca, s.ca_port));
        if (!s.input_file.empty()) parts.push_back(s.input_file);
        const Fabric& f = snapshot->fabric;
        parts.push_back(fmt::format("{} nodes, {} links", f.nodes().size(), f.links().size()));
        // Which nodes are there, so two reports can be seen to be of the same fabric.
        parts.push_back("fabric " + node_set_fingerprint(f));
    } else if (validation) {
        parts.push_back(validation->meta.fabric_from);
        parts.push_back(fmt::format("{} nodes, {} links", validation->nodes, validation->links));
    } else if (congestion && !congestion->fabric_from.empty()) {
        parts.push_back(congestion->fabric_from);
    }
    for (const perf::PerfReport& p : perf) {
        parts.push_back(
            fmt::format("perf from {} ({} port {})", p.meta.host, p.meta.device, p.meta.port));
    }
    if (mesh)
        parts.push_back(
            fmt::format("mesh run of {} ranks ({})", mesh->hosts.size(), mesh->pattern));
    if (incast) parts.push_back(fmt::format("incast toward {}", incast->receiver));
    return fmt::format("{}", fmt::join(parts, ", "));
}

std::string port_rates(const ReportModel& m, const PortLabel& l) {
    const Port* p = m.snapshot ? m.snapshot->fabric.port({l.node_guid, l.port}) : nullptr;
    if (!p || l.port == 0) return "";
    std::string active = p->width_active && p->speed_active
                             ? fmt::format("{} {}", name(*p->width_active), name(*p->speed_active))
                             : fmt::format("{}/{}", name(p->state), name(p->phys_state));
    return fmt::format("{}: {}; enabled {} {}; supported {} {}", label_name(l), active,
                       to_string(p->width_enabled), to_string(p->speed_enabled),
                       to_string(p->width_supported), to_string(p->speed_supported));
}

bool counters_read(const ReportModel& m) {
    if (!m.snapshot) return false;
    for (const Node& n : m.snapshot->fabric.nodes()) {
        for (const Port& p : n.ports) {
            if (p.counters) return true;
        }
    }
    return false;
}

std::vector<CounterRow> counter_rows(const ReportModel& m, size_t max) {
    std::vector<CounterRow> rows;
    if (!m.snapshot) return rows;
    const Fabric& f = m.snapshot->fabric;
    for (const Node& n : f.nodes()) {
        for (const Port& p : n.ports) {
            if (!p.counters) continue;
            for (int c = 0; c < kCounterCount; ++c) {
                auto counter = static_cast<Counter>(c);
                if (!is_error_counter(counter) && counter != Counter::PortXmitWait) continue;
                auto v = p.counters->get(counter);
                if (!v || *v == 0) continue;
                PortRef ref{n.guid, p.num};
                rows.push_back({ref, describe(f, ref), counter, *v});
            }
        }
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const CounterRow& a, const CounterRow& b) { return a.where < b.where; });
    if (rows.size() > max) rows.resize(max);
    return rows;
}

namespace {

/// The limit the routing table marks leaves at: --thresholds', else the one
/// the validation judged with (its route_imbalance findings carry it), else
/// the thresholds' default; so the table and the findings agree.
double routing_limit(const ReportMeta& meta, const std::optional<ValidationDoc>& v) {
    if (meta.imbalance_limit) return *meta.imbalance_limit;
    if (v) {
        for (const ReportFinding& f : v->findings) {
            auto limit = f.evidence.find("limit");
            if (f.kind == "route_imbalance" && limit != f.evidence.end() && limit->is_number())
                return limit->get<double>();
        }
    }
    return RoutingLimits{}.imbalance;
}

}  // namespace

ReportModel build_report(std::optional<Snapshot> snapshot, std::optional<ValidationDoc> validation,
                         std::vector<perf::PerfReport> perf, ReportMeta meta,
                         std::optional<CongestionDoc> congestion, RunDocs runs) {
    ReportModel m;
    m.meta = std::move(meta);
    m.snapshot = std::move(snapshot);
    m.validation = std::move(validation);
    m.perf = std::move(perf);
    m.congestion = std::move(congestion);
    m.mesh = std::move(runs.mesh);
    m.incast = std::move(runs.incast);
    m.collectives = std::move(runs.collectives);
    m.cables = std::move(runs.cables);
    if (m.snapshot) {
        m.tiers = classify_tiers(m.snapshot->fabric);
        m.interrupted = m.snapshot->source.interrupted;
        m.routing = routing_doc(m.snapshot->fabric, routing_limit(m.meta, m.validation));
    }
    if (m.snapshot && m.validation) check_same_fabric(m);
    if (m.validation) {
        m.checks = m.validation->checks;
        m.findings = m.validation->findings;
        m.interrupted = m.interrupted || m.validation->meta.interrupted;
    } else if (m.snapshot) {
        const Fabric& f = m.snapshot->fabric;
        CounterReadings before = readings_of(f);
        ValidationInput in{f, m.tiers, {}, before.empty() ? nullptr : &before};
        in.sm_read = m.snapshot->source.sm_read;
        Validation v = validate(in);
        m.checks = v.checks;
        for (const Finding& x : v.findings) m.findings.push_back(from_finding(f, x));
    }
    for (const perf::PerfReport& p : m.perf) {
        add_perf(m, p);
        m.interrupted = m.interrupted || !p.meta.complete;
    }
    if (!m.perf.empty())
        m.checks.push_back({"perf", "pairwise RDMA tests, each against the best of its run", ""});
    if (m.congestion) {
        const CongestionDoc& c = *m.congestion;
        m.checks.push_back(
            {"congestion", "congestion: PortXmitWait",
             fmt::format("{} port{} over {:.1f} s, trees from {:.0f}% waiting", c.ports_read,
                         c.ports_read == 1 ? "" : "s", c.interval_s, c.warn * 100)});
        m.findings.insert(m.findings.end(), c.findings.begin(), c.findings.end());
        m.interrupted = m.interrupted || c.interrupted;
    }
    add_runs(m);
    add_cables(m);
    std::stable_sort(
        m.findings.begin(), m.findings.end(),
        [](const ReportFinding& a, const ReportFinding& b) { return a.severity > b.severity; });
    build_matrices(m);
    index_link_findings(m);
    return m;
}

namespace {

/// The finding names this node or port (full or first-word node names).
bool names(const ReportFinding& f, const std::string& s) {
    return std::any_of(f.labels.begin(), f.labels.end(), [&](const PortLabel& l) {
        const std::string first = l.node.substr(0, l.node.find(' '));
        return label_name(l) == s || l.node == s || first == s ||
               fmt::format("{}[{}]", first, l.port) == s;
    });
}

bool selected(const ReportFinding& f, const FindingFilter& keep) {
    for (const std::string& s : keep.selectors) {
        if (f.kind == s || names(f, s)) return true;
    }
    for (const auto& [a, b] : keep.links) {
        if (names(f, a) && names(f, b)) return true;
    }
    return false;
}

}  // namespace

Status keep_findings(ReportModel& m, const FindingFilter& keep) {
    if (keep.empty()) return Ok{};
    std::vector<ReportFinding> kept;
    for (const ReportFinding& f : m.findings) {
        if (selected(f, keep)) kept.push_back(f);
    }
    if (kept.empty()) {
        std::vector<std::string> asked;
        for (const std::string& s : keep.selectors) asked.push_back("--finding " + s);
        for (const auto& [a, b] : keep.links) asked.push_back(fmt::format("--link {} {}", a, b));
        return make_error(fmt::format("report: {}: no finding of the {} is of that kind, names "
                                      "that node or port, or names both ends of that link; give a "
                                      "kind (link_down), a node (leaf02), a port (leaf02[5]) or a "
                                      "link's ends (--link leaf02[5] spine01[2])",
                                      fmt::join(asked, ", "), m.findings.size()),
                          kExitUsage);
    }
    m.findings = std::move(kept);
    index_link_findings(m);
    return Ok{};
}

}  // namespace fabscope
