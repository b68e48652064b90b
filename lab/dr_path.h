#pragma once
// A directed route as a directed-route SMP carries it (IBA 14.2.2): the hop
// count and the egress port of each hop, at most 63. Fixed size: comparing two
// is a bounded comparison. (As std::vector<uint8_t> in a std::set, GCC 12 at
// -O3 could not see that a vector's size is below PTRDIFF_MAX and rejected its
// operator<=> with -Wstringop-overread on an "unbounded" memcmp.)

#include <algorithm>
#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>

namespace fabscope {

struct DrPath {
    static constexpr size_t kMaxHops = 63;
    static constexpr size_t kHopCount = 7;       ///< offset of HopCount in the SMP
    static constexpr size_t kInitialPath = 128;  ///< offset of InitialPath; [0] is unused

    uint8_t hops = 0;
    std::array<uint8_t, kMaxHops> port{};  ///< port[i]: egress port of hop i + 1; the rest 0

    /// The path of the directed-route SMP at `mad` (its 256 bytes); at most 63 hops.
    static DrPath of_smp(const uint8_t* mad) {
        DrPath p;
        p.hops = static_cast<uint8_t>(std::min<size_t>(mad[kHopCount], kMaxHops));
        std::copy_n(mad + kInitialPath + 1, p.hops, p.port.begin());
        return p;
    }

    /// True if this path leads to or through the node `p` leads to.
    bool starts_with(const DrPath& p) const {
        if (p.hops > hops) return false;
        for (size_t i = 0; i < p.hops; ++i) {
            if (port[i] != p.port[i]) return false;
        }
        return true;
    }

    // clang-tidy 14 reads the 0 that a defaulted <=> compares against as a null pointer.
    friend auto operator<=>(const DrPath&,
                            const DrPath&) = default;  // NOLINT(modernize-use-nullptr)
};

}  // namespace fabscope
