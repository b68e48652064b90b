#pragma once
// The subnet managers as SMInfo shows them: one master, the standbys the
// plan asks for, every port that claims to be an SM answering, and a master
// that keeps working (ActCount rising between two readings an interval
// apart, by more than the readings' own answers).

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"

namespace fabscope {

/// SMInfo read again after an interval, by port.
using SmReadings = std::map<PortRef, SmInfo>;

/// An SM sweeps every 10 s by default (OpenSM's sweep_interval): a shorter
/// interval cannot tell an idle master from a stuck one.
inline constexpr double kSmActivityMinIntervalS = 15.0;

struct SmCheckInput {
    const Fabric& fabric;
    /// The sweep asked SMInfo of every port claiming IsSM (SnapshotSource::sm_read).
    bool sm_read = false;
    std::optional<int> planned_standby;
    const SmReadings* after = nullptr;  ///< the second reading, if one was made
    double interval_s = 0;              ///< between the readings
};

/// `sm_not_answering` (a port claims IsSM and does not answer SMInfo),
/// `sm_no_master`, `sm_masters` (more than one), `sm_standby_missing`
/// (fewer than planned), `sm_inactive` (the master's ActCount did not move
/// over an interval long enough to tell).
std::vector<Finding> check_subnet_managers(const SmCheckInput& in);
/// "master h0001[1] (priority 0), 1 standby; ActCount +12 in 20 s".
std::string sm_check_detail(const SmCheckInput& in);

}  // namespace fabscope
