#pragma once
// The UDP source port of a RoCEv2 flow: the only per-flow entropy ECMP
// routers see (they hash addresses and ports; port 4791 and the addresses
// are the same for every QP of a pair). Knowing it lets a tracer send its
// probes down the flow's own path.

#include <cstdint>
#include <vector>

namespace fabscope::perf {

/// The source port Soft-RoCE (rdma_rxe) gives an RC QP on Linux 5.18 and
/// later (6.1 bookworm, 7.x trixie-backports): on modify_qp with an address
/// vector it calls rdma_get_udp_sport(flow_label, qpn, dest_qpn) from
/// <rdma/ib_verbs.h>: with no flow label, one is made from the product of
/// the two QPNs (folded to 20 bits), whose low 14 bits, XORed with its high
/// 6, go into 0xC000..0xFFFF. The product is symmetric, so both directions
/// of an RC connection use the same port. Verified on the wire in the VM lab
/// (tests/lab/roce_trace_vm_test.cpp). Hardware NICs (mlx5) pick their own
/// port unless the QP has a flow label; this is rxe's rule only.
uint16_t rxe_udp_sport(uint32_t local_qpn, uint32_t remote_qpn, uint32_t flow_label = 0);

/// `k` distinct source ports spread evenly over RoCE's 0xC000..0xFFFF, for
/// tracing every path a pair can use (a spine reached by one in k flows is
/// missed with probability about (1 - 1/k)^k per pair, so 16 is plenty for
/// 2-4 spines).
std::vector<uint16_t> spread_udp_sports(int k);

}  // namespace fabscope::perf
