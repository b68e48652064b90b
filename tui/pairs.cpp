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
            const std::string test =
                fmt::format("{} {}", r.spec.name(), perf::format_size(r.spec.size));
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
    if (d.ring) {
        g.ring = ring_lines(*d.ring);
        const auto& c = d.ring->slowest;
        g.ring_costly = c && c->edge.gbps < d.slow_ratio * c->median_gbps;
    }
    for (const MeshSuspectDoc& s : d.suspects) g.suspects.push_back(suspect_line(s));
    if (!d.suspects.empty()) g.top_evidence = suspect_counted_phrases(d.suspects.front());
    g.note =
        fmt::format("{} {}, {} ranks, {} of {} flows, {} slow", d.ring ? "ring run" : "mesh run",
                    d.status, d.hosts.size(), d.measured(), d.flows.size(), d.slow());
    if (g.rows.size() < d.hosts.size())
        g.note += fmt::format("; showing the {} hosts of the slow flows", g.rows.size());
    return g;
}

}  // namespace fabscope::tui
