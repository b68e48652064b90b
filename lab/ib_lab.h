#pragma once
// The built-in InfiniBand lab: ibsim simulating a fabric from a net file,
// OpenSM programming it, and a small supervisor of ours that keeps the
// simulator's console open and frees the slots of clients that died.
// Everything lives in one directory (see lab/lab_dir.h), and every process is
// recorded there by PID, start time and command line, so `lab down` stops
// exactly the lab's own processes.

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "lab/lab_dir.h"
#include "lab/topology.h"
#include "util/process.h"
#include "util/result.h"

namespace fabscope {

inline constexpr const char* kUmad2simPath = "/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so";

struct LabUpOptions {
    std::string dir;                    ///< lab directory (see resolve_lab_dir())
    std::optional<LeafSpineSpec> spec;  ///< generate this topology...
    std::string net_file;               ///< ...or use this ibsim net file
    std::chrono::seconds subnet_up_timeout{300};
    bool sm_dump = false;              ///< OpenSM writes its routing dump files (log_flags 0x43)
    std::string routing_engine;        ///< OpenSM's routing_engine ("" = its default, minhop)
    std::vector<uint64_t> root_guids;  ///< root switches for updn/ftree (root_guid_file)
};

/// A cable swap `lab fault swap` made, as the two ports given.
struct CableSwap {
    std::string a;  ///< "leaf01[5]"
    std::string b;
};

/// An OpenSM started beside the lab's own (`lab sm start`): on a host's HCA,
/// a standby for the master, or a rival if its priority is higher.
struct LabSm {
    std::string node;  ///< the host it runs on, as the net file names it ("h0004")
    int priority = 0;
    ProcessId process;
};

struct LabState {
    std::string dir;
    bool created_dir = false;  ///< `lab up` created dir, so `lab down` removes it
    std::string
        sockname;  ///< the simulator's IBSIM_SOCKNAME: unique per lab, so labs run side by side
    /// What clients use: the supervisor's relay in front of the simulator (lab/sim_proxy.h).
    std::string proxy_sockname() const { return sockname + "-px"; }
    std::string net_file;  ///< the net file the simulator runs (a copy in dir)
    std::string created;
    NetFileStats stats;
    double subnet_up_s = 0;
    ProcessId ibsim;
    ProcessId opensm;  ///< plane 1's (the only one of a one-plane lab)
    ProcessId supervisor;
    int planes = 1;                    ///< a generated multi-plane lab (LeafSpineSpec::planes)
    bool sm_dump = false;              ///< LabUpOptions::sm_dump, for every start of its SMs
    std::string routing_engine;        ///< LabUpOptions::routing_engine, likewise
    std::vector<uint64_t> root_guids;  ///< LabUpOptions::root_guids, likewise
    /// OpenSM of planes 2.., in order: each attached to its plane's first host HCA.
    std::vector<ProcessId> plane_sms;
    std::vector<LabSm> extra_sms;  ///< `lab sm start`, in the order started
    std::vector<CableSwap> swaps;  ///< in force, oldest first (undone by restore-cabling)
    /// Not saved: the --name/--dir flags that chose this lab, for hints.
    std::string which_flags;
};

/// " --name b" or " --dir 'x y'" (shell-quoted), "" for the default lab: for
/// hints that name a command to run.
std::string which_flags(const std::string& name, const std::string& dir);

/// Starts ibsim and OpenSM, waits for SUBNET UP, starts the supervisor and
/// records it all in dir/state.json. On failure everything started is stopped.
Result<LabState> lab_up(const LabUpOptions& opts);
/// Stops the lab's processes (by recorded PID, start time and command line)
/// and removes the lab's files unless `keep`, and its directory if `lab up`
/// created it. Refuses a directory without this lab's state. Returns the
/// entries left in place because they are not the lab's.
Result<std::vector<std::string>> lab_down(const std::string& dir, bool keep,
                                          const std::string& which = "");
/// Loads dir/state.json, which must be a fabscope lab state recorded for dir.
/// `which`: see which_flags(), used in the "no lab" hint.
Result<LabState> load_lab_state(const std::string& dir, const std::string& which = "");
/// Writes dir/state.json.
Status save_lab_state(const LabState& s);

/// A file of the lab's processes (a log, their output): its text, "" when
/// it is not there (yet).
std::string lab_file_text(const std::string& path);
/// Polls `pred` every 50 ms until it holds. `alive` false is `what_failed`,
/// `timeout` passed `what_timeout` (both code 3): a process that died fails fast.
Status lab_wait_for(const std::function<bool()>& pred, const std::function<bool()>& alive,
                    std::chrono::seconds timeout, const std::string& what_failed,
                    const std::string& what_timeout);
/// One line per process: role, pid, running or not.
std::string lab_status(const LabState& s);
/// `lab status --json` (docs/lab-status.schema.json).
nlohmann::json lab_status_json(const LabState& s);

/// Environment a libibumad program needs to talk to this lab: through the
/// supervisor's relay (silent nodes apply), or `direct` to the simulator.
std::map<std::string, std::string> lab_client_env(const LabState& s, bool direct = false);

/// The environment of a client attached to plane `plane` (1-based) of a
/// multi-plane lab: the simulator's preload library gives a process one HCA,
/// that plane's first host HCA (SIM_HOST). Plane 1 is the default attachment.
Result<std::map<std::string, std::string>> lab_plane_env(const LabState& s, int plane,
                                                         bool direct = false);

/// The OpenSM of plane `plane` (1-based).
const ProcessId* plane_sm(const LabState& s, int plane);

/// The partition file every OpenSM of the lab reads (OpenSM's
/// partitions.conf syntax; `lab partitions` writes it): dir/osm/partitions.conf.
std::string lab_partitions_file(const LabState& s);

/// How to start one OpenSM of the lab.
struct SmLaunch {
    std::string dir;             ///< its opensm.conf, log, cache and dumps
    std::string out;             ///< its stdout and stderr
    std::string attach;          ///< SIM_HOST: the host whose HCA it runs on ("" = the default)
    uint64_t port_guid = 0;      ///< opensm -g (0 = the HCA's port)
    uint64_t subnet_prefix = 0;  ///< 0 = OpenSM's default
    int priority = -1;           ///< sm_priority (-1 = OpenSM's default)
};
/// Starts an OpenSM as `how` says, with the lab's settings (no forced link
/// rates, the lab's partition file, dumps when sm_dump).
Result<ProcessId> start_opensm(const LabState& s, const SmLaunch& how);

struct ExecSettings {
    std::chrono::milliseconds deadline{0};  ///< 0 = wait forever
    int plane = 0;                          ///< attach to this plane (0 = the default, plane 1)
    std::string stdout_path;                ///< "" = the caller's stdout
    bool direct = false;                    ///< bypass the relay (see lab_client_env)
};

/// Runs `argv` as a client of the lab (the simulator's preload library,
/// this lab's socket) in the caller's directory; returns its exit code.
/// Frees the simulator slots of dead clients first.
Result<int> lab_exec(const LabState& s, const std::vector<std::string>& argv,
                     const ExecSettings& how);

/// Frees the simulator slots of clients whose process is gone. Returns how many.
Result<int> reap_dead_clients(const std::string& dir);

}  // namespace fabscope
