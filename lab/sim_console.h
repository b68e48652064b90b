#pragma once
// The simulator's console: ibsim reads commands on stdin (a fifo in the lab
// directory) and answers on stdout (ibsim.out), ending each answer with its
// "sim> " prompt. Commands are serialised with a lock file so the supervisor
// and `lab fault` never interleave.

#include <chrono>
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

/// Quotes a node id for the console: leaf01 -> "leaf01".
std::string console_quote(const std::string& node_id);

}  // namespace fabscope
