#pragma once
// What a probe agent concludes at the end of each interval (pure): from the
// window of every peer and of every leaf pair it covers, the findings a team
// acts on. Loss on a lossless fabric is never noise, but one probe is not a
// verdict: a peer is lossy with at least `min_lost` probes lost and a loss
// ratio of at least `loss_ratio` over the window.
//
// - probe-host-loss: this host loses probes to most of its peers (at least
//   `host_share` of those probed, and two): its own link or NIC, not theirs.
// - probe-peer-loss: one peer's probes are lost (its link, NIC or agent).
// - probe-leaf-pair: every probed host under another leaf (two or more)
//   loses probes or its p99 rose, while the hosts under this leaf do not:
//   the uplinks between the two leaves.
// - probe-peer-p99 / probe-host-p99: a p99 above `p99_rise` times the
//   pair's own baseline and `p99_min_rise_us` over it (nothing until the
//   baseline exists).
// - probe-peer-unreachable: no agent answers the hello at the peer's address.

#include <optional>
#include <string>
#include <vector>

#include "model/finding.h"
#include "probe/history.h"

namespace fabscope::probe {

struct ProbeThresholds {
    double loss_ratio = 0.001;
    uint64_t min_lost = 2;
    double host_share = 0.5;
    double p99_rise = 3.0;
    double p99_min_rise_us = 50;
};

struct PeerView {
    std::string name;
    std::string leaf;
    bool leaf_peer = true;  ///< under this host's leaf (else a covered leaf's)
    WindowFigures window;
    std::optional<double> baseline_p99_us;
    std::string unreachable;  ///< why the hello failed ("" = it answered)
};

struct LeafPairView {
    std::string leaf;  ///< the covered leaf
    WindowFigures window;
    std::optional<double> baseline_p99_us;
};

struct ProbeSelf {
    std::string name;
    std::string leaf;
    uint32_t window_intervals = 5;
};

/// The findings of one interval, hosts first, then leaf pairs, then peers.
std::vector<Finding> judge_probes(const ProbeSelf& self, const std::vector<PeerView>& peers,
                                  const std::vector<LeafPairView>& pairs, const ProbeThresholds& t);

}  // namespace fabscope::probe
