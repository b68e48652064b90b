#pragma once
// The PCIe side of the inventory: an RDMA device's link (current against
// maximum speed and width, NUMA node) and the GPUs and NICs near it, from
// sys/bus/pci/devices (Documentation/ABI/testing/sysfs-bus-pci).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "host/inventory.h"
#include "host/sysfs_file.h"

namespace fabscope::host {

/// The PCIe link of the device `device_link` points to (a path under the root
/// such as sys/class/infiniband/mlx5_0/device); nullopt when it is not a PCI
/// device (Soft-RoCE has none).
std::optional<PciLink> read_pci_link(SysfsFiles& files, const std::filesystem::path& device_link);

/// Every PCI function of the host: address, class, vendor, device, NUMA
/// node and its chain below sys/devices.
struct PciFunction {
    std::string address;
    std::vector<std::string> chain;
    uint32_t pci_class = 0;
    uint32_t vendor = 0;
    uint32_t device = 0;
    std::optional<int> numa_node;
};
std::vector<PciFunction> read_pci_functions(SysfsFiles& files);

/// The GPUs and NICs among `all` that share `link`'s PCIe switch or NUMA
/// node, the device itself left out.
std::vector<PciNeighbour> pci_neighbours(const PciLink& link, const std::vector<PciFunction>& all);

/// Shares a PCIe switch: the two devices' chains have the same host bridge,
/// root port and switch upstream port (nvidia-smi topo's PIX/PXB).
bool same_pcie_switch(const std::vector<std::string>& a, const std::vector<std::string>& b);

/// A GPU by PCI class and vendor: 3D controllers (0x0302) of any vendor, and
/// VGA (0x0300) or other display controllers (0x0380) of NVIDIA and AMD.
bool is_gpu(uint32_t pci_class, uint32_t vendor);
/// A network controller: Ethernet (0x0200) or InfiniBand (0x0207).
bool is_nic(uint32_t pci_class);

}  // namespace fabscope::host
