#include "host/pci_inventory.h"

#include <fmt/format.h>

#include "host/sysfs_parse.h"

namespace fabscope::host {

namespace fs = std::filesystem;

namespace {

/// "pci0000:00/0000:00:01.0/0000:03:00.0" -> its parts from the host bridge on.
std::vector<std::string> chain_of(const fs::path& below_devices) {
    std::vector<std::string> chain;
    bool started = false;
    for (const auto& part : below_devices) {
        std::string s = part.string();
        if (!started && s.rfind("pci", 0) == 0) started = true;
        if (started) chain.push_back(s);
    }
    return chain;
}

std::optional<uint32_t> hex_attr(SysfsFiles& files, const fs::path& rel) {
    auto text = files.read(rel, true);
    if (!text) return std::nullopt;
    auto v = parse_uint(*text);
    if (!v || *v > 0xffffffffU) {
        files.bad_value(rel, fmt::format("\"{}\" is not a hexadecimal number", *text));
        return std::nullopt;
    }
    return static_cast<uint32_t>(*v);
}

std::optional<int> numa_attr(SysfsFiles& files, const fs::path& rel) {
    auto text = files.read(rel);
    if (!text) return std::nullopt;  // kernels without NUMA have no such file
    auto v = parse_int(*text);
    if (!v || *v < -1 || *v > 4095) {
        files.bad_value(rel, fmt::format("\"{}\" is not a NUMA node", *text));
        return std::nullopt;
    }
    if (*v < 0) return std::nullopt;
    return static_cast<int>(*v);
}

}  // namespace

std::optional<PciLink> read_pci_link(SysfsFiles& files, const fs::path& device_link) {
    fs::path real = files.resolve(device_link);
    std::vector<std::string> chain = chain_of(real);
    if (chain.size() < 2) return std::nullopt;
    PciLink link;
    link.address = chain.back();
    link.chain = chain;
    fs::path dir = fs::path("sys/devices") / real;
    auto speed = [&](const char* name, std::string& text, std::optional<double>& gts) {
        auto t = files.read(dir / name, true);
        if (!t) return;
        text = *t;
        gts = parse_pcie_speed(*t);
        if (!gts) files.bad_value(dir / name, fmt::format("\"{}\" is not a PCIe link speed", *t));
    };
    auto width = [&](const char* name, std::optional<int>& w) {
        auto t = files.read(dir / name, true);
        if (!t) return;
        w = parse_pcie_width(*t);
        if (!w) files.bad_value(dir / name, fmt::format("\"{}\" is not a PCIe link width", *t));
    };
    speed("current_link_speed", link.current_speed_text, link.current_speed_gts);
    speed("max_link_speed", link.max_speed_text, link.max_speed_gts);
    width("current_link_width", link.current_width);
    width("max_link_width", link.max_width);
    link.numa_node = numa_attr(files, dir / "numa_node");
    return link;
}

std::vector<PciFunction> read_pci_functions(SysfsFiles& files) {
    std::vector<PciFunction> out;
    const fs::path bus = "sys/bus/pci/devices";
    for (const auto& name : files.list(bus)) {
        PciFunction f;
        f.address = name;
        f.chain = chain_of(files.resolve(bus / name));
        auto cls = hex_attr(files, bus / name / "class");
        auto vendor = hex_attr(files, bus / name / "vendor");
        if (!cls || !vendor) continue;
        f.pci_class = *cls;
        f.vendor = *vendor;
        f.device = hex_attr(files, bus / name / "device").value_or(0);
        f.numa_node = numa_attr(files, bus / name / "numa_node");
        out.push_back(std::move(f));
    }
    return out;
}

bool same_pcie_switch(const std::vector<std::string>& a, const std::vector<std::string>& b) {
    // host bridge, root port, switch upstream port: three shared parents.
    constexpr size_t kShared = 3;
    if (a.size() <= kShared || b.size() <= kShared) return false;
    for (size_t i = 0; i < kShared; ++i) {
        if (a[i] != b[i]) return false;
    }
    return true;
}

bool is_gpu(uint32_t pci_class, uint32_t vendor) {
    uint32_t sub = pci_class >> 8;  // class and subclass, without the interface
    constexpr uint32_t kNvidia = 0x10de;
    constexpr uint32_t kAmd = 0x1002;
    if (sub == 0x0302) return true;
    return (sub == 0x0300 || sub == 0x0380) && (vendor == kNvidia || vendor == kAmd);
}

bool is_nic(uint32_t pci_class) {
    uint32_t sub = pci_class >> 8;
    return sub == 0x0200 || sub == 0x0207;
}

std::vector<PciNeighbour> pci_neighbours(const PciLink& link, const std::vector<PciFunction>& all) {
    std::vector<PciNeighbour> out;
    for (const auto& f : all) {
        if (f.address == link.address) continue;
        bool gpu = is_gpu(f.pci_class, f.vendor);
        if (!gpu && !is_nic(f.pci_class)) continue;
        PciNeighbour n;
        n.address = f.address;
        n.kind = gpu ? "gpu" : "nic";
        n.vendor = f.vendor;
        n.device = f.device;
        n.pci_class = f.pci_class;
        n.same_switch = same_pcie_switch(link.chain, f.chain);
        n.same_numa = link.numa_node && f.numa_node && *link.numa_node == *f.numa_node;
        if (n.same_switch || n.same_numa) out.push_back(std::move(n));
    }
    return out;
}

}  // namespace fabscope::host
