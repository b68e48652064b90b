#include "rdma/ibv_device.h"

#include <algorithm>
#include <memory>

#include "congestion/sysfs_counters.h"
#include "rdma/data_path.h"
#include "rdma/endpoint.h"

namespace fabscope::perf {
namespace {

class IbvEndpoint final : public TestEndpoint {
  public:
    explicit IbvEndpoint(Endpoint ep) : ep_(std::move(ep)) {}
    EndpointInfo info() const override { return ep_.info(); }
    Status connect(const EndpointInfo& remote) override { return ep_.connect(remote); }
    bool post_receives(uint32_t n, uint32_t size) override {
        return perf::post_receives(ep_, n, size);
    }
    BandwidthOutcome run_bandwidth(const TestSpec& s, const KeepGoing& k) override {
        return perf::run_bandwidth(ep_, s, k);
    }
    BandwidthOutcome receive_sends(const TestSpec& s, const KeepGoing& k) override {
        return perf::receive_sends(ep_, s, k);
    }
    LatencyOutcome run_latency(const TestSpec& s, const KeepGoing& k) override {
        return perf::run_latency(ep_, s, k);
    }
    std::string answer_latency(const TestSpec& s, const KeepGoing& k) override {
        return perf::answer_latency(ep_, s, k);
    }
    RingOutcome run_ring(TestEndpoint& from_prev, const RingSteps& s, const KeepGoing& k) override {
        auto* prev = dynamic_cast<IbvEndpoint*>(&from_prev);
        if (!prev) return {.error = "the ring's two endpoints are of different devices"};
        return perf::run_ring(ep_, prev->ep_, s, k);
    }

  private:
    Endpoint ep_;
};

}  // namespace

Result<IbvDevice> IbvDevice::open(const std::string& name, int port) {
    auto d = Device::open(name, port);
    if (!d) return d.error();
    return IbvDevice(std::move(*d));
}

DeviceLimits IbvDevice::limits() const {
    return {static_cast<uint32_t>(std::max(0, dev_.attr().max_qp_wr)),
            static_cast<uint32_t>(std::max(0, dev_.attr().max_cqe))};
}

Result<std::unique_ptr<TestEndpoint>> IbvDevice::create_endpoint(const EndpointConfig& cfg) const {
    auto ep = Endpoint::create(dev_, cfg);
    if (!ep) return ep.error();
    return std::unique_ptr<TestEndpoint>(std::make_unique<IbvEndpoint>(std::move(*ep)));
}

CounterMap IbvDevice::read_counters() const {
    return read_sysfs_counters(dev_.name(), dev_.port());
}

Result<std::unique_ptr<VerbsDevice>> open_ibv_device(const std::string& name, int port) {
    auto d = IbvDevice::open(name, port);
    if (!d) return d.error();
    return std::unique_ptr<VerbsDevice>(std::make_unique<IbvDevice>(std::move(*d)));
}

}  // namespace fabscope::perf
