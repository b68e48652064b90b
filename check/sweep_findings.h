#pragma once
// The findings of one sweep: what the sweep could not read, the links'
// checks (check/link_checks.h) and the subnet managers as SMInfo showed them
// (check/sm_checks.h). `discover`, `sweep`, the exporter and validate's
// pipeline all take a sweep's findings from here, so the snapshot's
// findings, a `--prom` file and the exporter's `/metrics` agree on one
// fabric; validate adds its own checks (plan, counters, routing) on top.

#include <optional>
#include <vector>

#include "check/sm_checks.h"
#include "model/finding.h"
#include "model/snapshot.h"
#include "model/tiers.h"

namespace fabscope {

struct SweepFindingsInput {
    const Snapshot& snapshot;       ///< its fabric, and whether the sweep read SMInfo
    const Tiers& tiers;             ///< classify_tiers of the snapshot's fabric
    std::vector<Finding> problems;  ///< what the sweep could not read (SweepOutput::problems)
    /// What validate knows besides the sweep, for the subnet managers: the
    /// standbys its plan asks for, and SMInfo read again an interval later.
    std::optional<int> planned_standby;
    const SmReadings* sm_after = nullptr;
    double sm_interval_s = 0;
};

struct SweepFindings {
    std::vector<Finding> problems;         ///< what the sweep could not read
    std::vector<Finding> links;            ///< widths, speeds, port states
    std::vector<Finding> subnet_managers;  ///< none when the sweep did not read SMInfo
    /// All of them, in that order.
    std::vector<Finding> all() &&;
};

SweepFindings sweep_findings(SweepFindingsInput in);

}  // namespace fabscope
