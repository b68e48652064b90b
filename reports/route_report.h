#pragma once
// `fabscope route`'s outputs (docs/route.schema.json): one route's hops as
// text and JSON, and `--balance`'s destinations per switch port, each
// leaf's spread over its uplinks and the routing findings, as text and
// JSON. Pure: the fabric and the route or the forwarding tables' analysis in.

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "check/routing_checks.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "model/route.h"

namespace fabscope {

/// "Route h0001 HCA-1 (LID 3) -> h0005 HCA-1 (LID 7), 3 hops" and a line a hop.
std::string render_route(const Fabric& f, const Node& src, const Node& dst, const Route& r);
/// The route's document: its source port, destination, DLID and hops.
nlohmann::json route_json(const Fabric& f, const Node& dst, const Route& r);

/// Per switch, leaves first: each egress port's destination LIDs, and a
/// leaf's spread over its uplinks.
std::string render_balance(const Fabric& f, const RoutingAnalysis& a);
/// The balance document: the analysis's figures, each switch's cabled ports
/// with what they carry, and `findings` (routing_findings of the analysis).
nlohmann::json balance_json(const Fabric& f, const RoutingAnalysis& a,
                            const std::vector<Finding>& findings);

}  // namespace fabscope
