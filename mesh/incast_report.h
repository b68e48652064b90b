#pragma once
// Latency under load, what an incast run measured and what it means: the
// median and p99 of a latency probe toward a receiver alone and while K
// senders WRITE toward the same receiver, the rise (the queueing delay the
// incast adds), the senders' bandwidth, and the congestion counters of every
// host over the loaded interval through the RoCE detectors. Pure: the loop
// that measures is mesh/incast_run; the JSON is docs/mesh-incast.schema.json.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "congestion/roce_detectors.h"
#include "mesh/run_data.h"
#include "model/finding.h"
#include "model/thresholds.h"
#include "rdma/stats.h"
#include "rdma/test_spec.h"

namespace fabscope::perf {

/// One run of the latency probe.
struct IncastProbe {
    bool measured = false;
    std::string error;  ///< "" when it ran
    LatencyStats stats;
    double seconds = 0;  ///< how long it probed
};

/// One sender's WRITE flow toward the receiver during the loaded phase.
struct IncastFlow {
    int src = 0;  ///< rank
    bool measured = false;
    bool ok = false;
    std::string error;
    double avg_gbps = 0;
    double min_window_gbps = 0;
    uint64_t bytes = 0;
    double seconds = 0;
};

/// One host's counters over the loaded interval.
struct IncastCongestion {
    int rank = 0;
    RoceChange change;
    CounterMap ip_ecn;  ///< IpExt ECN counters' rise (congestion/ip_ecn.h); empty: unread
    std::string error;  ///< why there is no reading ("" when there is)
};

struct IncastData {
    TestSpec spec;   ///< the senders' WRITE bandwidth test
    TestSpec probe;  ///< the probe's READ latency test
    std::string launcher;
    std::vector<MeshRank> ranks;
    int receiver = 0;
    int prober = 1;
    std::vector<int> senders;
    IncastProbe idle;
    IncastProbe loaded;
    std::vector<IncastFlow> flows;  ///< one per sender
    std::vector<IncastCongestion> congestion;
    std::vector<MeshFinding> findings;  ///< rank-gone, rank-unavailable, flow-failed, probe-failed
    std::string status = "running";     ///< "complete", "interrupted", "aborted"
    std::string phase = "connect";      ///< the last phase begun: connect, idle, loaded, done
    double wall_seconds = 0;
};

struct IncastAnalysis {
    bool have_rise = false;  ///< both probes measured
    double median_rise_us = 0;
    double p99_rise_us = 0;
    double total_gbps = 0;  ///< the senders' together
    /// The probe's and the detectors' findings (latency_under_load, the RoCE
    /// detectors over every host, ecn_without_cnp from the kernel's IP ECN counters).
    std::vector<Finding> findings;
    bool failed() const;  ///< a warning or an error among the findings
};

IncastAnalysis analyse_incast(const IncastData& d, const Thresholds& t);

nlohmann::json incast_json(const IncastData& d, const IncastAnalysis& a, const Thresholds& t);

/// "latency under load: median 0.21 -> 16.8 ms (+16.6 ms), p99 ...", then
/// the senders, then findings; one line each.
std::vector<std::string> incast_summary(const IncastData& d, const IncastAnalysis& a);

}  // namespace fabscope::perf
