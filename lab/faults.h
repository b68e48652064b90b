#pragma once
// Faults the lab can inject, parsed from `fabscope lab fault` words and
// turned into simulator console commands (or, for width and speed, into a
// PortInfo Set on both ends of the link by a client of the lab).

#include <nlohmann/json.hpp>
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
/// "leaf01[5]"
std::string to_string(const PortTarget& t);

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
        RestoreCabling,
        Console
    };
    Kind kind = Kind::LinkDown;
    std::string word;                      ///< the fault's name as typed: "speed"
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

/// What applying a fault did.
struct FaultOutcome {
    std::string message;  ///< for people
    std::string answer;   ///< console: the simulator's answer
    /// width/speed: what the link runs now, read back from the port.
    std::string width;
    std::string speed;
};

/// The swap rules: a swap of both ends of one cable changes nothing and one
/// that touches a port an earlier swap moved cannot be undone cleanly, so both
/// are refused (exit 2). `peer_a`/`peer_b`: where the net file cables a and b.
Status check_swap(const std::vector<CableSwap>& in_force, const PortTarget& a,
                  const PortTarget& peer_a, const PortTarget& b, const PortTarget& peer_b);

/// Applies a fault to a running lab. Width and speed are read back from the
/// port: a change the simulator did not make is an error (exit 3).
Result<FaultOutcome> apply_fault(const LabState& lab, const Fault& f);

/// `lab fault --json` (docs/lab-fault.schema.json).
nlohmann::json fault_json(const Fault& f, const FaultOutcome& done);

/// Help text listing the fault words.
std::string fault_usage();

}  // namespace fabscope
