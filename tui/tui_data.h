#pragma once
// Everything one frame of the TUI draws from, immutable once published, and
// the builder that turns each reading of the fabric into it: tiers, findings
// (`validate`'s pipeline on the same inputs: the plan or baseline, the
// counters since each port's first reading), counter rates between readings
// and their history, the perf pair matrix (perf runs and mesh runs), a
// congestion report.
// Pure: the polling thread feeds it readings; tests feed it fabrics.

#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "check/validate.h"
#include "model/counter_readings.h"
#include "model/snapshot.h"
#include "model/thresholds.h"
#include "pairtest/results/compare.h"
#include "reports/congestion_doc.h"
#include "tui/board.h"
#include "tui/history.h"
#include "tui/pairs.h"
#include "tui/perf_files.h"

namespace fabscope::tui {

/// One reading of the fabric: a sweep with counters, or a loaded snapshot.
struct Reading {
    Snapshot snapshot;
    std::vector<Finding> problems;  ///< what the sweep could not read
    int64_t taken_ms = 0;           ///< Unix time, milliseconds
};

/// A snapshot file as a reading: taken when its newest counter was read
/// (now, if it has no counters).
Reading reading_from_file(Snapshot s);

/// A finding as the findings view lists it: fabric or perf.
struct FindingRow {
    Severity severity = Severity::Warning;
    std::string kind;
    std::string summary;
    std::string evidence;            ///< pretty JSON
    std::vector<std::string> where;  ///< "leaf01[19] (0x…, LID 5)"
    std::vector<std::string> ports;  ///< "leaf01[19]": what Enter shows the counters of
};

struct TuiMeta {
    std::string source;  ///< "mlx5_0 port 1", "fabric.json"
    bool live = false;
    double interval_s = 0;  ///< between readings, live
    size_t readings = 0;
    int64_t taken_ms = 0;  ///< the newest reading
    double sweep_s = 0;    ///< how long it took
    std::string expected;  ///< what links are compared with: "plan.yaml", "the first reading"
    std::string error;     ///< the last reading failed: why (the data shown is older)
};

struct TuiData {
    TuiMeta meta;
    Board board;
    std::vector<FindingRow> findings;  ///< fabric then perf, errors first
    std::shared_ptr<const History> history;
    PairMatrix pairs;
    std::shared_ptr<const CongestionDoc> congestion;  ///< --congestion; null without
    std::string congestion_from;                      ///< its file name
    size_t count(Severity s) const;
};

struct BuilderConfig {
    std::string source;
    bool live = false;
    double interval_s = 0;
    /// Rates (the links' and counters' views, a rising counter's recent
    /// rise) are over the readings of the last this many seconds, at least
    /// the last two: a burst shows at its size and leaves, while the errors
    /// since the first reading stay beside it.
    double rate_window_s = 60;
    std::optional<Plan> plan;          ///< --plan
    std::optional<Snapshot> baseline;  ///< --baseline
    Thresholds thresholds = default_thresholds();
    std::vector<perf::PerfReport> perf;               ///< --perf
    std::vector<std::string> perf_names;              ///< their file names
    std::vector<MeshRunDoc> mesh;                     ///< mesh run reports given to --perf
    std::vector<CollectiveBench> collectives;         ///< nccl-tests outputs given to --perf
    std::vector<ProbeDoc> probes;                     ///< probe agents' /probe.json given to --perf
    std::shared_ptr<const CongestionDoc> congestion;  ///< --congestion
    std::string congestion_name;                      ///< its file name
};

class DataBuilder {
  public:
    explicit DataBuilder(BuilderConfig config);

    /// Folds in one reading; returns the data to show now.
    std::shared_ptr<const TuiData> add(const Reading& r);
    /// A reading failed: the last data, saying why it is not newer.
    std::shared_ptr<const TuiData> failed(const std::string& why, int64_t at_ms);
    /// New perf and mesh run reports (files rewritten while the TUI runs).
    void set_perf(PerfInputs in);
    const std::shared_ptr<const TuiData>& latest() const { return latest_; }

  private:
    /// What `validate` is given for the same inputs: the plan, the baseline,
    /// the first reading (`since`), the sweep's problems, and the counters of
    /// each port's first reading
    /// with, after the first, this reading's (a rise anywhere in between is
    /// a finding, as over `validate --interval`); `sm_read`: the reading
    /// asked SMInfo (the subnet managers are checked).
    ValidationInput check_input(const Fabric& f, const Tiers& tiers,
                                const std::vector<Finding>& problems, const CounterReadings& first,
                                const CounterReadings* now, bool sm_read) const;

    /// Drops the readings that started before the window, keeping the last
    /// one however old: the rates need a start.
    void trim_window(int64_t now_ms);

    BuilderConfig cfg_;
    std::optional<Plan> baseline_plan_;  ///< from --baseline
    std::optional<Plan> first_shape_;    ///< the first reading: drawn, changes found against it
    CounterReadings first_counters_;     ///< each port's first counter reading
    /// The readings' counters within the rate window (and the one before
    /// it, when nothing else is), oldest first: the rates' start.
    struct Taken {
        int64_t at_ms = 0;
        CounterReadings counters;
    };
    std::deque<Taken> window_;
    std::shared_ptr<History> history_;
    std::shared_ptr<const TuiData> latest_;
    PairMatrix pairs_;
    std::vector<FindingRow> perf_rows_;
};

}  // namespace fabscope::tui
