#pragma once
// Pure parsers of the values the kernel writes in RDMA and PCI sysfs
// attributes (Documentation/ABI/stable/sysfs-class-infiniband,
// Documentation/ABI/testing/sysfs-bus-pci). Each returns nullopt for text it
// does not recognise; the caller names the file.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/link_rate.h"

namespace fabscope::host {

/// "4: ACTIVE" (ports/N/state, phys_state, node_type) -> {4, "ACTIVE"}.
struct NumberedName {
    int number = 0;
    std::string name;
};
std::optional<NumberedName> parse_numbered_name(std::string_view s);

/// ports/N/rate: "200 Gb/sec (4X HDR)", "2.5 Gb/sec (1X SDR)"; kernels
/// before 4.x wrote "(4X)" for SDR.
struct PortRate {
    double gbps = 0;
    Width width = Width::X1;
    Speed speed = Speed::SDR;
};
std::optional<PortRate> parse_port_rate(std::string_view s);

/// "0x1f", "31" -> 31; nothing else.
std::optional<uint64_t> parse_uint(std::string_view s);
/// A decimal integer that may be negative ("-1" in numa_node).
std::optional<int64_t> parse_int(std::string_view s);
/// node_guid "0c42:a103:0012:3456" -> 0x0c42a10300123456.
std::optional<uint64_t> parse_guid(std::string_view s);
/// current_link_speed "16.0 GT/s PCIe" (or "16.0 GT/s", "2.5 GT/s") -> 16.0;
/// "Unknown" -> nullopt.
std::optional<double> parse_pcie_speed(std::string_view s);
/// current_link_width "16" (or "x16") -> 16.
std::optional<int> parse_pcie_width(std::string_view s);
/// A GID as sysfs prints it: eight groups of four hex digits.
bool is_gid(std::string_view s);
/// The all-zero GID of an unused table entry.
bool is_zero_gid(std::string_view s);

}  // namespace fabscope::host
