#pragma once
// The fabric side of a mesh run's evidence on InfiniBand: the PMA counters of
// the switch ports at both ends of every switch-to-switch cable, read by rank
// 0 before the first round and after the last. A lane suspect (a cable one
// way) then carries what its sending port counted (PortXmitDiscards,
// PortXmitWait: it could not send) and what its receiving port counted
// (SymbolErrorCounter, PortRcvErrors, LinkErrorRecoveryCounter: what arrived
// was damaged), the counters a vendor's ticket asks for. The reading is a
// function the caller gives (the CLI's umad PMA reader; the tests' own); what
// is made of two readings is pure.

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "model/counter_checks.h"
#include "model/fabric.h"
#include "perf/mesh_paths.h"

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

/// The switch ports of the fabric's switch-to-switch cables: what to read.
std::set<PortRef> switch_link_ports(const Fabric& f);

/// The ports at both ends of `lane`, its sender first; nothing when the
/// counters were not read at all.
std::vector<PortEvidence> lane_port_evidence(const Fabric& f, Lane lane, const SwitchCounters& c);

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
