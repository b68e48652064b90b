#pragma once
// Child processes: start them, recognise them again later by PID *and* start
// time (so a recycled PID is never killed by mistake), stop them with a
// grace period, and run commands with a deadline.

#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "util/result.h"

namespace fabscope {

struct SpawnOptions {
    std::vector<std::string> argv;
    std::map<std::string, std::string> env;  ///< added to / overriding the current environment
    std::string cwd;                         ///< "" = inherit
    int stdin_fd = -1;                       ///< -1 = /dev/null
    std::string stdout_path;                 ///< "" = inherit; else truncated file
    std::string stderr_path;                 ///< "" = inherit; may equal stdout_path
    bool new_session = false;                ///< setsid(): survives the caller's terminal
    bool inherit_stdin = false;              ///< keep the caller's stdin (interactive commands)
    /// The child's stdout goes to the caller's stderr (when stdout_path is
    /// ""): a helper's chatter must not land in front of the caller's JSON.
    bool stdout_to_stderr = false;
};

/// A process we started, identified by PID, kernel start time and command
/// line. All three must match for a live process to count as this one: a
/// record missing any of them matches nothing.
struct ProcessId {
    pid_t pid = 0;
    unsigned long long start_time = 0;  ///< /proc/PID/stat field 22
    std::string cmdline;                ///< /proc/PID/cmdline, arguments joined by spaces
};

Result<ProcessId> spawn(const SpawnOptions& opts);

/// Start time of a live PID, or nullopt if there is no such process.
std::optional<unsigned long long> process_start_time(pid_t pid);
/// The command line of a live PID, arguments joined by spaces, or nullopt.
std::optional<std::string> process_cmdline(pid_t pid);
/// True if `id` still names the process we started: same PID, same start time
/// and same command line. A zero PID or start time, or an empty command line,
/// never matches.
bool is_running(const ProcessId& id);
/// Sends `sig` to `id` if it still is the process we started (is_running);
/// returns whether it was sent.
bool signal_process(const ProcessId& id, int sig);
/// SIGTERM, then SIGKILL after `grace`; returns when it is gone. Reaps it
/// if it is our child. A process that is not `id` (see is_running) is left alone.
void stop_process(const ProcessId& id, std::chrono::milliseconds grace);

struct RunResult {
    int exit_code = -1;  ///< exit status, or 128+signal
    bool timed_out = false;
};
/// Waits for a child we spawned, up to `timeout` (0 = forever); on timeout the
/// child is stopped and timed_out is set.
RunResult wait_child(pid_t pid, std::chrono::milliseconds timeout);

/// Absolute path of the running executable (/proc/self/exe).
std::string self_exe();

}  // namespace fabscope
