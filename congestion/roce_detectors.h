#pragma once
// The RoCE congestion detectors: pure functions over the change between two
// readings of each host (and its DCB settings), each finding with its
// evidence (the counters, their deltas, the interval). Counter meanings are
// mlx5's (kernel mlx5 counters.rst; NVIDIA "Understanding mlx5 ethtool
// Counters" and "Understanding mlx5 Linux Counters and Status Parameters");
// rxe's sequence and retry counters map into the loss detector.
//
//   pfc_storm            pause time as a share of the interval on a priority,
//                        or the NIC's pause-storm events
//   pause_source         a host that sends pause frames: a slow receiver
//   pause_victim         a host that only receives them: paused by others
//   ecn_without_cnp      ECN-marked RoCE packets arrive, no CNP is sent
//                        (DCQCN off, or the priorities mapped wrong)
//   cnp_throughput_collapse  CNPs handled while throughput fell (needs the
//                        previous interval: --watch)
//   pfc_off_on_roce_priority  dcbnl says PFC is off on the RoCE priority
//   loss_on_lossless_class  discards, sequence errors, timeouts, retries
//   dcb_unavailable      (info) the netdev has no DCB: PFC cannot be checked

#include <map>
#include <string>
#include <vector>

#include "congestion/roce_reading.h"
#include "model/finding.h"
#include "model/thresholds.h"

namespace fabscope {

/// One host over one interval.
struct RoceChange {
    std::string host;
    double interval_s = 0;
    std::map<std::string, std::map<std::string, CounterChange>> rdma;  ///< by "DEV/P"
    std::map<std::string, std::map<std::string, CounterChange>> eth;   ///< by netdev
    std::map<std::string, std::string> netdev_of;                      ///< "DEV/P" -> netdev
    std::map<std::string, DcbSettings> dcb;                            ///< after's, by netdev
    std::vector<std::string> problems;  ///< what the second reading could not read
};

/// The changes between two readings of one host, by sample_changes (one rule
/// for deltas, clears and rates); the interval is the readings' stamps'.
RoceChange roce_change(const RoceHostReading& before, const RoceHostReading& after);

/// One device's change as a test that reads only its own device's
/// hw_counters sees it: `deltas` over `seconds`, under `device_port`
/// ("mlx5_0/1"); no ethtool statistics, no DCB settings.
RoceChange roce_change_from_deltas(std::string host, const std::string& device_port,
                                   const CounterMap& deltas, double seconds);

/// The priority RoCE uses on `netdev`: dcbnl's app table, else the thresholds'.
int roce_priority(const RoceChange& c, const std::string& netdev, const RoceLimits& t);

std::vector<Finding> detect_pfc_storm(const RoceChange& c, const RoceLimits& t);
std::vector<Finding> detect_pause_roles(const std::vector<RoceChange>& hosts, const RoceLimits& t);
std::vector<Finding> detect_ecn_without_cnp(const RoceChange& c, const RoceLimits& t);
std::vector<Finding> detect_cnp_collapse(const RoceChange& earlier, const RoceChange& now,
                                         const RoceLimits& t);
std::vector<Finding> detect_lossless_loss(const RoceChange& c, const RoceLimits& t);

/// Every detector over every host; `earlier` (the previous interval, same
/// hosts) may be empty. Storms first, then pause roles, ECN/CNP, loss, info.
std::vector<Finding> detect_roce(const std::vector<RoceChange>& hosts,
                                 const std::vector<RoceChange>& earlier, const RoceLimits& t);

/// The counters the loss detector reads: mlx5's and rxe's.
const std::vector<std::string>& roce_loss_counters();

}  // namespace fabscope
