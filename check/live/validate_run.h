#pragma once
// `fabscope validate`'s pipeline: the fabric swept through the local port
// (or a snapshot loaded), every port's counters read again after the
// interval, every check of model/validation, and PortXmitWait as congestion
// trees (roots and victims, as `fabscope congestion` names them) in place of
// one finding per waiting port. cli/ parses the flags and writes the reports.

#include <optional>
#include <string>
#include <vector>

#include "check/sm_checks.h"
#include "discover/live_session.h"
#include "model/counter_readings.h"
#include "model/plan.h"
#include "model/snapshot.h"
#include "model/thresholds.h"
#include "model/validation.h"
#include "util/duration.h"
#include "util/interrupt.h"
#include "util/progress.h"
#include "util/result.h"

namespace fabscope {

/// What a fabric is checked against.
struct ValidateInputs {
    std::optional<Plan> plan;
    std::optional<Plan> baseline;  ///< a good snapshot's fabric, as a plan
    Thresholds thresholds;
    Millis interval{30000};  ///< between the counter readings (0: one reading)
};

struct ValidateOutcome {
    Snapshot snapshot;
    Validation validation;
    std::string fabric_from;  ///< "ibsim0 port 1", or the snapshot's file
    /// The second reading (none with one reading, or when stopped before it).
    std::optional<CounterReadings> after;
    int counter_readings = 1;  ///< 0 (none), 1 (no rates) or 2
    double interval_s = 0;     ///< between the readings, as measured
    bool interrupted = false;  ///< stopped: what was read is checked
    /// SMInfo read again with the counters (none with one reading).
    std::optional<SmReadings> sm_after;
    double sm_interval_s = 0;  ///< from the sweep's end to that reading
    /// The forwarding tables' analysis, its loops checked per VL (live only).
    std::optional<RoutingAnalysis> routing;
};

/// The live fabric through `session`; `progress` shows the wait. An error
/// only when no sweep could run; a Ctrl-C keeps what was read.
Result<ValidateOutcome> validate_live(LiveSession& session, const ValidateInputs& in,
                                      Progress progress, const StopToken& stop);

/// A snapshot, with the one reading of counters it holds.
ValidateOutcome validate_snapshot(Snapshot snapshot, std::string from, const ValidateInputs& in);

}  // namespace fabscope
