#include "mesh/wire.h"

#include <fmt/format.h>

#include "model/duration.h"
#include "ranks/comm.h"

namespace fabscope::perf {
namespace {
using json = nlohmann::json;
}  // namespace

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
