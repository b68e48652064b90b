#pragma once
// HopSequences: the distinct hop sequences of many traces, each kept once.
// Rank 0 of a RoCE cover holds every rank's traces, 2 million at 4,096
// ranks (64 targets, 8 source ports each), over far fewer distinct paths (a
// leaf-spine has leaves x leaves x spines); a trace keeps an index. A hop is
// its TTL, address and name: the round-trip time of the first trace that
// showed a sequence stands for the others' (nothing plans by it).

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/roce_trace.h"

namespace fabscope::perf {

class HopSequences {
  public:
    using Id = uint32_t;
    static constexpr Id kEmpty = 0;  ///< no hop: no router between the ends

    HopSequences() : seqs_(1) {}
    /// The sequence's index, added if it is new, in the order first seen.
    Id intern(const std::vector<TraceHop>& hops);
    [[nodiscard]] const std::vector<TraceHop>& operator[](Id id) const {
        return id < seqs_.size() ? seqs_[id] : seqs_.front();
    }
    /// Every distinct sequence, the empty one first.
    [[nodiscard]] const std::vector<std::vector<TraceHop>>& all() const { return seqs_; }

  private:
    std::vector<std::vector<TraceHop>> seqs_;
    std::unordered_map<std::string, Id> index_;
};

}  // namespace fabscope::perf
