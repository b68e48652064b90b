#pragma once
// Routes from the switches' linear forwarding tables: the hops a packet from
// one port takes to a destination LID, as ibtracert walks them, but from a
// snapshot, so any pair (or all pairs) can be traced offline.

#include <string>
#include <vector>

#include "model/fabric.h"
#include "util/result.h"

namespace fabscope {

/// The longest route followed through the forwarding tables: longer is a loop.
inline constexpr size_t kMaxRouteHops = 64;

/// One cable crossed: out of `from`, into `to`.
struct Hop {
    PortRef from;
    PortRef to;
};

struct Route {
    PortRef source;  ///< the port the packet leaves the source node by
    Guid destination = 0;
    Lid dlid = 0;
    std::vector<Hop> hops;
};

/// Traces from `src` (its first linked port, or `src_port` if non-zero) to
/// `dlid`. Fails with what stopped it: a switch without a table or a route
/// for the LID, a port with no link, a loop, or a route ending elsewhere.
Result<Route> trace_route(const Fabric& f, const Node& src, Lid dlid, uint8_t src_port = 0);

/// Resolves a node named on the command line: its description, or the first
/// word of it ("h0005" for "h0005 HCA-1"), a node or port GUID ("0x..."), or
/// a LID. Ambiguous or unknown keys are usage errors.
Result<const Node*> resolve_node(const Fabric& f, const std::string& key);

}  // namespace fabscope
