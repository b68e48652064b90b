#pragma once
// FNV-1a, 64 bits: a stable identifier from a name where the thing named has
// no GUID of its own (a RoCE leaf known by a chassis ID that is no MAC, a
// router known only from path traces). Not for anything an adversary picks.

#include <cstdint>
#include <string_view>

namespace fabscope {

constexpr uint64_t fnv1a64(std::string_view s) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (char c : s) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace fabscope
