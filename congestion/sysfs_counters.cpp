#include "congestion/sysfs_counters.h"

#include <filesystem>
#include <fstream>

#include "model/counters.h"

namespace fabscope {

namespace fs = std::filesystem;

CounterMap read_sysfs_counters(const std::string& device, int port, const std::string& root) {
    CounterMap out;
    fs::path base = fs::path(root) / device / "ports" / std::to_string(port);
    for (const char* dir : {"counters", "hw_counters"}) {
        std::error_code ec;
        for (const auto& entry : fs::directory_iterator(base / dir, ec)) {
            if (!entry.is_regular_file(ec)) continue;
            std::ifstream in(entry.path());
            uint64_t v = 0;
            if (in >> v)
                out[entry.path().filename().string()] =
                    v;  // "lifespan" is not a counter but harmless
        }
    }
    return out;
}

CounterMap counter_deltas(const CounterMap& before, const CounterMap& after) {
    CounterMap d;
    for (const auto& [k, a] : after) {
        auto it = before.find(k);
        if (it == before.end()) continue;
        d[k] = counter_rise(it->second, a).delta;
    }
    return d;
}

CounterMap nonzero(const CounterMap& m) {
    CounterMap out;
    for (const auto& [k, v] : m) {
        if (v) out[k] = v;
    }
    return out;
}

}  // namespace fabscope
