#include "tui/tui_data.h"

#include <fmt/format.h>

#include <algorithm>

#include "model/validation.h"
#include "util/time_util.h"

namespace fabscope::tui {
namespace {

FindingRow row_of(const Fabric& f, const Finding& x) {
    FindingRow r{x.severity, x.kind, x.summary, x.evidence.dump(2), {}};
    const nlohmann::json j = finding_to_json(f, x);
    for (const nlohmann::json& w : j.value("where", nlohmann::json::array())) {
        r.where.push_back(fmt::format("{}[{}]  {}  LID {}", w.value("node", "?"),
                                      w.value("port", 0), w.value("guid", ""), w.value("lid", 0)));
    }
    return r;
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
    set_perf(cfg_.perf, cfg_.perf_names);
}

void DataBuilder::set_perf(std::vector<perf::PerfReport> reports, std::vector<std::string> names) {
    cfg_.perf = std::move(reports);
    cfg_.perf_names = std::move(names);
    pairs_ = build_pairs(cfg_.perf, cfg_.perf_names);
    perf_rows_ = perf_rows(cfg_.perf, cfg_.perf_names);
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

std::shared_ptr<const TuiData> DataBuilder::add(const Reading& r) {
    const Fabric& f = r.snapshot.fabric;
    const Tiers tiers = classify_tiers(f);
    // Without a plan or baseline, the first reading is what should be there.
    const char* expected = cfg_.plan       ? "the plan"
                           : cfg_.baseline ? "the baseline"
                                           : "the first reading";
    if (!cfg_.plan && !baseline_plan_) baseline_plan_ = plan_from_fabric(f, tiers);

    CounterReadings after = readings_of(f);
    static const CounterReadings kNone;
    const CounterReadings& before = previous_ ? *previous_ : kNone;
    const bool rates = !before.empty() && !after.empty();

    ValidationInput vin{f, tiers, r.problems};
    if (rates) {
        vin.before = &before;
        vin.after = &after;
    }
    vin.plan = cfg_.plan ? &*cfg_.plan : nullptr;
    vin.baseline = baseline_plan_ ? &*baseline_plan_ : nullptr;
    vin.thresholds = cfg_.thresholds;
    Validation v = validate(vin);

    RateMap rate_map;
    if (rates) rate_map = port_rates(f, before, after, cfg_.thresholds.xmit_wait.tick_multiplier);

    auto d = std::make_shared<TuiData>();
    const Plan* shape = cfg_.plan ? &*cfg_.plan : baseline_plan_ ? &*baseline_plan_ : nullptr;
    d->board = build_board({f, tiers, shape, v.findings, rates ? &rate_map : nullptr});
    if (rates) {
        // A new history each time: frames being drawn keep the one they have.
        auto h = std::make_shared<History>(*history_);
        h->add(r.taken_ms, rate_map, [&](PortRef ref) {
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
    for (const Finding& x : d->board.findings) d->findings.push_back(row_of(f, x));
    d->findings.insert(d->findings.end(), perf_rows_.begin(), perf_rows_.end());
    d->pairs = pairs_;
    d->meta.source = cfg_.source;
    d->meta.live = cfg_.live;
    d->meta.interval_s = cfg_.interval_s;
    d->meta.readings = (latest_ ? latest_->meta.readings : 0) + 1;
    d->meta.taken_ms = r.taken_ms;
    d->meta.sweep_s = r.snapshot.source.duration_s;
    d->meta.expected = expected;
    previous_ = std::move(after);
    latest_ = d;
    return d;
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
