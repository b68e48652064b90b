#include "tui/pairs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "tui/board.h"

namespace fabscope::tui {

PairMatrix build_pairs(const std::vector<perf::PerfReport>& reports,
                       const std::vector<std::string>& names) {
    struct Entry {
        std::string row, col;
        const perf::TestResult* r;
    };
    std::map<std::string, std::vector<Entry>> by_test;
    std::vector<std::string> order;  // tests in the order first seen
    PairMatrix m;
    for (size_t i = 0; i < reports.size(); ++i) {
        const perf::PerfReport& rep = reports[i];
        m.degraded_at = rep.meta.degraded_at;
        const std::string row = !rep.meta.host.empty() ? rep.meta.host
                                : i < names.size()     ? names[i]
                                                       : fmt::format("run {}", i + 1);
        for (const perf::TestResult& r : rep.results) {
            const std::string test = fmt::format("{} {}", r.spec.name(), format_size(r.spec.size));
            if (!by_test.count(test)) order.push_back(test);
            by_test[test].push_back({row, r.peer_host.empty() ? r.peer : r.peer_host, &r});
        }
    }
    for (const std::string& test : order) {
        const auto& entries = by_test[test];
        PairGrid g;
        g.test = test;
        g.bandwidth = entries.front().r->spec.measure == perf::Measure::Bandwidth;
        for (const Entry& e : entries) {
            if (std::find(g.rows.begin(), g.rows.end(), e.row) == g.rows.end())
                g.rows.push_back(e.row);
            if (std::find(g.cols.begin(), g.cols.end(), e.col) == g.cols.end())
                g.cols.push_back(e.col);
        }
        std::sort(g.rows.begin(), g.rows.end(), natural_less);
        std::sort(g.cols.begin(), g.cols.end(), natural_less);
        g.cells.assign(g.rows.size() * g.cols.size(), {});
        auto index = [](const std::vector<std::string>& v, const std::string& s) {
            return static_cast<size_t>(std::find(v.begin(), v.end(), s) - v.begin());
        };
        for (const Entry& e : entries) {
            PairCell& c = g.cells[index(g.rows, e.row) * g.cols.size() + index(g.cols, e.col)];
            c.measured = true;
            c.ok = e.r->ok;
            c.error = e.r->error;
            c.value = g.bandwidth ? e.r->avg_gbps : e.r->latency.median_us;
            if (!c.ok) continue;
            const bool better = g.best == 0 || (g.bandwidth ? c.value > g.best : c.value < g.best);
            if (better && c.value > 0) {
                g.best = c.value;
                g.best_pair = fmt::format("{} → {}", e.row, e.col);
            }
        }
        for (PairCell& c : g.cells) {
            if (c.ok && c.value > 0 && g.best > 0)
                c.ratio = g.bandwidth ? c.value / g.best : g.best / c.value;
        }
        m.grids.push_back(std::move(g));
    }
    return m;
}

std::string suspect_line(const MeshSuspectDoc& s) {
    return fmt::format("{} {} ({}): {} of {} flows slow, {} healthy, at {:.2f} of the median",
                       s.kind == "lanes" ? "lane" : s.kind, s.name, s.detail, s.slow_flows,
                       s.total_flows, s.healthy_flows(), s.mean_ratio);
}

PairGrid build_mesh_grid(const MeshRunDoc& d) {
    PairGrid g;
    g.test = fmt::format("mesh {}", d.test);
    g.of_median = true;
    g.degraded_at = d.slow_ratio;
    const std::vector<size_t> flows = mesh_matrix_flows(d, kMeshGridHosts);
    for (size_t i : flows) {
        const MeshFlowDoc& f = d.flows[i];
        if (std::find(g.rows.begin(), g.rows.end(), f.src_host) == g.rows.end())
            g.rows.push_back(f.src_host);
        if (std::find(g.cols.begin(), g.cols.end(), f.dst_host) == g.cols.end())
            g.cols.push_back(f.dst_host);
    }
    std::sort(g.rows.begin(), g.rows.end(), natural_less);
    std::sort(g.cols.begin(), g.cols.end(), natural_less);
    g.cells.assign(g.rows.size() * g.cols.size(), {});
    auto index = [](const std::vector<std::string>& v, const std::string& s) {
        return static_cast<size_t>(std::find(v.begin(), v.end(), s) - v.begin());
    };
    for (size_t i : flows) {
        const MeshFlowDoc& f = d.flows[i];
        PairCell& c =
            g.cells[index(g.rows, f.src_host) * g.cols.size() + index(g.cols, f.dst_host)];
        c.measured = true;
        c.ok = f.ok;
        c.error = f.error;
        c.value = f.avg_gbps;
        c.ratio = f.ratio.value_or(0);
        if (f.ok && f.avg_gbps > g.best) {
            g.best = f.avg_gbps;
            g.best_pair = fmt::format("{} → {}", f.src_host, f.dst_host);
        }
    }
    for (const MeshRingDoc& r : d.rings) {
        const std::vector<std::string> lines = ring_lines(r, d.rings.size() > 1);
        g.ring.insert(g.ring.end(), lines.begin(), lines.end());
        const auto& c = r.slowest;
        g.ring_costly = g.ring_costly || (c && c->edge.gbps < d.slow_ratio * c->median_gbps);
    }
    if (d.ring_planes) g.ring.push_back(ring_planes_line(*d.ring_planes));
    for (const MeshSuspectDoc& s : d.suspects) g.suspects.push_back(suspect_line(s));
    if (!d.suspects.empty()) g.top_evidence = suspect_counted_phrases(d.suspects.front());
    g.note = fmt::format("{} {}, {} ranks, {} of {} flows, {} slow",
                         !d.rings.empty() ? "ring run" : "mesh run", d.status, d.hosts.size(),
                         d.measured(), d.flows.size(), d.slow());
    if (g.rows.size() < d.hosts.size())
        g.note += fmt::format("; showing the {} hosts of the slow flows", g.rows.size());
    return g;
}

namespace {

/// "3 of 300 probes lost (1.00 %), p99 46.4 ms": a probed peer's window.
std::string probe_detail(const ProbePeerDoc& p) {
    std::string s = p.lost > 0 ? fmt::format("{} of {} probes lost ({:.2f} %)", p.lost,
                                             p.answered + p.lost, 100 * p.loss_ratio)
                               : fmt::format("{} probes, none lost", p.answered);
    if (p.p99_us)
        s += fmt::format(", p50 {:.0f} us, p99 {:.0f} us", p.p50_us.value_or(0), *p.p99_us);
    if (p.baseline_p99_us) s += fmt::format(" (baseline {:.0f} us)", *p.baseline_p99_us);
    return s;
}

}  // namespace

PairGrid build_probe_grid(const std::vector<ProbeDoc>& agents) {
    PairGrid g;
    g.test = "probes p99";
    g.bandwidth = false;
    g.of_median = true;
    g.probes = true;
    std::vector<double> p99s;
    for (const ProbeDoc& a : agents) {
        g.rows.push_back(a.host);
        for (const ProbePeerDoc& p : a.peers) {
            if (std::find(g.cols.begin(), g.cols.end(), p.name) == g.cols.end() &&
                g.cols.size() < kMeshGridHosts)
                g.cols.push_back(p.name);
            if (p.p99_us) p99s.push_back(*p.p99_us);
        }
    }
    std::sort(g.cols.begin(), g.cols.end(), natural_less);
    std::sort(p99s.begin(), p99s.end());
    const double median = p99s.empty() ? 0 : p99s[p99s.size() / 2];
    g.cells.assign(g.rows.size() * g.cols.size(), {});
    size_t lossy = 0;
    size_t errors = 0;
    for (size_t r = 0; r < agents.size(); ++r) {
        for (const ProbePeerDoc& p : agents[r].peers) {
            auto col = std::find(g.cols.begin(), g.cols.end(), p.name);
            if (col == g.cols.end() || p.answered + p.lost == 0) continue;
            PairCell& c = g.cells[r * g.cols.size() + static_cast<size_t>(col - g.cols.begin())];
            c.measured = true;
            c.ok = p.lost == 0;
            c.value = p.p99_us.value_or(0);
            c.ratio = p.p99_us && *p.p99_us > 0 ? std::min(1.0, median / *p.p99_us) : 0;
            c.error = probe_detail(p);
            lossy += p.lost > 0;
        }
        for (const ProbeFindingDoc& f : agents[r].findings) {
            // Errors (lost probes) first, each agent's in its order.
            auto at = f.severity == "error" ? g.suspects.begin() + static_cast<long>(errors++)
                                            : g.suspects.end();
            g.suspects.insert(at, f.summary);
        }
    }
    g.best = median;
    const ProbeDoc& first = agents.front();
    g.note = fmt::format("{} agents, interval {} of {:.3g} s, window {}: {} pairs losing probes",
                         agents.size(), first.interval, first.interval_s, first.window, lossy);
    return g;
}

}  // namespace fabscope::tui
