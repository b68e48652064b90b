#include "util/byte_size.h"

#include <fmt/format.h>

namespace fabscope {

std::string format_size(uint64_t b) {
    if (b >= (1ULL << 20) && b % (1ULL << 20) == 0) return fmt::format("{}M", b >> 20);
    if (b >= 1024 && b % 1024 == 0) return fmt::format("{}K", b >> 10);
    return std::to_string(b);
}

}  // namespace fabscope
