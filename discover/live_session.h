#pragma once
// A live session on the local port: the port found and checked, its umad
// transport open, kept for a sweep and for later readings of the counters
// (validate's second reading, congestion's readings). Every long call takes a
// stop token: when it is stopped, nothing new is sent and what was read is
// returned, marked interrupted.

#include <memory>
#include <string>

#include "discover/local_port.h"
#include "discover/sweep.h"
#include "discover/umad_transport.h"
#include "model/node_name_map.h"
#include "util/interrupt.h"

namespace fabscope {

struct LiveOptions {
    std::string ca;   ///< -C; "" = the first CA with an active port
    int ca_port = 0;  ///< -P; 0 = its first active port
    SweepOptions sweep;
    bool verbose = false;  ///< pass the simulator's preload chatter through to stderr
    /// --node-name-map: names given to the nodes of every sweep (nullptr = none).
    std::shared_ptr<const NodeNameMap> node_names;
};

class LiveSession {
  public:
    /// Finds and opens the local port. Errors carry their exit code (3: no
    /// device, no permission, no link).
    static Result<LiveSession> open(const LiveOptions& options);

    /// One sweep, its nodes named by the node-name map if one was given;
    /// stops early (SweepOutput::interrupted) when `stop` is stopped.
    Result<SweepOutput> sweep(const StopToken* stop = nullptr);
    /// For later readings of the counters (congestion/pma_counter_source):
    /// the open transport, the clock, and the engine options stopped by `stop`.
    MadTransport& transport() { return *transport_; }
    const Clock& clock() const { return clock_; }
    EngineOptions engine_options(const StopToken* stop) const;
    const LocalPort& local() const { return local_; }
    const SweepOptions& options() const { return options_; }

  private:
    LocalPort local_;
    std::unique_ptr<UmadTransport> transport_;
    SystemClock clock_;
    SweepOptions options_;
    std::shared_ptr<const NodeNameMap> node_names_;
};

}  // namespace fabscope
