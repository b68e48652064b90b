#pragma once
// The ECN codepoints of the IP packets a host received, as its kernel counts
// them for the network namespace (/proc/net/netstat, IpExt: InNoECTPkts,
// InECT0Pkts, InECT1Pkts, InCEPkts). Every RoCEv2 packet is a UDP/IP packet,
// so CE marks a switch queue set on the way are seen here on any NIC, also
// where the RDMA device has no ECN counter of its own (Soft-RoCE), and the
// ECN detector can tell "marked on the way, no CNP sent" from these.

#include <optional>
#include <string>
#include <vector>

#include "congestion/roce_detectors.h"
#include "model/counter_map.h"
#include "model/finding.h"
#include "model/thresholds.h"

namespace fabscope {

/// The IpExt ECN counters of a /proc/net/netstat text (the header line
/// names the fields, the next line holds the values); nullopt when it has
/// no IpExt lines with them.
std::optional<CounterMap> parse_ip_ecn(const std::string& netstat);

/// This network namespace's counters (`path` is /proc/net/netstat).
std::optional<CounterMap> read_ip_ecn(const std::string& path = "/proc/net/netstat");

/// A receiver whose kernel counted at least `t.ecn_marked_min` CE-marked
/// packets over the interval while none of its RDMA device ports sent a CNP
/// (np_cnp_sent +0, or no such counter: Soft-RoCE has no DCQCN): the queue
/// on the way marked, and no sender was told to slow down.
/// `ip` is the change of the IpExt counters over `c`'s interval.
std::vector<Finding> detect_ce_without_cnp(const RoceChange& c, const CounterMap& ip,
                                           const RoceLimits& t);

}  // namespace fabscope
