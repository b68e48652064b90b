#include "mesh/incast_report.h"

#include <fmt/format.h>

#include "congestion/ip_ecn.h"
#include "congestion/roce_change_json.h"
#include "model/fabric.h"

namespace fabscope::perf {
namespace {

using json = nlohmann::json;

std::string host_of(const IncastData& d, int rank) {
    if (rank >= 0 && static_cast<size_t>(rank) < d.ranks.size() && !d.ranks[rank].host.empty())
        return d.ranks[rank].host;
    return fmt::format("rank {}", rank);
}

json stats_json(const IncastProbe& p) {
    const LatencyStats& s = p.stats;
    return {{"measured", p.measured}, {"error", p.error},     {"seconds", p.seconds},
            {"samples", s.samples},   {"min_us", s.min_us},   {"median_us", s.median_us},
            {"p99_us", s.p99_us},     {"p999_us", s.p999_us}, {"max_us", s.max_us},
            {"mean_us", s.mean_us}};
}

/// "16.8 ms" or "210 us".
std::string us(double v) {
    return std::abs(v) >= 1000 ? fmt::format("{:.1f} ms", v / 1000) : fmt::format("{:.0f} us", v);
}

std::string role(const IncastData& d, int rank) {
    if (rank == d.receiver) return "receiver";
    if (rank == d.prober) return "prober";
    return "sender";
}

}  // namespace

bool IncastAnalysis::failed() const {
    for (const Finding& f : findings) {
        if (f.severity != Severity::Info) return true;
    }
    return false;
}

IncastAnalysis analyse_incast(const IncastData& d, const Thresholds& t) {
    IncastAnalysis a;
    for (const IncastFlow& f : d.flows) a.total_gbps += f.ok ? f.avg_gbps : 0;
    a.have_rise = d.idle.measured && d.loaded.measured && d.idle.stats.samples > 0 &&
                  d.loaded.stats.samples > 0;
    if (a.have_rise) {
        a.median_rise_us = d.loaded.stats.median_us - d.idle.stats.median_us;
        a.p99_rise_us = d.loaded.stats.p99_us - d.idle.stats.p99_us;
        const LoadLatencyLimit& l = t.load_latency;
        if (a.p99_rise_us >= l.p99_rise_warn_us) {
            Finding f;
            f.kind = "latency_under_load";
            f.severity = a.p99_rise_us >= l.p99_rise_error_us ? Severity::Error : Severity::Warning;
            const std::string rx = host_of(d, d.receiver);
            f.summary = fmt::format(
                "{}: latency toward it rose under an incast of {} sender{}: p99 {} -> {} (+{}), "
                "median {} -> {} (+{}), the senders at {:.3g} Gb/s together: packets queue on "
                "the way to {} (limit +{})",
                rx, d.senders.size(), d.senders.size() == 1 ? "" : "s", us(d.idle.stats.p99_us),
                us(d.loaded.stats.p99_us), us(a.p99_rise_us), us(d.idle.stats.median_us),
                us(d.loaded.stats.median_us), us(a.median_rise_us), a.total_gbps, rx,
                us(f.severity == Severity::Error ? l.p99_rise_error_us : l.p99_rise_warn_us));
            std::vector<std::string> senders;
            for (int s : d.senders) senders.push_back(host_of(d, s));
            f.evidence = {{"receiver", rx},
                          {"prober", host_of(d, d.prober)},
                          {"senders", senders},
                          {"idle", stats_json(d.idle)},
                          {"loaded", stats_json(d.loaded)},
                          {"median_rise_us", a.median_rise_us},
                          {"p99_rise_us", a.p99_rise_us},
                          {"senders_gbps", a.total_gbps},
                          {"p99_rise_warn_us", l.p99_rise_warn_us},
                          {"p99_rise_error_us", l.p99_rise_error_us}};
            a.findings.push_back(std::move(f));
        }
    }
    std::vector<RoceChange> hosts;
    for (const IncastCongestion& c : d.congestion) {
        if (c.error.empty()) hosts.push_back(c.change);
    }
    std::vector<Finding> roce = detect_roce(hosts, {}, t.roce);
    for (const IncastCongestion& c : d.congestion) {
        if (!c.error.empty() || c.ip_ecn.empty()) continue;
        bool told = false;  // the device's own ECN counters already said it
        for (const Finding& f : roce) {
            told = told ||
                   (f.kind == "ecn_without_cnp" && f.evidence.value("host", "") == c.change.host);
        }
        if (told) continue;
        for (Finding& f : detect_ce_without_cnp(c.change, c.ip_ecn, t.roce))
            roce.push_back(std::move(f));
    }
    a.findings.insert(a.findings.end(), roce.begin(), roce.end());
    return a;
}

json incast_json(const IncastData& d, const IncastAnalysis& a, const Thresholds& t) {
    json ranks = json::array();
    for (const MeshRank& r : d.ranks) {
        json k = rank_report_json(r);
        k["role"] = role(d, r.rank);
        ranks.push_back(std::move(k));
    }
    json flows = json::array();
    for (const IncastFlow& f : d.flows) {
        flows.push_back({{"src", f.src},
                         {"src_host", host_of(d, f.src)},
                         {"dst", d.receiver},
                         {"dst_host", host_of(d, d.receiver)},
                         {"measured", f.measured},
                         {"ok", f.ok},
                         {"error", f.error},
                         {"avg_gbps", f.avg_gbps},
                         {"min_window_gbps", f.min_window_gbps},
                         {"bytes", f.bytes},
                         {"seconds", f.seconds}});
    }
    json congestion = json::array();
    for (const IncastCongestion& c : d.congestion) {
        congestion.push_back({{"rank", c.rank},
                              {"host", host_of(d, c.rank)},
                              {"role", role(d, c.rank)},
                              {"error", c.error},
                              {"change", c.error.empty() ? roce_change_to_json(c.change) : json()},
                              {"ip_ecn", c.ip_ecn}});
    }
    json problems = json::array();
    for (const MeshFinding& f : d.findings) {
        problems.push_back({{"kind", f.kind},
                            {"rank", f.rank},
                            {"host", f.rank < 0 ? json(nullptr) : json(host_of(d, f.rank))},
                            {"message", f.message}});
    }
    json latency = {{"idle", stats_json(d.idle)}, {"loaded", stats_json(d.loaded)}};
    latency["median_rise_us"] = a.have_rise ? json(a.median_rise_us) : json(nullptr);
    latency["p99_rise_us"] = a.have_rise ? json(a.p99_rise_us) : json(nullptr);
    const bool bad = a.failed() || !d.findings.empty();
    const Fabric no_fabric;  // RoCE findings name hosts in their evidence
    return {{"format", "fabscope-mesh-incast"},
            {"version", 1},
            {"command", "mesh run"},
            {"pattern", "incast"},
            {"launcher", d.launcher},
            {"status", d.status},
            {"phase", d.phase},
            {"wall_seconds", d.wall_seconds},
            {"spec", spec_to_json(d.spec)},
            {"probe", spec_to_json(d.probe)},
            {"ranks", ranks},
            {"receiver", {{"rank", d.receiver}, {"host", host_of(d, d.receiver)}}},
            {"prober", {{"rank", d.prober}, {"host", host_of(d, d.prober)}}},
            {"senders", d.senders},
            {"latency", latency},
            {"flows", flows},
            {"senders_gbps", a.total_gbps},
            {"congestion", congestion},
            {"thresholds",
             {{"p99_rise_warn_us", t.load_latency.p99_rise_warn_us},
              {"p99_rise_error_us", t.load_latency.p99_rise_error_us},
              {"ecn_marked_min", t.roce.ecn_marked_min},
              {"loss_per_s", t.roce.loss_per_s}}},
            {"result", d.status == "interrupted" ? "interrupted"
                       : bad                     ? "fail"
                                                 : "pass"},
            {"findings", findings_to_json(no_fabric, a.findings)},
            {"problems", problems}};
}

std::vector<std::string> incast_summary(const IncastData& d, const IncastAnalysis& a) {
    std::vector<std::string> out;
    const std::string rx = host_of(d, d.receiver);
    if (a.have_rise) {
        out.push_back(fmt::format(
            "latency under load toward {} (probe from {}, {} {}): median {} -> {} ({}{}), p99 {} "
            "-> {} ({}{})",
            rx, host_of(d, d.prober), name(d.probe.op), format_size(d.probe.size),
            us(d.idle.stats.median_us), us(d.loaded.stats.median_us),
            a.median_rise_us >= 0 ? "+" : "", us(a.median_rise_us), us(d.idle.stats.p99_us),
            us(d.loaded.stats.p99_us), a.p99_rise_us >= 0 ? "+" : "", us(a.p99_rise_us)));
    } else {
        out.push_back(fmt::format("latency under load toward {}: not measured ({})", rx,
                                  !d.idle.error.empty()     ? d.idle.error
                                  : !d.loaded.error.empty() ? d.loaded.error
                                                            : "the run ended before it"));
    }
    std::string flows;
    for (const IncastFlow& f : d.flows) {
        flows += fmt::format(
            "{}{} {}", flows.empty() ? "" : ", ", host_of(d, f.src),
            f.ok ? fmt::format("{:.3g} Gb/s", f.avg_gbps) : (f.measured ? "failed" : "not run"));
    }
    out.push_back(fmt::format("incast: {} sender{} -> {}: {:.3g} Gb/s together ({})",
                              d.senders.size(), d.senders.size() == 1 ? "" : "s", rx, a.total_gbps,
                              flows));
    for (const Finding& f : a.findings) {
        out.push_back(
            fmt::format("{}: {}", f.severity == Severity::Info ? "info" : "finding", f.summary));
    }
    for (const MeshFinding& f : d.findings) out.push_back("finding: " + f.message);
    return out;
}

}  // namespace fabscope::perf
