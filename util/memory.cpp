#include "util/memory.h"

#include <fmt/format.h>
#include <sys/resource.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace fabscope {
namespace {

std::optional<uint64_t> mem_available() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream ss(line.substr(13));
        uint64_t kib = 0;
        if (ss >> kib) return kib * 1024;
    }
    return std::nullopt;
}

// What is mapped now, to subtract from an address-space limit.
uint64_t vm_size() {
    std::ifstream in("/proc/self/statm");
    uint64_t pages = 0;
    in >> pages;
    return pages * 4096;
}

std::optional<uint64_t> limit_left(int resource) {
    rlimit rl{};
    if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return std::nullopt;
    uint64_t used = vm_size();
    return rl.rlim_cur > used ? rl.rlim_cur - used : 0;
}

}  // namespace

std::optional<uint64_t> available_memory_bytes() {
    std::optional<uint64_t> best;
    for (auto v : {mem_available(), limit_left(RLIMIT_AS), limit_left(RLIMIT_DATA)}) {
        if (v) best = best ? std::min(*best, *v) : *v;
    }
    return best;
}

std::string format_bytes(uint64_t bytes) {
    constexpr double kKiB = 1024.0;
    auto b = static_cast<double>(bytes);
    if (b >= kKiB * kKiB * kKiB) return fmt::format("{:.1f} GiB", b / (kKiB * kKiB * kKiB));
    if (b >= kKiB * kKiB) return fmt::format("{:.0f} MiB", b / (kKiB * kKiB));
    if (b >= kKiB) return fmt::format("{:.0f} KiB", b / kKiB);
    return fmt::format("{} bytes", bytes);
}

}  // namespace fabscope
