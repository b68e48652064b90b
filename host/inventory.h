#pragma once
// The RDMA inventory of one host, read from sysfs under a root that is a
// parameter: "/" on a live host, a fixture tree in tests. Every device under
// sys/class/infiniband with its ports (state, rate, LIDs, GID table, counters),
// the netdev behind each port, the PCIe link of the device and the GPUs and
// NICs that share its PCIe switch or NUMA node. Reading never stops at a bad
// file: the file and what was wrong become an InventoryProblem.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/module_eeprom.h"
#include "host/sysfs_file.h"
#include "model/link_rate.h"

namespace fabscope::host {

struct GidEntry {
    int index = 0;
    std::string gid;   ///< "fe80:0000:...", as sysfs prints it
    std::string type;  ///< "IB/RoCE v1", "RoCE v2" ("" when the kernel gives none)
    std::string ndev;  ///< the netdev of a RoCE GID ("" on InfiniBand)
};

struct NetDev {
    std::string name;
    std::optional<int> mtu;
    std::string operstate;  ///< "up", "down", ...
};

/// What the kernel's RDMA netlink interface says of a port (`rdma link`).
struct NetlinkPort {
    std::string state;       ///< "ACTIVE", as `rdma link` prints it
    std::string phys_state;  ///< "LINK_UP"
    std::string netdev;      ///< "" when none
    std::optional<uint32_t> netdev_index;
};

/// The pluggable module behind a RoCE port's netdev, as ethtool netlink
/// reads it on a live host (host/module_netlink.h).
struct PortModule {
    std::string
        status;  ///< "present", "none" (nothing to read: a veth, an empty cage), "unreadable"
    std::string detail;  ///< why not present, as the kernel said it
    std::optional<ModuleInfo> info;
};

struct HostPort {
    int port = 1;
    std::optional<int> state_code;       ///< 4 = ACTIVE
    std::string state;                   ///< "ACTIVE" ("" when unreadable)
    std::string phys_state;              ///< "LinkUp"
    std::optional<int> phys_state_code;  ///< 5 = LinkUp
    std::string link_layer;              ///< "InfiniBand" or "Ethernet"
    std::string rate_text;               ///< ports/N/rate as read
    std::optional<double> rate_gbps;
    std::optional<Width> width;
    std::optional<Speed> speed;
    std::optional<uint32_t> lid;
    std::optional<uint32_t> sm_lid;
    std::optional<int> active_mtu;  ///< bytes, from libibverbs on a live host
    std::vector<GidEntry> gids;     ///< the populated entries only
    std::optional<NetDev> netdev;
    std::map<std::string, uint64_t> counters;  ///< ports/N/counters
    std::optional<NetlinkPort> netlink;        ///< live hosts, when RDMA netlink answered
    std::optional<PortModule> module;          ///< live hosts, RoCE ports with a netdev

    bool active() const { return state_code == 4; }
    bool roce() const { return link_layer == "Ethernet"; }
};

/// A GPU or NIC near an RDMA device.
struct PciNeighbour {
    std::string address;  ///< "0000:04:00.0"
    std::string kind;     ///< "gpu" or "nic"
    uint32_t vendor = 0;
    uint32_t device = 0;
    uint32_t pci_class = 0;
    bool same_switch = false;  ///< below the same PCIe switch
    bool same_numa = false;
};

struct PciLink {
    std::string address;  ///< "0000:03:00.0"
    /// The device's path below sys/devices: host bridge, bridges, itself.
    std::vector<std::string> chain;
    std::string current_speed_text;
    std::string max_speed_text;
    std::optional<double> current_speed_gts;
    std::optional<double> max_speed_gts;
    std::optional<int> current_width;
    std::optional<int> max_width;
    std::optional<int> numa_node;  ///< nullopt for -1 (no NUMA)
};

struct RdmaDevice {
    std::string name;  ///< "mlx5_0"
    std::string node_guid;
    std::string fw_ver;
    std::string node_type;  ///< "CA"
    std::string hca_type;   ///< "MT4123"
    std::string board_id;
    std::optional<PciLink> pci;
    std::vector<PciNeighbour> neighbours;
    std::vector<HostPort> ports;
    std::optional<uint32_t> netlink_index;  ///< the kernel's device index (RDMA netlink)
    std::string protocol;                   ///< RDMA netlink: "ib", "roce", "iw" ("" unknown)
};

struct HostInventory {
    std::string root;
    std::vector<RdmaDevice> devices;
    std::vector<InventoryProblem> problems;
    /// What was read: "sysfs" always, "libibverbs" and "netlink" on a live host.
    std::vector<std::string> sources{"sysfs"};
};

/// Reads the inventory under `root` ("/" = this host's sysfs).
HostInventory read_inventory(const std::string& root = "/");

}  // namespace fabscope::host
