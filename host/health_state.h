#pragma once
// What `fabscope health` remembers between runs: every port's error counters
// and when they were read, so the next run can tell whether they rose. A
// small JSON file, written atomically (a run killed half-way leaves the last
// one whole).

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "host/inventory.h"
#include "util/result.h"

namespace fabscope::host {

struct CounterState {
    std::string written;  ///< ISO 8601 UTC of the run that wrote it
    /// "mlx5_0/1" -> counter -> value
    std::map<std::string, std::map<std::string, uint64_t>> ports;
};

/// The key of a port in the state: "mlx5_0/1".
std::string port_key(const std::string& device, int port);

/// The state of an inventory read at `now`.
CounterState state_of(const HostInventory& inv, const std::string& now);

std::string state_to_text(const CounterState& s);
/// Parses a state file's text; errors name `origin`.
Result<CounterState> parse_state(const std::string& text, const std::string& origin);

/// Reads the state file: nullopt when there is none yet; an error (code 2)
/// when it is unreadable or not a state file.
Result<std::optional<CounterState>> load_state(const std::string& path);
/// Writes it atomically, making its folder; a folder or file we may not
/// write is code 3.
Status save_state(const CounterState& s, const std::string& path);

/// Where the state lives without --state: $XDG_STATE_HOME/fabscope, else
/// /var/lib/fabscope for root, else ~/.local/state/fabscope; health.json.
std::string default_state_path(const char* xdg_state_home, const char* home, bool root);

}  // namespace fabscope::host
