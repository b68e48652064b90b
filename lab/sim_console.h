#pragma once
// The simulator's console: ibsim reads commands on stdin (a fifo in the lab
// directory) and answers on stdout (ibsim.out), ending each answer with its
// "sim> " prompt. Commands are serialised with a lock file so the supervisor
// and `lab fault` never interleave.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

class SimConsole {
  public:
    explicit SimConsole(std::string lab_dir) : dir_(std::move(lab_dir)) {}

    /// Sends one command and returns the simulator's answer (without the
    /// prompt). Fails if the console does not answer within `timeout`.
    Result<std::string> command(const std::string& cmd, std::chrono::milliseconds timeout =
                                                            std::chrono::milliseconds(5000)) const;

    std::string fifo_path() const { return dir_ + "/console"; }
    std::string output_path() const { return dir_ + "/ibsim.out"; }

  private:
    std::string dir_;
};

struct SimClient {
    int number = 0;
    int pid = 0;
    std::string attached_at;  ///< node the client attached to
};

/// Parses the answer to `Attached`: "Client 0: pid 4756 connected at "h0001" ..."
std::vector<SimClient> parse_attached(const std::string& text);

/// From the answer to `Dump "node"`: the logical state of the node's port
/// `port` ("Active", "Initialize", "Down", ...), nullopt when the dump has
/// no such port. A port line, as ibsim 0.10 prints it:
/// `200001<TAB>[2]<TAB>"spine01"[2]<TAB>  4x 50G Active/LinkUp`, followed by
/// `<TAB># err_rate N` when the port drops MADs.
std::optional<std::string> dumped_port_state(const std::string& dump, int port);

/// Quotes a node id for the console: leaf01 -> "leaf01".
std::string console_quote(const std::string& node_id);

}  // namespace fabscope
