#pragma once
// How much a counter may rise before it is a finding, as a count per period
// ("SymbolErrorCounter: 10 per 1h"), scaled to the measured interval; and
// how much of the time a port may spend waiting to transmit. Defaults are in
// the code and in docs/user-guide.md; a file (YAML or JSON) overrides them:
//
//   fabscope_thresholds: 1
//   counters:
//     SymbolErrorCounter: {limit: 10, per: 1h}
//     LinkDownedCounter: {limit: 0, per: 1h, severity: error}
//   xmit_wait: {warn: 0.05, error: 0.20, tick_multiplier: 1}
//   ber: {warn: 1e-12, error: 1e-10, raw_warn: 1e-5, raw_error: 1e-4}
//   routing: {imbalance: 1.5}
//   roce: {priority: 3, pause_share_warn: 0.05, pause_share_error: 0.25,
//          pause_frames_per_s: 10, ecn_marked_min: 100, collapse_ratio: 0.5,
//          loss_per_s: 1}
//   latency_under_load: {p99_rise_warn_us: 100, p99_rise_error_us: 1000}
//   collective: {busbw_gbps: 180}

#include <map>
#include <optional>
#include <string>

#include "model/counters.h"
#include "model/finding.h"
#include "util/duration.h"
#include "util/result.h"

namespace fabscope {

struct CounterLimit {
    uint64_t limit = 0;  ///< increase allowed per `per`; 0: any increase is a finding
    Millis per{3600000};
    Severity severity = Severity::Warning;
    /// The most the counter may rise over `interval` without a finding.
    double allowed(Millis interval) const;
};

struct XmitWaitLimit {
    double warn = 0.05;  ///< share of the interval spent waiting with data to send
    double error = 0.20;
    /// A PortXmitWait tick is this many byte times of a lane at the link's
    /// speed (PortSamplesControl.Tick + 1; `perfquery -c` shows it).
    int tick_multiplier = 1;
};

/// Bit error rate (check/ber.h): a port's received BER whose 95 % lower
/// confidence bound is above `warn` is a warning, above `error` an error.
/// The raw (pre-FEC) BER of RS-FEC ports has its own: RS(544,514), HDR's and
/// NDR's FEC, delivers 1e-12 up to a raw BER near 2.4e-4 (IEEE 802.3's limit
/// for PAM4 lanes); 1e-5 leaves a twentieth of that margin, 1e-4 almost none.
struct BerLimit {
    double warn = 1e-12;
    double error = 1e-10;
    double raw_warn = 1e-5;
    double raw_error = 1e-4;
};

/// The forwarding tables (check/routing_checks.h): a leaf whose busiest
/// uplink carries more than `imbalance` times the mean of its uplinks.
struct RoutingLimits {
    double imbalance = 1.5;
};

/// The RoCE detectors' limits (congestion/roce_detectors.h).
struct RoceLimits {
    int priority = 3;  ///< the RoCE priority where dcbnl's app table does not say
    /// Pause time (pause_duration) as a share of the interval, per priority.
    double pause_share_warn = 0.05;
    double pause_share_error = 0.25;
    /// A host sends (or receives) pauses when at least this many frames a second.
    double pause_frames_per_s = 10;
    /// ECN-marked RoCE packets over the interval before a CNP is expected.
    uint64_t ecn_marked_min = 100;
    /// Throughput below this share of the previous interval's, with CNPs handled: a collapse.
    double collapse_ratio = 0.5;
    /// Loss signals (discards, sequence errors, timeouts, retries) a second on the RoCE class.
    double loss_per_s = 1;
};

/// How much a latency probe's p99 may rise while an incast runs toward its
/// receiver (queueing delay) before it is a finding (mesh/incast_report.h).
struct LoadLatencyLimit {
    double p99_rise_warn_us = 100;
    double p99_rise_error_us = 1000;
};

/// What a collective benchmark (nccl-tests' all_reduce_perf and the like,
/// read by `report`) must reach: its bus bandwidth at the largest message,
/// GB/s as nccl-tests prints it; unset: not judged.
struct CollectiveLimits {
    std::optional<double> busbw_gbps;
};

struct Thresholds {
    std::map<Counter, CounterLimit> counters;
    XmitWaitLimit xmit_wait;
    BerLimit ber;
    RoutingLimits routing;
    RoceLimits roce;
    LoadLatencyLimit load_latency;
    CollectiveLimits collective;
};

/// The documented defaults.
Thresholds default_thresholds();
/// Defaults overridden by a file. Errors name the file, line and column.
Result<Thresholds> load_thresholds(const std::string& path);
Result<Thresholds> parse_thresholds(const std::string& text, const std::string& origin);

}  // namespace fabscope
