#pragma once
// The seam between the session logic (rendezvous, caps, deadlines, the
// server's queue) and the hardware: what a session needs from an RDMA device
// and from the data path of one test. IbvDevice (rdma/ibv_device.h) is the
// libibverbs one; tests hand sessions a fake that records what was asked.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/counter_map.h"
#include "rdma/endpoint_info.h"
#include "rdma/stats.h"
#include "rdma/test_spec.h"
#include "util/result.h"

namespace fabscope::perf {

/// Returns "" to go on, or why to stop ("the peer closed the connection").
/// Every loop of the data path calls it on every iteration it can afford
/// (rate-limited by time, never by "the poll came back empty").
using KeepGoing = std::function<std::string()>;

struct BandwidthOutcome {
    BandwidthMeter meter{100000000};
    uint64_t messages = 0;
    uint64_t received_bytes = 0;  ///< SEND: what arrived here (bidirectional, or the passive side)
    std::string error;
};

struct LatencyOutcome {
    std::vector<double>
        samples_us;  ///< one-way (WRITE, SEND: half the round trip), round trip for READ
    std::string error;
};

/// One rank's part of a ring all-reduce as the job runs it (mesh/ring_run.h):
/// each of `steps` steps (2(n-1) for n ranks: reduce-scatter, then
/// all-gather) WRITEs `chunk` bytes with an immediate to the next rank and
/// waits for its own WRITE to complete and for the previous rank's to
/// arrive; `warmup` all-reduces unmeasured, then `iterations` measured.
struct RingSteps {
    uint32_t chunk = 0;
    uint32_t steps = 0;
    uint32_t iterations = 20;
    uint32_t warmup = 5;
    /// A step not done this long after the last one is a stalled ring (a
    /// neighbour died or hangs): the outcome's error says which side.
    std::chrono::milliseconds stall{10000};
};

struct RingOutcome {
    /// Per measured all-reduce: its start to this rank's last step done, us.
    std::vector<double> iteration_us;
    /// Per measured step: the WRITE to the next rank, posted to completed
    /// (the next rank acknowledged all of it), us: the edge's own time.
    std::vector<double> edge_us;
    std::string error;
};

/// One side of a test, created for one session.
class TestEndpoint {
  public:
    virtual ~TestEndpoint() = default;
    virtual EndpointInfo info() const = 0;
    /// INIT -> RTR -> RTS towards `remote`.
    virtual Status connect(const EndpointInfo& remote) = 0;
    /// Posts `n` receives of `size` bytes (before the peer starts sending).
    virtual bool post_receives(uint32_t n, uint32_t size) = 0;
    /// The active side of a bandwidth test (rdma/data_path.h).
    virtual BandwidthOutcome run_bandwidth(const TestSpec& spec, const KeepGoing& keep_going) = 0;
    /// The passive side of a SEND bandwidth test.
    virtual BandwidthOutcome receive_sends(const TestSpec& spec, const KeepGoing& keep_going) = 0;
    /// The initiating side of a latency test.
    virtual LatencyOutcome run_latency(const TestSpec& spec, const KeepGoing& keep_going) = 0;
    /// The answering side of WRITE and SEND ping-pong.
    virtual std::string answer_latency(const TestSpec& spec, const KeepGoing& keep_going) = 0;
    /// A ring all-reduce's steps: this endpoint is connected to the next
    /// rank, `from_prev` (of the same device) to the previous one, with
    /// receives for its immediates posted (post_receives).
    virtual RingOutcome run_ring(TestEndpoint& from_prev, const RingSteps& steps,
                                 const KeepGoing& keep_going) = 0;
};

/// What the device allows: work requests per QP and entries per CQ.
struct DeviceLimits {
    uint32_t max_qp_wr = 16384;
    uint32_t max_cqe = 65536;
};

class VerbsDevice {
  public:
    virtual ~VerbsDevice() = default;
    virtual std::string name() const = 0;
    virtual int port() const = 0;
    virtual DeviceLimits limits() const = 0;
    virtual Result<std::unique_ptr<TestEndpoint>> create_endpoint(
        const EndpointConfig& cfg) const = 0;
    /// The port's hardware counters now (empty where the device has none).
    virtual CounterMap read_counters() const = 0;
};

}  // namespace fabscope::perf
