#include "tui/tui_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "check/validate.h"
#include "model/port_label.h"
#include "reports/report_runs.h"
#include "util/duration.h"
#include "util/time_util.h"

namespace fabscope::tui {
namespace {

FindingRow row_of(const Fabric& f, const Finding& x) {
    FindingRow r{x.severity, x.kind, x.summary, x.evidence.dump(2), {}, {}};
    for (const PortRef& ref : x.where) {
        r.where.push_back(to_text(port_label(f, ref)));
        if (ref.port != 0) r.ports.push_back(describe(f, ref));
    }
    return r;
}

/// The probe agents' findings as rows ("perf_probe-..." kinds), at their agent.
void add_probe_rows(const std::vector<ProbeDoc>& probes, std::vector<FindingRow>& out) {
    for (const ProbeDoc& d : probes) {
        for (const ProbeFindingDoc& f : d.findings) {
            const Severity sev = severity_named(f.severity).value_or(Severity::Warning);
            out.push_back(FindingRow{sev, "perf_" + f.kind, f.summary, "", {d.host}});
        }
    }
}

/// A mesh run's suspects and problems as rows ("perf_" kinds: they are
/// replaced with the perf rows when the files are read again).
void add_mesh_rows(const MeshRunDoc& d, std::vector<FindingRow>& out) {
    for (const MeshSuspectDoc& s : d.suspects) {
        const bool localized = s.kind != "lanes" && s.detail.rfind("one of", 0) != 0;
        nlohmann::json slow = nlohmann::json::array();
        for (size_t i = 0; i < s.evidence.size() && i < 12; ++i)
            slow.push_back(d.flow_text(s.evidence[i]));
        nlohmann::json healthy = nlohmann::json::array();
        for (size_t i = 0; i < s.healthy.size() && i < 6; ++i)
            healthy.push_back(d.flow_text(s.healthy[i]));
        out.push_back(FindingRow{localized ? Severity::Error : Severity::Warning,
                                 "perf_mesh_suspect",
                                 fmt::format("suspect {}", suspect_line(s)),
                                 nlohmann::json{{"slow", slow}, {"healthy", healthy}}.dump(2),
                                 {s.name}});
    }
    for (const MeshFindingDoc& f : d.findings) {
        std::string kind = f.kind;
        std::replace(kind.begin(), kind.end(), '-', '_');
        out.push_back(FindingRow{Severity::Warning,
                                 fmt::format("perf_mesh_{}", kind),
                                 f.message,
                                 "{}",
                                 {f.host.empty() ? std::string("the mesh run") : f.host}});
    }
}

/// A congestion report's findings, as the findings view lists them.
std::vector<FindingRow> congestion_finding_rows(const CongestionDoc& c) {
    std::vector<FindingRow> out;
    for (const ReportFinding& f : c.findings) {
        FindingRow r{f.severity, f.kind, f.summary, f.evidence.dump(2), {}, {}};
        for (const PortLabel& l : f.labels) {
            r.where.push_back(to_text(l));
            if (l.port != 0) r.ports.push_back(fmt::format("{}[{}]", l.node, l.port));
        }
        out.push_back(std::move(r));
    }
    return out;
}

std::vector<FindingRow> perf_rows(const std::vector<perf::PerfReport>& reports,
                                  const std::vector<std::string>& names) {
    std::vector<FindingRow> out;
    for (size_t i = 0; i < reports.size(); ++i) {
        const perf::PerfReport& rep = reports[i];
        const std::string from = !rep.meta.host.empty() ? rep.meta.host
                                 : i < names.size()     ? names[i]
                                                        : "";
        for (const perf::PerfFinding& p : perf::compare_peers(rep.results, rep.meta.degraded_at)) {
            out.push_back(FindingRow{p.severity,
                                     "perf_" + p.kind,
                                     fmt::format("{} → {}", from, p.summary),
                                     p.evidence.dump(2),
                                     {fmt::format("{} → {} ({})", from, p.peer, p.test)}});
        }
    }
    return out;
}

/// A rising counter's finding counts from the first reading (a rise anywhere
/// in between is one), so its rate fades as time passes; it also says what
/// the counter did over the rate window, which does not.
void add_recent_rise(std::vector<Finding>& findings, const CounterReadings& start,
                     const CounterReadings& now) {
    for (Finding& x : findings) {
        if (x.kind != "counter_rising" || x.where.empty()) continue;
        const auto c = parse_counter(x.evidence.value("counter", std::string()));
        const auto b = start.find(x.where.front());
        const auto a = now.find(x.where.front());
        if (!c || b == start.end() || a == now.end()) continue;
        const auto rise = counter_rise(b->second, a->second, *c);
        const int64_t ms = a->second.read_at_ms - b->second.read_at_ms;
        if (!rise || ms <= 0) continue;
        const double s = static_cast<double>(ms) / 1000.0;
        const double per_hour = static_cast<double>(rise->delta) * 3600.0 / s;
        x.evidence["recent"] = {{"delta", rise->delta}, {"interval_s", s}, {"per_hour", per_hour}};
        x.summary += fmt::format("; in the last {}: +{} ({:.0f} per hour)",
                                 format_duration(Millis(ms)), rise->delta, per_hour);
    }
}

}  // namespace

size_t TuiData::count(Severity s) const {
    return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                             [&](const FindingRow& r) { return r.severity == s; }));
}

