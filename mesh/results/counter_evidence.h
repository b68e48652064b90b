#pragma once
// Counters as evidence: which of a device's counters count events (errors,
// retransmissions, waits, CNPs, marks) rather than traffic, one line naming
// those that moved, and sums of counters that came from peers on the
// network, bounded: a value that is not an unsigned integer, a name longer
// than kMaxCounterName or past kMaxCounterNames names is not counted, and
// sums saturate. Written by a mesh run (mesh/evidence.h), read back by the
// reports.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "model/counter_map.h"

namespace fabscope::perf {

constexpr size_t kMaxCounterName = 64;
constexpr size_t kMaxCounterNames = 256;

/// a + b, or the largest value when it would wrap: a sum of counters never
/// comes out smaller than one of them.
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
    return b > std::numeric_limits<uint64_t>::max() - a ? std::numeric_limits<uint64_t>::max()
                                                        : a + b;
}

/// A non-negative integer (what a counter's delta may be).
bool is_counter_value(const nlohmann::json& v);

/// Adds the counters of `side` ({name: delta}, from a peer) to `sum`, within
/// the bounds above.
void add_counters(const nlohmann::json& side, CounterMap& sum);

/// Whether a counter counts events (errors, retransmissions, waits, CNPs,
/// marks) rather than traffic (bytes, packets, data), which moves with any
/// flow and says nothing against it.
bool is_event_counter(const std::string& name);

/// "rcvd_seq_err +12, duplicate_request +340": the event counters in `m`,
/// largest first, at most `most`; "" when none moved.
std::string event_counters_line(const CounterMap& m, size_t most = 4);

}  // namespace fabscope::perf
