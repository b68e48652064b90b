#include "congestion/sysfs_counters.h"

#include <filesystem>
#include <fstream>

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

}  // namespace fabscope