DataBuilder::DataBuilder(BuilderConfig config)
    : cfg_(std::move(config)), history_(std::make_shared<History>()) {
    if (cfg_.baseline) {
        const Fabric& bf = cfg_.baseline->fabric;
        baseline_plan_ = plan_from_fabric(bf, classify_tiers(bf));
    }
    set_perf({std::move(cfg_.perf), std::move(cfg_.perf_names), std::move(cfg_.mesh),
              std::move(cfg_.collectives), std::move(cfg_.probes)});
}

void DataBuilder::set_perf(PerfInputs in) {
    cfg_.perf = std::move(in.reports);
    cfg_.perf_names = std::move(in.names);
    cfg_.mesh = std::move(in.mesh);
    cfg_.collectives = std::move(in.collectives);
    cfg_.probes = std::move(in.probes);
    pairs_ = build_pairs(cfg_.perf, cfg_.perf_names);
    perf_rows_ = perf_rows(cfg_.perf, cfg_.perf_names);
    // A mesh run's grid first: it is what the run was for.
    std::vector<PairGrid> mesh_grids;
    std::vector<FindingRow> mesh_rows;
    for (const MeshRunDoc& d : cfg_.mesh) {
        mesh_grids.push_back(build_mesh_grid(d));
        add_mesh_rows(d, mesh_rows);
    }
    // The probe agents' grid after the mesh runs': the fabric between jobs.
    if (!cfg_.probes.empty()) {
        mesh_grids.push_back(build_probe_grid(cfg_.probes));
        add_probe_rows(cfg_.probes, mesh_rows);
    }
    pairs_.grids.insert(pairs_.grids.begin(), std::make_move_iterator(mesh_grids.begin()),
                        std::make_move_iterator(mesh_grids.end()));
    perf_rows_.insert(perf_rows_.begin(), mesh_rows.begin(), mesh_rows.end());
    // nccl-tests: judged as `report` judges them, against the thresholds
    // file's collective.busbw_gbps.
    for (const CollectiveBench& b : cfg_.collectives) {
        for (const ReportFinding& f :
             collective_findings(b, cfg_.thresholds.collective.busbw_gbps)) {
            perf_rows_.push_back(FindingRow{f.severity,
                                            "perf_" + f.kind,
                                            f.summary,
                                            f.evidence.dump(2),
                                            {collective_title(b)}});
        }
    }
    if (latest_) {
        auto d = std::make_shared<TuiData>(*latest_);
        d->pairs = pairs_;
        auto fabric_rows =
            std::count_if(d->findings.begin(), d->findings.end(),
                          [](const FindingRow& r) { return r.kind.rfind("perf_", 0) != 0; });
        d->findings.resize(static_cast<size_t>(fabric_rows));
        d->findings.insert(d->findings.end(), perf_rows_.begin(), perf_rows_.end());
        latest_ = d;
    }
}

ValidationInput DataBuilder::check_input(const Fabric& f, const Tiers& tiers,
                                         const std::vector<Finding>& problems,
                                         const CounterReadings& first, const CounterReadings* now,
                                         bool sm_read) const {
    ValidationInput in{f, tiers, problems};
    in.sm_read = sm_read;
    if (!first.empty()) in.before = &first;
    if (now && !now->empty() && in.before) in.after = now;
    in.plan = cfg_.plan ? &*cfg_.plan : nullptr;
    in.baseline = baseline_plan_ ? &*baseline_plan_ : nullptr;
    in.since = first_shape_ ? &*first_shape_ : nullptr;
    in.thresholds = cfg_.thresholds;
    return in;
}

