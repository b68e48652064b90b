#pragma once
// Post-maintenance validation as one pure function, and the one check
// pipeline of every front end (validate, the TUI, the reports): everything
// fabscope knows to check about a fabric, against an optional plan and an
// optional baseline, with counter rates when there are two readings. The plan's and
// baseline's findings supersede the guesses made without them (a planned
// port that is Polling is a link down, not "maybe unused").

#include <string>
#include <string_view>
#include <vector>

#include "model/counter_checks.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "model/plan.h"
#include "model/port_label.h"
#include "model/routing_checks.h"
#include "model/sm_checks.h"
#include "model/thresholds.h"
#include "model/tiers.h"

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
    /// checks its loops again per VL: model/vl_credit_loops.h); nullptr:
    /// validate makes it, on one VL.
    const RoutingAnalysis* routing = nullptr;
    /// The sweep's own findings beyond `sweep_problems`, made beforehand
    /// (check/sweep_findings.h, as discover and the exporter make them): the
    /// links' checks, and the subnet managers' when `sm_read`. nullptr:
    /// validate makes them (a caller without a sweep: the TUI, tests).
    const std::vector<Finding>* link_findings = nullptr;
    const std::vector<Finding>* sm_findings = nullptr;
};

/// A check made. Its id and name stay the same from run to run of the same
/// command, whatever the fabric (what a CI server trends a test case by);
/// the detail says what it covered this time.
struct CheckMade {
    std::string id;      ///< "cabling_plan"
    std::string name;    ///< "cabling against the plan"
    std::string detail;  ///< "96 links"; "" when there is nothing to add
    /// "cabling against the plan (96 links)": for people.
    std::string text() const;
};

/// A cable the plan (or the baseline) expects. Each end is named as the plan
/// names it, with the GUID of the node that answers to that name (the
/// planned GUID, or 0, for a node that is missing).
struct ExpectedCable {
    PortLabel a;
    PortLabel b;
};

struct Validation {
    std::vector<Finding> findings;  ///< errors first
    std::vector<CheckMade> checks;  ///< what was checked
    /// The plan's cables (else the baseline's); empty without either.
    std::vector<ExpectedCable> expected;
    bool failed() const;  ///< any warning or error
    size_t count(Severity s) const;
};

/// The id of the check among `made` that a finding of `kind` comes from:
/// cabling kinds to the plan's check (else the baseline's, else the
/// changes'), counter kinds to the rates (else the saturation check), and
/// so on; a kind no check claims (what the sweep could not read) to the
/// first check, the inventory.
std::string check_of(std::string_view kind, const std::vector<CheckMade>& made);

Validation validate(const ValidationInput& in);

/// Errors first, then warnings, then info; stable within a severity.
void sort_by_severity(std::vector<Finding>& findings);

}  // namespace fabscope

namespace fabscope {

/// What changed from `before` to `after`: cabling and rates (a baseline
/// diff), and error counters as rates when both snapshots hold counters.
Validation diff_snapshots(const Fabric& before, const Fabric& after, const Thresholds& t);

}  // namespace fabscope
