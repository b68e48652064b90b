#pragma once
// The built-in InfiniBand lab: ibsim simulating a fabric from a net file,
// OpenSM programming it, and a small supervisor of ours that keeps the
// simulator's console open and frees the slots of clients that died.
// Everything lives in one directory, and every process is recorded there by
// PID and start time, so `lab down` stops exactly the lab's own processes.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "lab/topology.h"
#include "util/process.h"
#include "util/result.h"

namespace fabscope {

inline constexpr const char* kUmad2simPath = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

struct LabUpOptions {
    std::string dir;                    ///< lab directory (see lab_dir())
    std::optional<LeafSpineSpec> spec;  ///< generate this topology...
    std::string net_file;               ///< ...or use this ibsim net file
    std::chrono::seconds subnet_up_timeout{300};
};

struct LabState {
    std::string dir;
    std::string sockname;  ///< IBSIM_SOCKNAME: unique per lab, so labs run side by side
    std::string net_file;  ///< the net file the simulator runs (a copy in dir)
    std::string created;
    NetFileStats stats;
    double subnet_up_s = 0;
    ProcessId ibsim;
    ProcessId opensm;
    ProcessId supervisor;
};

/// Where labs live: $FABSCOPE_LAB_BASE, else $XDG_RUNTIME_DIR/fabscope-lab,
/// else /tmp/fabscope-lab-UID.
std::string lab_base_dir();
/// The directory of lab `name`, or `dir` itself when given.
std::string lab_dir(const std::string& name, const std::string& dir);

/// Starts ibsim and OpenSM, waits for SUBNET UP, starts the supervisor and
/// records it all in dir/state.json. On failure everything started is stopped.
Result<LabState> lab_up(const LabUpOptions& opts);
/// Stops the lab's processes (by recorded PID and start time) and removes
/// its directory unless `keep`.
Status lab_down(const std::string& dir, bool keep);
Result<LabState> load_lab_state(const std::string& dir);
/// One line per process: role, pid, running or not.
std::string lab_status(const LabState& s);

/// Environment a libibumad program needs to talk to this lab.
std::map<std::string, std::string> lab_client_env(const LabState& s);

/// Runs `argv` as a client of the lab (the simulator's preload library,
/// this lab's socket) in the caller's directory; returns its exit code.
/// A deadline of 0 waits forever. Frees the simulator slots of dead clients first.
Result<int> lab_exec(const LabState& s, const std::vector<std::string>& argv,
                     std::chrono::milliseconds deadline);

/// Frees the simulator slots of clients whose process is gone. Returns how many.
Result<int> reap_dead_clients(const std::string& dir);

/// The supervisor's main loop (hidden subcommand `lab _supervise DIR`).
int run_supervisor(const std::string& dir);

}  // namespace fabscope
