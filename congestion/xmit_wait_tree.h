#pragma once
// Congestion trees from PortXmitWait. Congestion hides well: nothing is
// down, everything is slow, and the port that waits most is usually a victim,
// not the cause. Traffic that cannot leave a port backs up into the ports
// that feed it, so the waiting ports form a tree over the routes; its root,
// the bottom-most waiting port, is where the traffic is slowed down: a slow
// receiver (the root feeds a host) or a bottleneck link (a switch port whose
// own next hops do not wait). Pure: a fabric with its forwarding tables and
// two counter readings in, ranked ports, trees and findings out.

#include <string>
#include <vector>

#include "model/counter_readings.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "model/thresholds.h"

namespace fabscope {

/// A port's PortXmitWait over the interval between two readings.
struct WaitingPort {
    PortRef port;
    double share = 0;    ///< of the interval spent waiting with data to send, 0..1
    uint64_t ticks = 0;  ///< the PortXmitWait rise
    double interval_s = 0;
    bool cleared = false;  ///< the counter went down: `ticks` is a lower bound
};

/// Every port read in both readings whose link speed is known, hottest
/// first (ties by port). The rise follows counter_rise (clears handled).
std::vector<WaitingPort> xmit_wait_shares(const Fabric& f, const CounterReadings& before,
                                          const CounterReadings& after, int tick_multiplier);

/// Where the traffic leaving `p` goes next: the egress ports, at the switch
/// behind `p`, of the destinations `p` is routed to (by both switches'
/// forwarding tables; every other linked port of that switch when a table is
/// missing). Empty when `p` feeds a host or has no peer.
std::vector<PortRef> next_hops(const Fabric& f, PortRef p);

struct Victim {
    WaitingPort wait;
    /// From the victim down to the root, both included.
    std::vector<PortRef> chain;
};

struct CongestionTree {
    WaitingPort root;
    /// "slow_receiver": the root's peer is a host that does not take data as
    /// fast as it comes; "bottleneck_link": a switch port whose next hops do
    /// not wait (the link itself, or the switch behind it, is the limit).
    std::string cause;
    std::vector<Victim> victims;  ///< hottest first
};

/// The trees over the ports that wait at least `min_share` of the interval.
/// Roots with the most victims first, then the hottest. A port that feeds
/// two roots is a victim in both trees.
std::vector<CongestionTree> congestion_trees(const Fabric& f, const std::vector<WaitingPort>& ports,
                                             double min_share);

/// One "congestion_root" finding per tree (every root before any victim),
/// then one "congestion_victim" per victim port (under the first tree that
/// holds it), each with its evidence: shares, ticks, the chain of ports.
/// Severity by the root's (or the victim's) share against `t`.
std::vector<Finding> congestion_findings(const Fabric& f, const std::vector<CongestionTree>& trees,
                                         const XmitWaitLimit& t);

}  // namespace fabscope
