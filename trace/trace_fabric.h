#pragma once
// The switch-level fabric as RoCE path traces show it: every router that
// answered a probe is a switch, and two routers answering consecutive TTLs of
// one trace are joined by a cable. A router is known by its name (from the
// hosts file, e.g. "s2") or, unnamed, by the address it answered from.
//
// With icmp_errors_use_inbound_ifaddr (or any router that answers from the
// interface the probe came in on) the address of hop i+1 is its end of the
// cable from hop i, so cables are named by the addresses at their ends as
// traces in both directions reveal them: "l1[10.9.12.0] -> s2[10.9.12.1]".
// Two parallel cables between the same two routers are seen as one (a trace
// names routers, not the port a packet left by).
//
// The result is a model Fabric (switches only), so the scheduler's cover and
// separating rounds and schedule/localize work on traced paths as on IB routes.
// On InfiniBand the fabric is a swept snapshot instead (from_snapshot): its
// lanes are its switch-to-switch cables and their ends are named by port
// ("leaf03[17]"), so a mesh run's analysis names IB and RoCE cables alike.

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/paths.h"
#include "trace/roce_trace.h"

namespace fabscope::perf {

/// The GUIDs that stand for ranks, which have none (a host of the traced
/// fabric is node kRankGuidBase + its rank).
inline constexpr Guid kRankGuidBase = 0x4850000000000000ULL;  // "HP"

/// A rank as a host of the traced fabric: cabled to the router its own
/// traces leave by, so its cable is a lane like any other (a slow NIC or a
/// bad host cable slows every flow through it, and no leaf-spine cable).
struct TracedHost {
    int rank = 0;
    std::string name;          ///< its host name
    std::string first_hop;     ///< router_key of the first hop of its traces
    std::string leaf_address;  ///< the address that router answered it from
};

class TracedFabric {
  public:
    /// Builds the fabric of every router and cable on `paths` (each a trace's
    /// hops, nearest first), and of `hosts` cabled to their first hops.
    static TracedFabric from_paths(const std::vector<std::vector<TraceHop>>& paths,
                                   const std::vector<TracedHost>& hosts = {});

    /// An InfiniBand snapshot's fabric, shared (not copied: its forwarding
    /// tables may be large); lanes are its links' (mesh_paths' lane_of).
    static TracedFabric from_snapshot(std::shared_ptr<const Fabric> snapshot);

    const Fabric& fabric() const { return snapshot_ ? *snapshot_ : fabric_; }
    /// The lanes a traced path crosses, in order.
    std::vector<Lane> lanes_of(const std::vector<TraceHop>& hops) const;
    /// Every lane of every cable seen: what a cover must cross.
    std::vector<Lane> lanes() const { return fabric_lanes(fabric()); }
    /// The switch a router name (or unnamed router's address) stands for.
    std::optional<Guid> router(const std::string& key) const;
    /// The router a path starts at (a host's leaf), as a switch GUID.
    std::optional<Guid> first_router(const std::vector<TraceHop>& hops) const;
    /// "l1[10.9.12.0] -> s2[10.9.12.1]"; an end whose address no trace showed is
    /// its name alone.
    std::string lane_name(Lane lane) const;
    /// "l1[10.9.12.0] <-> s2[10.9.12.1]".
    std::string cable_name(size_t link) const;
    /// A router's name as traces give it.
    std::string router_name(Guid g) const;
    /// The address a cable end answered from ("" when no trace showed it).
    std::string address(PortRef end) const;
    /// A rank's own cable, toward its leaf (`sending`) or from it; nothing
    /// when the rank is no host of this fabric.
    std::optional<Lane> host_lane(int rank, bool sending) const;
    /// A cable end as a lane or a cable names it: "l1[10.9.12.0]", "h0002[1]".
    std::string end_name(PortRef p) const;

  private:
    Fabric fabric_;
    std::shared_ptr<const Fabric> snapshot_;
    std::map<std::string, Guid> by_key_;
    std::map<PortRef, std::string> address_;
    std::map<int, PortRef> host_port_;  ///< by rank: its end of its cable
};

/// How a hop is known: its name, else its address.
std::string router_key(const TraceHop& h);

}  // namespace fabscope::perf
