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
// The counters come from the ranks (peers on the network), so they are
// summed within the bounds of mesh/results/counter_evidence.h.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <vector>

#include "mesh/results/counter_evidence.h"
#include "mesh/run_data.h"

namespace fabscope::perf {

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

/// {"flows": N, "counted": M, "sum": {name: value}}
nlohmann::json flow_counters_json(const FlowCounters& c);

}  // namespace fabscope::perf
