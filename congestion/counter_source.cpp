#include "congestion/counter_source.h"

#include <algorithm>
#include <filesystem>

namespace fabscope {

namespace fs = std::filesystem;

std::vector<CounterSample> SysfsCounterSource::read() {
    std::vector<CounterSample> out;
    std::error_code ec;
    std::vector<fs::path> devices;
    for (const auto& d : fs::directory_iterator(root_, ec)) devices.push_back(d.path());
    std::sort(devices.begin(), devices.end());
    for (const fs::path& dev : devices) {
        std::vector<int> ports;
        for (const auto& p : fs::directory_iterator(dev / "ports", ec)) {
            const std::string n = p.path().filename().string();
            if (!n.empty() &&
                std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; }))
                ports.push_back(std::stoi(n));
        }
        std::sort(ports.begin(), ports.end());
        for (int port : ports) {
            CounterSample s;
            s.device = dev.filename().string();
            s.port = port;
            s.values = read_sysfs_counters(s.device, port, root_);
            s.values.erase("lifespan");  // hw_counters' refresh period, not a counter
            s.read_at_ms = clock_.unix_ms();
            out.push_back(std::move(s));
        }
    }
    return out;
}

std::map<std::string, CounterChange> sample_changes(const CounterSample& before,
                                                    const CounterSample& after) {
    std::map<std::string, CounterChange> out;
    const int64_t ms = after.read_at_ms - before.read_at_ms;
    if (ms <= 0) return out;
    for (const auto& [name, a] : after.values) {
        auto it = before.values.find(name);
        if (it == before.values.end()) continue;
        const CounterRise rise = counter_rise(it->second, a);
        CounterChange c;
        c.cleared = rise.cleared;
        c.delta = rise.delta;
        c.per_second = static_cast<double>(c.delta) * 1000.0 / static_cast<double>(ms);
        out[name] = c;
    }
    return out;
}

}  // namespace fabscope
