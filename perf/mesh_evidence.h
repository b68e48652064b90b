#pragma once
// The counters behind a suspect: what the devices at the ends of its flows
// counted while they ran (MeshFlow::counters, each side's delta over the
// flow), summed over its slow flows and, beside them, over its healthy ones.
// A cable that drops packets shows as retransmissions and sequence errors on
// the slow flows and none on the healthy; a slow host with clean counters
// points at its CPU or PCIe rather than at the wire. On InfiniBand the same
// sums hold the HCA port's own counters (symbol_error, port_rcv_errors,
// port_xmit_wait: sysfs `counters/`), so an endpoint suspect carries its
// port's evidence.
//
// The counters come from the ranks (peers on the network): a value that is
// not an unsigned integer, a name longer than kMaxCounterName or past
// kMaxCounterNames names is not counted, and sums saturate.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "congestion/sysfs_counters.h"
#include "perf/mesh_run.h"

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

/// Which end's device of a flow: the sender's ("local"), the receiver's
/// ("remote"), or both.
enum class FlowEnd { Sender, Receiver, Both };

struct FlowCounters {
    size_t flows = 0;    ///< flows summed
    size_t counted = 0;  ///< of them, flows whose asked end reported counters
    CounterMap sum;      ///< by counter name, zeros left out
};

/// Sums the counters of `flows` (indices into d.flows) at `end`.
FlowCounters sum_flow_counters(const MeshRunData& d, const std::vector<size_t>& flows, FlowEnd end);

/// Whether a counter counts events (errors, retransmissions, waits, CNPs,
/// marks) rather than traffic (bytes, packets, data), which moves with any
/// flow and says nothing against it.
bool is_event_counter(const std::string& name);

/// "rcvd_seq_err +12, duplicate_request +340": the event counters in `m`,
/// largest first, at most `most`; "" when none moved.
std::string event_counters_line(const CounterMap& m, size_t most = 4);

/// {"flows": N, "counted": M, "sum": {name: value}}
nlohmann::json flow_counters_json(const FlowCounters& c);

}  // namespace fabscope::perf
