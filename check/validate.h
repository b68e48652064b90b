#pragma once
// Post-maintenance validation as one pure function, and the one check
// pipeline of every front end (validate, the TUI, the reports): everything
// fabscope knows to check about a fabric, against an optional plan and an
// optional baseline, with counter rates when there are two readings. The plan's and
// baseline's findings supersede the guesses made without them (a planned
// port that is Polling is a link down, not "maybe unused").

#include <vector>

#include "check/routing_checks.h"
#include "check/sm_checks.h"
#include "model/counter_readings.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "model/plan.h"
#include "model/thresholds.h"
#include "model/tiers.h"
#include "model/validation.h"

namespace fabscope {

struct ValidationInput {
    const Fabric& fabric;
    const Tiers& tiers;
    std::vector<Finding> sweep_problems;      ///< what the sweep could not read
    const CounterReadings* before = nullptr;  ///< first reading (the sweep's)
    const CounterReadings* after = nullptr;   ///< second reading, an interval later
    const Plan* plan = nullptr;
    const Plan* baseline = nullptr;  ///< a known-good snapshot, as a plan
    Thresholds thresholds = default_thresholds();
    /// The fabric as first seen (the TUI's first reading), as a plan: what
    /// changed since is a finding (a link gone down is link_down), and it
    /// replaces the guesses about the same ports; unlike a baseline it vouches
    /// for nothing, so a link bad from the start is still found.
    const Plan* since = nullptr;
    /// The second reading asked every port of the first (it was not stopped):
    /// a port missing from it did not answer, which is a finding.
    bool after_complete = false;
    /// The sweep asked SMInfo of the ports claiming IsSM (SnapshotSource::sm_read);
    /// SMInfo read again an interval later (nullptr: one reading).
    bool sm_read = false;
    const SmReadings* sm_after = nullptr;
    double sm_interval_s = 0;
    /// The forwarding tables' analysis made beforehand (a live validate
    /// checks its loops again per VL: check/vl_credit_loops.h); nullptr:
    /// validate makes it, on one VL.
    const RoutingAnalysis* routing = nullptr;
    /// The sweep's own findings beyond `sweep_problems`, made beforehand
    /// (check/sweep_findings.h, as discover and the exporter make them): the
    /// links' checks, and the subnet managers' when `sm_read`. nullptr:
    /// validate makes them (a caller without a sweep: the TUI, tests).
    const std::vector<Finding>* link_findings = nullptr;
    const std::vector<Finding>* sm_findings = nullptr;
};

Validation validate(const ValidationInput& in);

/// What changed from `before` to `after`: cabling and rates (a baseline
/// diff), and error counters as rates when both snapshots hold counters.
Validation diff_snapshots(const Fabric& before, const Fabric& after, const Thresholds& t);

}  // namespace fabscope
