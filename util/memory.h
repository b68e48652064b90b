#pragma once
// How much memory this process may still take: the smaller of what the
// system has available (MemAvailable) and what its address-space and data
// limits leave. Loaders use it to refuse an input that cannot fit before
// they try, instead of dying part way through.

#include <cstdint>
#include <optional>
#include <string>

namespace fabscope {

/// Bytes this process can still allocate, as far as can be told; nullopt
/// when nothing limits it that we can read.
std::optional<uint64_t> available_memory_bytes();

/// "1.5 GiB", "300 MiB", "12 KiB", "17 bytes".
std::string format_bytes(uint64_t bytes);

}  // namespace fabscope
