#pragma once
// `mesh run --pattern incast`: latency under load, run by every rank of a
// launcher (mpirun, srun). One rank is the receiver, one the prober, the
// others send. The receiver holds one RC QP per peer at once (K + 1) and
// stays passive: the senders WRITE into it, the prober READs from it, so
// the probe's request crosses the same last hop as the incast and its round
// trip carries the queueing delay once.
//
//   connect: every peer pairs with the receiver (endpoint info, "ready")
//   idle:    the prober READs for --probe-time; nobody else sends
//   loaded:  every rank reads its congestion counters; the senders WRITE
//            for warm-up + --duration; the prober waits out the warm-up and
//            a ramp, then READs through the middle of the measured part;
//            every rank reads its counters again
//   after each phase every rank reports to rank 0, which says go on.
//
// Every wait has a deadline, as in mesh/run.h; a rank that stops
// reporting is named and the run ends with what was measured.

#include <functional>
#include <memory>
#include <string>

#include "congestion/roce_reading.h"
#include "mesh/incast_report.h"
#include "mesh/run.h"
#include "pairtest/session.h"
#include "ranks/comm.h"
#include "ranks/protocol.h"
#include "util/interrupt.h"

namespace fabscope::perf {

/// This rank's congestion counters at one moment: its RDMA port's
/// hw_counters, its netdev's ethtool statistics and DCB settings, and its
/// network namespace's IP ECN counters (empty: unreadable).
struct IncastReading {
    RoceHostReading roce;
    CounterMap ip_ecn;
};

struct IncastOptions {
    TestSpec spec;            ///< the senders' WRITE bandwidth test (duration: the loaded phase)
    TestSpec probe;           ///< the prober's READ latency test (its size)
    Millis probe_time{2000};  ///< how long the idle probe runs
    int receiver = 0;         ///< ranks
    int prober = 1;
    std::string device;  ///< every rank's device ("" = the first)
    int port = 0;
    PeerOptions peer;
    Millis step_timeout{10000};
    /// Reads this rank's counters for the device it opened (null: no readings).
    std::function<IncastReading(const VerbsDevice& dev)> read_host;
    /// Rank 0, after every phase and at the end.
    std::function<void(const IncastData&)> on_progress;
};

struct IncastOutcome : RankOutcome {
    IncastData data;  ///< rank 0 only
};

/// Runs this rank's part. Never throws.
IncastOutcome run_incast(MeshComm& comm, const OpenDevice& open, const IncastOptions& o,
                         const StopToken& stop);

/// The live reading of `dev`'s port on this host (sysfs under `sysfs_root`,
/// the ethtool ioctl, dcbnl, /proc/net/netstat).
IncastReading read_local_congestion(const VerbsDevice& dev, const std::string& sysfs_root);

}  // namespace fabscope::perf
