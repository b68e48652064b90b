#pragma once
// What a fabric-wide test needs to know about paths: the endpoints (one per
// host port with a LID), and for a flow from one endpoint to another, the
// cables it crosses in the direction it crosses them.
//
// A cable crossed in one direction is a "lane": lane = link index * 2 + 0
// when the flow goes from the link's `a` end to its `b` end, + 1 the other
// way. Lanes are what a slow flow implicates and what a round of tests must
// not share, since a degraded cable may be bad one way only (a bad transmitter,
// a dirty connector on one fibre).
//
// On InfiniBand the path is read from the switches' forwarding tables (a
// snapshot from `sweep -o FILE`, routes read); with LMC > 0 a destination answers to
// 2^LMC LIDs that the subnet manager may route over different spines, so a
// pair has several "variants". On RoCE the path is the traced one.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/fabric.h"

namespace fabscope {

using Lane = uint32_t;

constexpr Lane lane_of(size_t link, bool a_to_b) {
    return static_cast<Lane>(link * 2 + (a_to_b ? 0 : 1));
}
constexpr size_t link_of_lane(Lane lane) {
    return lane / 2;
}
constexpr Lane reverse_lane(Lane lane) {
    return lane ^ 1U;
}

/// One port that runs tests: a host's (or any CA's) port with a LID.
struct MeshEndpoint {
    Guid node = 0;
    uint8_t port = 0;
    Lid lid = 0;
    uint8_t lmc = 0;
    std::string name;  ///< "h0001" (the first word of the description) or the GUID
    /// The switch the port is cabled to (its leaf), 0 if it is not cabled to one.
    Guid leaf = 0;
};

/// Whether a snapshot holds forwarding tables (was swept with routes).
bool has_routes(const Fabric& f);

/// Every CA port that is up and has a LID, in fabric order.
std::vector<MeshEndpoint> endpoints_from_fabric(const Fabric& f);

/// The lanes of every switch-to-switch cable: what `cover` must cross.
std::vector<Lane> fabric_lanes(const Fabric& f);

/// The port a lane of `f` leaves by, and the port it enters (on the
/// routing walks' hot path: the lane is not checked).
inline PortRef lane_source(const Fabric& f, Lane lane) {
    const Link& l = f.links()[link_of_lane(lane)];
    return (lane & 1U) == 0 ? l.a : l.b;
}
inline PortRef lane_target(const Fabric& f, Lane lane) {
    return lane_source(f, reverse_lane(lane));
}

/// "leaf03[17] -> spine02[5]": a lane by the ports at its ends.
std::string describe_lane(const Fabric& f, Lane lane);
/// "leaf03[17] <-> spine02[5]": the cable.
std::string describe_cable(const Fabric& f, size_t link);

/// The path of a flow, in lanes from source to destination; empty when the
/// oracle does not know it (no route, a table missing, not traced).
struct FlowPath {
    std::vector<Lane> lanes;
    std::string error;  ///< why there is no path
    bool ok() const { return error.empty(); }
};

class PathOracle {
  public:
    virtual ~PathOracle() = default;
    /// How many distinct ways to reach `dst` the oracle can ask for (LMC
    /// variants on IB, flow labels on RoCE); at least 1.
    virtual int variants(const MeshEndpoint& dst) const = 0;
    virtual FlowPath path(const MeshEndpoint& src, const MeshEndpoint& dst, int variant) const = 0;
    /// The destinations `src` has paths to, where the oracle knows only
    /// some pairs (traces sampled on a large fabric); empty where any pair
    /// may be asked (routes).
    virtual const std::vector<Guid>& partners(Guid /*src*/) const {
        static const std::vector<Guid> kAny;
        return kAny;
    }
};

/// Paths from the linear forwarding tables of a snapshot swept with routes.
/// A path is cached per (first switch, destination LID): every host under
/// one leaf shares the rest of the way, so a 16k-host plan stays cheap.
class IbPathOracle final : public PathOracle {
  public:
    explicit IbPathOracle(const Fabric& f) : fabric_(f) {}
    int variants(const MeshEndpoint& dst) const override { return 1 << dst.lmc; }
    FlowPath path(const MeshEndpoint& src, const MeshEndpoint& dst, int variant) const override;

  private:
    /// From switch `sw` onwards to `dlid`.
    const FlowPath& from_switch(Guid sw, Lid dlid) const;
    const Fabric& fabric_;
    mutable std::unordered_map<uint64_t, FlowPath> cache_;
};

/// Paths someone traced (RoCE: UDP probes with rising TTL, answered by each
/// router), given as the lanes per (source, destination, variant).
class TracedPathOracle final : public PathOracle {
  public:
    void add(Guid src, Guid dst, int variant, std::vector<Lane> lanes);
    void set_variants(int n) { variants_ = n < 1 ? 1 : n; }
    int variants(const MeshEndpoint&) const override { return variants_; }
    FlowPath path(const MeshEndpoint& src, const MeshEndpoint& dst, int variant) const override;
    const std::vector<Guid>& partners(Guid src) const override;

  private:
    struct Key {
        Guid src;
        Guid dst;
        int variant;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key& k) const;
    };
    /// Where a path's lanes are in pool_: rank 0 of a RoCE cover keeps 2
    /// million traced paths at 4,096 ranks, a vector each cost 56 bytes more.
    struct Span {
        uint32_t offset = 0;
        uint32_t count = 0;
    };
    std::unordered_map<Key, Span, KeyHash> paths_;
    std::vector<Lane> pool_;
    std::unordered_map<Guid, std::vector<Guid>> partners_;  ///< by source, in the order added
    int variants_ = 1;
};

/// RoCEv2: the kernel derives a QP's UDP source port from its GRH flow label
/// (rdma_flow_label_to_udp_sport), and switches hash the source port into
/// their ECMP choice, so choosing a flow label chooses the path. The label
/// for a wanted source port, and back.
uint16_t sport_for_flow_label(uint32_t flow_label);
std::optional<uint32_t> flow_label_for_sport(uint16_t sport);

}  // namespace fabscope
