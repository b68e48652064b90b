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

#include <map>
#include <string>

#include "model/counters.h"
#include "model/duration.h"
#include "model/finding.h"
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

struct Thresholds {
    std::map<Counter, CounterLimit> counters;
    XmitWaitLimit xmit_wait;
};

/// The documented defaults.
Thresholds default_thresholds();
/// Defaults overridden by a file. Errors name the file, line and column.
Result<Thresholds> load_thresholds(const std::string& path);
Result<Thresholds> parse_thresholds(const std::string& text, const std::string& origin);

}  // namespace fabscope
