#pragma once
// Byte counts as people write them: "4M", "64K", "100".

#include <cstdint>
#include <string>

namespace fabscope {

/// "4M" for 4 MiB, "64K" for 64 KiB, else the number of bytes.
std::string format_size(uint64_t bytes);

}  // namespace fabscope
