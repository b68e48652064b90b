#pragma once
// What the switch ports at both ends of a cable counted over a mesh run on
// InfiniBand (two PMA readings, before the first round and after the last),
// as a suspect's evidence: the readings, each port's changes, and the words
// a summary or a ticket gives them. Written by a mesh run
// (mesh/switch_counters.h), read back by the reports.

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "model/counter_readings.h"
#include "model/fabric.h"

namespace fabscope::perf {

/// One reading of the switch ports.
struct SwitchCounterRead {
    CounterReadings ports;        ///< every port that answered
    std::vector<PortRef> failed;  ///< asked and did not answer
    std::string error;            ///< why no reading could be made (no umad access, ...)
};
using ReadSwitchCounters = std::function<SwitchCounterRead()>;

struct SwitchCounters {
    std::optional<SwitchCounterRead> before;
    std::optional<SwitchCounterRead> after;
    /// Why a reading was not made ("not asked (--no-switch-counters)").
    std::string skipped;
    /// Why the counters say nothing ("" when both readings were made).
    std::string why_not() const;
};

/// What one switch port counted over the run.
struct PortEvidence {
    PortRef port;
    std::string name;    ///< "leaf03[17]"
    bool sends = false;  ///< the lane leaves by this port (else it arrives by it)
    /// Every counter that rose, by IBA name ("PortXmitWait"), and those that
    /// went down between the readings (cleared: the change is a lower bound).
    std::map<std::string, uint64_t> changes;
    std::vector<std::string> cleared;
    /// Counters stuck at their width's top after the run (a 16-bit
    /// SymbolErrorCounter at 65535): they could not count what happened.
    std::vector<std::string> saturated;
    std::string unread;  ///< why this port has no changes ("" when it has)
};

/// The errors and waits among a port's changes, largest first:
/// "SymbolErrorCounter +5000, PortRcvErrors +12" ("" when none rose).
std::string port_events_line(const PortEvidence& p);

/// What a lane's switch ports say, for a summary or a ticket: "its switch
/// ports counted leaf01[4] (sending) PortXmitWait +90000; spine02[1]
/// (receiving) SymbolErrorCounter +4000", "its switch ports counted no errors
/// or waits", each followed by the ports that were not read ("(spine02[1] did
/// not answer the PMA)"), or "its switch ports were not read (...)" when
/// neither was; "" for no ports.
std::string switch_ports_phrase(const std::vector<PortEvidence>& ports);

nlohmann::json port_evidence_json(const std::vector<PortEvidence>& ports);

}  // namespace fabscope::perf
