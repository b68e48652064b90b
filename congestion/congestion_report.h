#pragma once
// One congestion measurement: two counter readings an interval apart turned
// into the hottest ports, the congestion trees and their findings (plus the
// ports that did not answer the second reading), and its two renderings:
// the JSON report (docs/congestion.schema.json) and the summary for people,
// which names each tree's root first. Pure.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "congestion/vl_xmit_wait.h"
#include "congestion/xmit_wait_tree.h"
#include "model/counter_readings.h"
#include "model/thresholds.h"
#include "util/term.h"

namespace fabscope {

struct CongestionResult {
    double interval_s = 0;  ///< mean time between the two readings
    size_t ports_read = 0;  ///< ports with both readings
    size_t ports_unanswered = 0;
    std::vector<WaitingPort> hottest;  ///< the ports that waited at all, hottest first (at most 10)
    std::vector<CongestionTree> trees;
    std::vector<Finding> findings;  ///< roots, then victims, then unanswered ports
    /// Per-VL PortXmitWait, when it was read: the lanes that rose on each
    /// port that reported them in both readings, and the ports that do not
    /// report them ("per-VL not supported", no finding).
    bool per_vl_read = false;
    size_t ports_per_vl = 0;  ///< ports with per-VL counters in both readings
    std::map<PortRef, std::vector<VlRise>> vl_waits;
    std::vector<PortRef> per_vl_not_supported;
    bool failed() const;  ///< any warning or error
};

/// `after_complete`: the second reading asked every port of the first (not
/// stopped), so a port missing from it did not answer. `per_vl`: the per-VL
/// counters of both readings, when they were read.
CongestionResult analyse_congestion(const Fabric& f, const CounterReadings& before,
                                    const CounterReadings& after, bool after_complete,
                                    const Thresholds& t, const VlWaitReadings* per_vl = nullptr);

struct CongestionMeta {
    std::string started;      ///< ISO 8601
    std::string fabric_from;  ///< "ibsim0 port 1"
    int round = 1;            ///< --watch: which measurement this is
    bool interrupted = false;
    XmitWaitLimit limits;
};

nlohmann::json congestion_to_json(const Fabric& f, const CongestionResult& r,
                                  const CongestionMeta& m);
std::string render_congestion_summary(const Fabric& f, const CongestionResult& r,
                                      const CongestionMeta& m, const TextStyle& st);

}  // namespace fabscope
