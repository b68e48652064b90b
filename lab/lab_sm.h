#pragma once
// The lab's subnet managers beyond `lab up`'s: waiting for their sweeps,
// further OpenSMs on host HCAs (`lab sm start|stop`: a standby, or a rival
// master), and the partition file they all read (`lab partitions`).

#include <chrono>
#include <functional>
#include <string>

#include "lab/ib_lab.h"
#include "util/result.h"

namespace fabscope {

/// How long the lab waits for its SM (a fault, new partitions) before it says so.
inline constexpr std::chrono::seconds kSmWait{15};

/// SUBNET UP lines in the lab's (plane 1's) OpenSM log so far.
size_t subnet_ups(const LabState& lab);
/// SIGHUP to the lab's own SMs (recorded by `lab up`): a heavy sweep now.
void ask_for_heavy_sweep(const LabState& lab);
/// Polls `done` every `every` until it holds or 15 s have passed, asking the
/// SM for a sweep each second it does not; returns what `done` said last.
bool wait_for_sm(const LabState& lab, std::chrono::milliseconds every,
                 const std::function<bool()>& done);
/// Until the SM logs a SUBNET UP after `before` of them (at most 15 s).
void wait_for_subnet_up(const LabState& lab, size_t before);

/// Starts an OpenSM on `node`'s HCA with `priority` (0..15), records it in
/// the lab's state and waits until it says which state it entered (STANDBY,
/// or MASTER for a rival). Returns that state's line.
Result<std::string> lab_sm_start(LabState& lab, const std::string& node, int priority);
/// Stops the OpenSM `lab sm start` started on `node` (by its recorded PID).
Status lab_sm_stop(LabState& lab, const std::string& node);

/// Copies `file` (OpenSM's partitions.conf syntax) to the lab's partition
/// file and has the SMs apply it: a heavy sweep, waited for.
Status lab_partitions(const LabState& lab, const std::string& file);

}  // namespace fabscope
