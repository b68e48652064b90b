#pragma once
// A node of the model from the SMP replies about it, written once for both
// ways they arrive: fabscope's own sweep and libibnetdisc's fabric (from an
// `ibnetdiscover --cache` file). Pure: raw 64-byte replies in, a Node out.

#include <array>
#include <boost/container/flat_map.hpp>
#include <cstdint>
#include <map>

#include "discover/smp_decode.h"

namespace fabscope {

using RawSmp = std::array<uint8_t, kSmpDataSize>;

struct SmpReplies {
    NodeInfo info;
    std::string description;  ///< decoded NodeDescription
    bool enhanced_port0 = false;
    /// PortInfo replies by port number: flat (a vector sorted by port; the
    /// sweep reserves a node's ports), not a tree node per port.
    boost::container::flat_map<uint8_t, RawSmp> port_info;
    /// Port GUIDs where known port by port; otherwise NodeInfo's PortGUID.
    std::map<uint8_t, Guid> port_guids;
};

/// The node with every port that has a PortInfo reply. A switch's external
/// ports take IsExtendedSpeedsSupported from port 0's capability mask and
/// carry the switch's LID and LMC (port 0's), as libibnetdisc reports them.
/// Peers, forwarding table and counters are the caller's to add.
Node assemble_node(const SmpReplies& r);

RawSmp raw_smp(std::span<const uint8_t, kSmpDataSize> d);

}  // namespace fabscope