std::shared_ptr<const TuiData> DataBuilder::add(const Reading& r) {
    const Fabric& f = r.snapshot.fabric;
    const Tiers tiers = classify_tiers(f);
    // Without a plan or baseline, the first reading is the shape drawn (a link
    // that goes down stays on the board, crossed out) and what changes are
    // found against; it vouches for nothing, so what was bad from the start
    // is found as `validate` finds it.
    const char* expected = cfg_.plan       ? "the plan"
                           : cfg_.baseline ? "the baseline"
                                           : "their peers and the first reading";
    if (!cfg_.plan && !baseline_plan_ && !first_shape_) first_shape_ = plan_from_fabric(f, tiers);

    CounterReadings now = readings_of(f);
    trim_window(r.taken_ms);
    const bool rates = !window_.empty() && !window_.front().counters.empty() && !now.empty();

    const bool first = first_counters_.empty();
    Validation v = validate(check_input(f, tiers, r.problems, first ? now : first_counters_,
                                        first ? nullptr : &now, r.snapshot.source.sm_read));
    for (const auto& [ref, pc] : now) first_counters_.try_emplace(ref, pc);

    const int tick = cfg_.thresholds.xmit_wait.tick_multiplier;
    RateMap step;
    RateMap recent;
    RateMap total;
    if (rates) {
        step = port_rates(f, window_.back().counters, now, tick);
        recent = port_rates(f, window_.front().counters, now, tick);
        total = port_rates(f, first_counters_, now, tick);
    }

    auto d = std::make_shared<TuiData>();
    const Plan* shape = cfg_.plan        ? &*cfg_.plan
                        : baseline_plan_ ? &*baseline_plan_
                        : first_shape_   ? &*first_shape_
                                         : nullptr;
    d->board = build_board(
        {f, tiers, shape, v.findings, rates ? &recent : nullptr, rates ? &total : nullptr});
    if (rates) {
        // A new history each time: frames being drawn keep the one they have.
        auto h = std::make_shared<History>(*history_);
        h->add(r.taken_ms, ReadingRates{step, recent, total}, [&](PortRef ref) {
            const Port* p = f.port(ref);
            std::string me = describe(f, ref);
            if (p && p->peer) {
                const Node* n = f.node(p->peer->node);
                const std::string& other = n ? n->description : std::string("?");
                return fmt::format("{} → {}", me, other.substr(0, other.find(' ')));
            }
            return me;
        });
        history_ = std::move(h);
    }
    d->history = history_;
    // The board's findings are validate's; the rows say the window's rise too.
    std::vector<Finding> shown = d->board.findings;
    if (rates) add_recent_rise(shown, window_.front().counters, now);
    for (const Finding& x : shown) d->findings.push_back(row_of(f, x));
    if (cfg_.congestion) {
        std::vector<FindingRow> c = congestion_finding_rows(*cfg_.congestion);
        d->findings.insert(d->findings.end(), c.begin(), c.end());
    }
    // Perf rows last: set_perf replaces them.
    d->findings.insert(d->findings.end(), perf_rows_.begin(), perf_rows_.end());
    d->congestion = cfg_.congestion;
    d->congestion_from = cfg_.congestion_name;
    d->pairs = pairs_;
    d->meta.source = cfg_.source;
    d->meta.live = cfg_.live;
    d->meta.interval_s = cfg_.interval_s;
    d->meta.readings = (latest_ ? latest_->meta.readings : 0) + 1;
    d->meta.taken_ms = r.taken_ms;
    d->meta.sweep_s = r.snapshot.source.duration_s;
    d->meta.expected = expected;
    window_.push_back({r.taken_ms, std::move(now)});
    latest_ = d;
    return d;
}

void DataBuilder::trim_window(int64_t now_ms) {
    const auto start = now_ms - static_cast<int64_t>(cfg_.rate_window_s * 1000);
    while (window_.size() > 1 && window_.front().at_ms < start) window_.pop_front();
}

std::shared_ptr<const TuiData> DataBuilder::failed(const std::string& why, int64_t at_ms) {
    auto d = latest_ ? std::make_shared<TuiData>(*latest_) : std::make_shared<TuiData>();
    d->meta.source = cfg_.source;
    d->meta.live = cfg_.live;
    d->meta.interval_s = cfg_.interval_s;
    d->meta.error = why;
    if (!latest_) d->meta.taken_ms = at_ms;
    d->history = history_;
    latest_ = d;
    return d;
}

Reading reading_from_file(Snapshot s) {
    int64_t t = 0;
    for (const Node& n : s.fabric.nodes()) {
        for (const Port& p : n.ports) {
            if (p.counters) t = std::max(t, p.counters->read_at_ms);
        }
    }
    return Reading{std::move(s), {}, t ? t : unix_millis_now()};
}

}  // namespace fabscope::tui
