#include "rdma/fake_verbs.h"

#include <thread>

namespace fabscope::perf::testing {

class FakeEndpoint final : public TestEndpoint {
  public:
    FakeEndpoint(const FakeDevice& dev, EndpointConfig cfg, uint32_t qpn)
        : dev_(dev), cfg_(cfg), qpn_(qpn) {}
    EndpointInfo info() const override {
        EndpointInfo i;
        i.qpn = qpn_;
        i.size = cfg_.buffer_size;
        i.addr = 0x1000;
        i.rkey = 7;
        return i;
    }
    Status connect(const EndpointInfo&) override { return Ok{}; }
    bool post_receives(uint32_t, uint32_t) override { return true; }
    BandwidthOutcome run_bandwidth(const TestSpec& s, const KeepGoing& keep_going) override {
        BandwidthOutcome out;
        out.meter = BandwidthMeter(100000000);
        if (dev_.on_run) dev_.on_run(++dev_.runs_);
        out.error = keep_going();
        if (!out.error.empty()) return out;
        for (uint64_t w = 1; w <= 10; ++w) out.meter.add(w * 100000000, uint64_t{s.size} * 100);
        out.meter.finish(1000000000);
        out.messages = 1000;
        return out;
    }
    BandwidthOutcome receive_sends(const TestSpec&, const KeepGoing& keep_going) override {
        BandwidthOutcome out;
        ++dev_.receive_loops_;
        out.error = wait(keep_going);
        return out;
    }
    LatencyOutcome run_latency(const TestSpec& s, const KeepGoing& keep_going) override {
        LatencyOutcome out;
        if (dev_.on_run) dev_.on_run(++dev_.runs_);
        out.error = keep_going();
        if (!out.error.empty()) return out;
        uint64_t n = s.iterations ? s.iterations : 1000;
        for (uint64_t i = 0; i < n; ++i) out.samples_us.push_back(2.0 + static_cast<double>(i % 7));
        return out;
    }
    std::string answer_latency(const TestSpec&, const KeepGoing& keep_going) override {
        return wait(keep_going);
    }
    /// Every step's WRITE at 10 Gb/s, the all-reduce their sum.
    RingOutcome run_ring(TestEndpoint&, const RingSteps& s, const KeepGoing& keep_going) override {
        RingOutcome out;
        if (dev_.on_run) dev_.on_run(++dev_.runs_);
        out.error = keep_going();
        if (!out.error.empty()) return out;
        const double edge_us = s.chunk * 8.0 / 10e3;
        out.edge_us.assign(static_cast<size_t>(s.iterations) * s.steps, edge_us);
        out.iteration_us.assign(s.iterations, edge_us * s.steps);
        return out;
    }

  private:
    // The passive side: as the real loops, until keep_going says stop.
    static std::string wait(const KeepGoing& keep_going) {
        for (;;) {
            if (std::string why = keep_going(); !why.empty()) return why;
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    const FakeDevice& dev_;
    EndpointConfig cfg_;
    uint32_t qpn_;
};

Result<std::unique_ptr<TestEndpoint>> FakeDevice::create_endpoint(const EndpointConfig& cfg) const {
    std::lock_guard lock(m_);
    created_.push_back(cfg);
    return std::unique_ptr<TestEndpoint>(
        std::make_unique<FakeEndpoint>(*this, cfg, static_cast<uint32_t>(created_.size())));
}

CounterMap FakeDevice::read_counters() const {
    return {{"sent_pkts", packets_ += 10}};
}

std::vector<EndpointConfig> FakeDevice::created() const {
    std::lock_guard lock(m_);
    return created_;
}

}  // namespace fabscope::perf::testing
