#pragma once
// A RoCE fabric as the same Fabric model InfiniBand discovery builds: every
// host's RDMA devices (from its inventory) and, from the LLDP neighbours of
// their netdevs, the leaf switches and the cable from each host port to its
// leaf port. Pure: hosts in, a fabric and what could not be placed out.
//
// Identities: a host's device is a CA named "<host> <device>" with its node
// GUID; a leaf is a switch named by its LLDP system name, its GUID the
// EUI-64 of its chassis MAC (a hash of the chassis ID when it is no MAC), its
// port numbers the digits that end the port's name ("swp12" -> 12).

#include <string>
#include <vector>

#include "host/inventory.h"
#include "host/lldp_neighbour.h"
#include "model/fabric.h"
#include "model/finding.h"
#include "util/result.h"

namespace fabscope::host {

/// One host's part of a RoCE discovery.
struct RoceHost {
    std::string name;  ///< the host's name (its hostname)
    HostInventory inventory;
    std::vector<LldpNeighbour> neighbours;
    /// Why no neighbours could be read (lldpd not running), "" when they were.
    std::string lldp_error;
};

/// The neighbours on the netdevs of the inventory's RoCE ports only.
std::vector<LldpNeighbour> rdma_netdev_neighbours(const HostInventory& inv,
                                                  std::vector<LldpNeighbour> all);

struct RoceAssembly {
    Fabric fabric;
    /// What the model could not hold or the hosts did not show: a RoCE port
    /// with no LLDP neighbour, two hosts on one leaf port, a leaf port with no
    /// number in its name.
    std::vector<Finding> problems;
};

/// The fabric of `hosts`. Fails only when two devices share a node GUID.
Result<RoceAssembly> assemble_roce_fabric(const std::vector<RoceHost>& hosts);

/// The address a host's RoCE traffic leaves from: the IPv4 address of the
/// first RoCE v2 GID of its first active RoCE port.
struct RoceAddress {
    std::string device;
    int port = 0;
    std::string address;  ///< "10.9.11.2"
};
std::optional<RoceAddress> roce_v2_address(const HostInventory& inv);
/// "0000:0000:0000:0000:0000:ffff:0a09:0b02" (sysfs GID) -> "10.9.11.2"; ""
/// when the GID is not IPv4-mapped.
std::string gid_text_ipv4(std::string_view gid);

/// "0011:2233:4455:6677" (sysfs node_guid) -> 0x0011223344556677.
std::optional<Guid> parse_sysfs_guid(std::string_view s);
/// A leaf's GUID from its LLDP chassis ID (see the file comment).
Guid chassis_guid(std::string_view subtype, std::string_view id);

}  // namespace fabscope::host
