#pragma once
// The fabric model: nodes with their ports, and the links between ports.
// A Fabric is built once from nodes whose ports name their peers; it checks
// that the peers agree, derives the links and the graph, and is then read-only.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "model/counters.h"
#include "model/link_rate.h"
#include "util/boxed.h"
#include "util/result.h"

namespace fabscope {

using Guid = uint64_t;
using Lid = uint16_t;

enum class NodeType : uint8_t { CA = 1, Switch = 2, Router = 3 };

/// PortInfo PortState.
enum class PortState : uint8_t { NoChange = 0, Down = 1, Init = 2, Armed = 3, Active = 4 };

/// PortInfo PortPhysicalState.
enum class PhysState : uint8_t {
    NoChange = 0,
    Sleep = 1,
    Polling = 2,
    Disabled = 3,
    Training = 4,  ///< PortConfigurationTraining
    LinkUp = 5,
    LinkErrorRecovery = 6,
    PhyTest = 7,
};

/// PortInfo CapabilityMask.IsSM: an SM runs on the port.
inline constexpr uint32_t kCapIsSM = 1U << 1;

/// SMInfo SMState (IBA vol 1, 14.2.5.13).
enum class SmState : uint8_t { NotActive = 0, Discovering = 1, Standby = 2, Master = 3 };

/// What a subnet manager says of itself in SMInfo. The SM_Key is not kept:
/// an SM answers it to those who know it, and a report is no place for it.
struct SmInfo {
    Guid guid = 0;           ///< the SM's port GUID, as it reports it
    uint32_t act_count = 0;  ///< ActCount: rises as the SM works (and with each MAD it answers)
    uint8_t priority = 0;    ///< 0..15
    SmState state = SmState::NotActive;
};

/// A port of a node: (node GUID, port number).
struct PortRef {
    Guid node = 0;
    uint8_t port = 0;
    // clang-tidy 14 reads the 0 that a defaulted <=> compares against as a null pointer.
    auto operator<=>(const PortRef&) const = default;  // NOLINT(modernize-use-nullptr)
};

struct Port {
    uint8_t num = 0;
    Guid guid = 0;
    Lid lid = 0;  ///< base LID; a switch's external ports carry port 0's LID
    uint8_t lmc = 0;
    PortState state = PortState::Down;
    PhysState phys_state = PhysState::Polling;
    /// Active width and speed mean something only while the link is up.
    std::optional<Width> width_active;
    WidthSet width_enabled;
    WidthSet width_supported;
    std::optional<Speed> speed_active;
    SpeedSet speed_enabled;
    SpeedSet speed_supported;
    uint16_t mtu_cap = 0;     ///< bytes
    uint16_t mtu_active = 0;  ///< NeighborMTU, bytes
    uint32_t capability_mask = 0;
    std::optional<PortRef> peer;  ///< the port at the other end of the cable
    /// From a sweep that read them; boxed: a topology-only sweep has none.
    Boxed<PortCounters> counters;
    /// SMInfo, from a sweep that asked the ports claiming IsSM and was answered.
    std::optional<SmInfo> sm;
    /// The P_Key table's entries in use (not 0), in table order, membership
    /// bit (0x8000: full) included; from a sweep that read partitions.
    std::optional<std::vector<uint16_t>> pkeys;

    bool link_up() const { return phys_state == PhysState::LinkUp; }
};

struct Node {
    Guid guid = 0;
    NodeType type = NodeType::CA;
    std::string description;
    Guid system_guid = 0;
    uint32_t vendor_id = 0;
    uint16_t device_id = 0;
    uint32_t revision = 0;
    uint8_t num_ports = 0;
    bool enhanced_port0 = false;  ///< switches only
    /// The plane (subnet) it was found on: an index into the snapshot's planes
    /// (model/plane.h); 0 in a fabric of one plane.
    uint16_t plane = 0;
    /// The ports that were read, sorted by number; a switch's port 0 included.
    std::vector<Port> ports;
    /// Switches, from a sweep with routes: the linear forwarding table, the
    /// egress port for each destination LID (index), 255 = no route.
    std::vector<uint8_t> lft;
    /// PortSamplesControl.Tick from its PMA, where a sweep with counters was
    /// answered: a PortXmitWait tick is Tick + 1 byte times of a lane
    /// (model/counter_checks.h xmit_wait_tick_multiplier).
    std::optional<uint8_t> pma_tick;

    const Port* port(uint8_t num) const;
    Port* port(uint8_t num);
    /// The LID that addresses the node: port 0's for a switch, else the lowest
    /// LID of its ports (0 if none is assigned).
    Lid lid() const;
    /// Whether a packet to `dlid` is for this node: a switch's port 0 LID, or
    /// any of the 2^LMC LIDs of one of its ports.
    bool answers_to(Lid dlid) const;
};

/// A cable: two ports that name each other as peers. `a` < `b`.
struct Link {
    PortRef a;
    PortRef b;
};

struct FabricGraph;  ///< model/fabric_graph.h

class Fabric {
  public:
    Fabric();

    /// Builds a fabric from nodes. Fails if two nodes share a GUID, a peer names
    /// a node or port that is not there, or two ports disagree about being peers.
    static Result<Fabric> build(std::vector<Node> nodes);

    const std::vector<Node>& nodes() const { return nodes_; }
    const std::vector<Link>& links() const { return links_; }
    /// The nodes and links as a Boost.Graph (model/fabric_graph.h).
    const FabricGraph& graph() const { return *graph_; }

    const Node* node(Guid guid) const;
    std::optional<size_t> index_of(Guid guid) const;
    const Port* port(PortRef ref) const;
    /// The link a port is part of, if any.
    const Link* link_of(PortRef ref) const;
    /// Finds a node by its description (exact), by GUID ("0x..."), or by LID.
    const Node* find(std::string_view key) const;
    const Node* find_by_lid(Lid lid) const;

  private:
    std::vector<Node> nodes_;
    std::vector<Link> links_;
    std::unordered_map<Guid, size_t> index_;
    std::unordered_map<Lid, size_t> by_lid_;
    std::vector<std::vector<size_t>> link_of_port_;  // node index -> port slot -> link index+1
    /// Shared by copies: a fabric is read-only once built.
    std::shared_ptr<const FabricGraph> graph_;
};

std::string_view name(NodeType t);   ///< "CA", "Switch", "Router"
std::string_view name(PortState s);  ///< "Active"
std::string_view name(PhysState s);  ///< "LinkUp"
std::string_view name(SmState s);    ///< "master", "standby", "discovering", "not-active"
std::string format_guid(Guid g);     ///< "0x0000000000200001"
std::optional<Guid> parse_guid(std::string_view s);
/// "leaf01[5]" (by description), falling back to the GUID when unnamed.
std::string describe(const Fabric& f, PortRef ref);

}  // namespace fabscope
