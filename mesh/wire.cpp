#include "mesh/wire.h"

#include <fmt/format.h>

#include "ranks/comm.h"
#include "trace/udp_probe.h"
#include "util/duration.h"

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

void choose_device(int local_rank, const std::string& device,
                   const std::vector<std::string>& devices, MeshRank& self) {
    self.device = device;
    if (devices.empty()) return;
    self.plane = local_rank;
    if (static_cast<size_t>(local_rank) < devices.size()) {
        self.device = devices[static_cast<size_t>(local_rank)];
    } else {
        self.error = fmt::format("local rank {} on {} has no device: --devices names {}",
                                 local_rank, self.host, devices.size());
    }
}

std::unique_ptr<VerbsDevice> open_rank_device(const OpenDevice& open, MeshRank& self) {
    try {
        auto opened = open(self.device, self.port);
        if (!opened) {
            self.error = opened.error().message;
            return nullptr;
        }
        std::unique_ptr<VerbsDevice> dev = std::move(*opened);
        self.device = dev->name();
        self.port = dev->port();
        return dev;
    } catch (const std::exception& e) {
        self.error = e.what();
        return nullptr;
    }
}

void learn_port(const VerbsDevice& dev, const EndpointConfig& cfg, MeshRank& self,
                bool want_address) {
    auto ep = dev.create_endpoint(cfg);
    if (!ep) return;
    const EndpointInfo info = (*ep)->info();
    self.lid = info.lid;
    // InfiniBand's GID 0 is the subnet prefix and the port GUID.
    if (!info.roce) {
        for (size_t i = 8; i < 16; ++i) self.port_guid = (self.port_guid << 8) | info.gid[i];
    }
    if (want_address) self.address = gid_ipv4(info.gid);
}

json measure_bandwidth(TestEndpoint& ep, const TestSpec& spec, Millis step_timeout,
                       const StopToken& stop) {
    const Millis limit = spec.duration + spec.warmup_time + step_timeout;
    const auto deadline = MeshClock::now() + limit;
    auto keep_going = [&]() -> std::string {
        if (stop.stop_requested()) return "interrupted";
        if (MeshClock::now() > deadline)
            return fmt::format("no result within {}", format_duration(limit));
        return "";
    };
    BandwidthOutcome b = ep.run_bandwidth(spec, keep_going);
    return {{"ok", b.error.empty()},
            {"error", b.error},
            {"avg_gbps", b.meter.average_gbps()},
            {"peak_gbps", b.meter.peak_gbps()},
            {"min_window_gbps", b.meter.min_window_gbps()},
            {"bytes", b.meter.bytes()},
            {"seconds", b.meter.seconds()}};
}

}  // namespace fabscope::perf
