#pragma once
// Faults the lab can inject, parsed from `fabscope lab fault` words and
// turned into simulator console commands (or, for width and speed, into a
// PortInfo Set on both ends of the link by a client of the lab).

#include <optional>
#include <string>
#include <vector>

#include "lab/ib_lab.h"
#include "util/result.h"

namespace fabscope {

struct PortTarget {
    std::string node;  ///< node id in the net file: "leaf01", "h0003"
    int port = 0;
};

/// "leaf01[5]" or "leaf01:5".
Result<PortTarget> parse_port_target(const std::string& s);

struct Fault {
    enum class Kind {
        LinkDown,
        LinkUp,
        Swap,
        Width,
        Speed,
        Counter,
        MadDrop,
        Silent,
        Answer,
        Console
    };
    Kind kind = Kind::LinkDown;
    PortTarget target;                     ///< for silent/answer only the node
    PortTarget other;                      ///< swap: the second port
    std::string value;                     ///< width ("1x") or speed ("fdr")
    std::vector<std::string> assignments;  ///< counter: "PortCounters.SymbolErrorCounter=5000"
    int percent = 0;                       ///< MAD drop rate
    std::string attribute;                 ///< MAD drop: attribute id, "" = all
    std::string raw;                       ///< console: the command as typed
};

Result<Fault> parse_fault(const std::vector<std::string>& words);

/// The console command(s) for a fault the simulator applies itself; empty for
/// width/speed, which need a PortInfo Set from a client.
std::vector<std::string> console_commands(const Fault& f);

/// Applies a fault to a running lab; returns what was done, for people.
Result<std::string> apply_fault(const LabState& lab, const Fault& f);

/// Help text listing the fault words.
std::string fault_usage();

}  // namespace fabscope
