#pragma once
// A VerbsDevice with no hardware behind it, for the session logic: endpoints
// that "run" a test at once with fixed numbers, passive sides that wait on
// keep_going as the real data path does, and a record of what was asked.

#include <atomic>
#include <functional>
#include <mutex>
#include <vector>

#include "rdma/verbs_device.h"

namespace fabscope::perf::testing {

class FakeDevice final : public VerbsDevice {
  public:
    std::string name() const override { return "fake0"; }
    int port() const override { return 1; }
    DeviceLimits limits() const override { return limits_; }
    Result<std::unique_ptr<TestEndpoint>> create_endpoint(const EndpointConfig& cfg) const override;
    CounterMap read_counters() const override;

    /// What create_endpoint was asked, in order.
    std::vector<EndpointConfig> created() const;
    /// Runs of the active side (run_bandwidth, run_latency) so far.
    int runs() const { return runs_.load(); }
    /// Passive receive loops (receive_sends) so far.
    int receive_loops() const { return receive_loops_.load(); }

    DeviceLimits limits_;
    /// Called at the start of every active run (e.g. to request a stop).
    std::function<void(int run)> on_run;

  private:
    friend class FakeEndpoint;
    mutable std::mutex m_;
    mutable std::vector<EndpointConfig> created_;
    mutable std::atomic<int> runs_{0};
    mutable std::atomic<int> receive_loops_{0};
    mutable std::atomic<uint64_t> packets_{0};
};

}  // namespace fabscope::perf::testing
