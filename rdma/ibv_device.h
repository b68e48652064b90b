#pragma once
// The libibverbs VerbsDevice: an opened device port whose endpoints are RC
// QPs running the data path of rdma/data_path.h.

#include <string>

#include "rdma/open_device.h"
#include "rdma/verbs.h"
#include "rdma/verbs_device.h"

namespace fabscope::perf {

class IbvDevice final : public VerbsDevice {
  public:
    explicit IbvDevice(Device dev) : dev_(std::move(dev)) {}
    /// Opens `name` ("" = the first device) and port `port` (0 = the first active).
    static Result<IbvDevice> open(const std::string& name, int port);

    std::string name() const override { return dev_.name(); }
    int port() const override { return dev_.port(); }
    DeviceLimits limits() const override;
    Result<std::unique_ptr<TestEndpoint>> create_endpoint(const EndpointConfig& cfg) const override;
    CounterMap read_counters() const override;

  private:
    Device dev_;
};

/// IbvDevice::open as an OpenDevice (mesh ranks, perf serve's mesh orders).
Result<std::unique_ptr<VerbsDevice>> open_ibv_device(const std::string& name, int port);

}  // namespace fabscope::perf
