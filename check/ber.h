#pragma once
// Bit error rate from SymbolErrorCounter: the errors a port counted on what
// it received over an interval, divided by the bits its link could carry at
// its active width and signalling speed in that interval (as ibdiagnet
// computes it; default threshold 1e-12 as ibdiagnet's). A count is not a
// rate: one error in a second is no proof of a bad link, so a finding needs
// the lower end of the count's 95 % confidence interval (Poisson) above the
// threshold. The interval needed to vouch for the threshold is the time the
// link must run without an error for the upper end to fall below it. On
// FDR and later, SymbolErrorCounter counts what the FEC could not repair
// (ibdiagnet's "effective" BER); where a port has RS-FEC counters
// (PortExtendedSpeedsCounters), the symbols RS-FEC repaired give the raw
// BER, the margin left before errors get through.

#include <optional>
#include <string>
#include <vector>

#include "model/counter_readings.h"
#include "model/finding.h"
#include "model/link_rate.h"
#include "model/thresholds.h"

namespace fabscope {

struct BerEstimate {
    uint64_t errors = 0;       ///< symbol errors over the interval
    double seconds = 0;        ///< the interval
    double line_gbps = 0;      ///< lanes × signalling rate per lane
    double bits = 0;           ///< bits the link carried at that rate over the interval
    double ber = 0;            ///< errors / bits
    double lower = 0;          ///< 95 % one-sided lower bound (0 without errors)
    double upper = 0;          ///< 95 % one-sided upper bound
    double vouch_seconds = 0;  ///< error-free time that proves BER below BerLimit::warn
};

/// The signalling rate of a link in Gb/s, lanes x lane_signal_gbps (212.5 for
/// 4X HDR): the bits a BER divides by, and the exporter's rate for it.
double link_signal_gbps(Width width, Speed speed);

/// The estimate for `errors` over `seconds` on a link of `width` × `speed`.
/// Nothing for a non-positive interval.
std::optional<BerEstimate> estimate_ber(uint64_t errors, double seconds, Width width, Speed speed,
                                        double threshold);

/// Seconds a link of `width` × `speed` must run without a symbol error to
/// show, at 95 % confidence, that its BER is below `threshold`.
double seconds_to_vouch(Width width, Speed speed, double threshold);

/// One "bit_error_rate" finding per port whose received (effective: after
/// any FEC) BER is above the limit with confidence, from two readings an
/// interval apart; and one "raw_bit_error_rate" finding per port with RS-FEC
/// counters whose corrected symbols over the bits make a raw (pre-FEC) BER
/// above BerLimit::raw_warn (a lower bound: a corrected symbol had at least
/// one bit wrong).
std::vector<Finding> check_ber(const Fabric& f, const CounterReadings& before,
                               const CounterReadings& after, const BerLimit& limit);

/// What the check could vouch for, for validate's check list: "96 ports over
/// 10 s; error-free ports are below 1e-12 where the interval reaches 14 s (4X
/// HDR; 75 s at 4X QDR)".
std::string ber_check_detail(const Fabric& f, const CounterReadings& before,
                             const CounterReadings& after, const BerLimit& limit);

}  // namespace fabscope
