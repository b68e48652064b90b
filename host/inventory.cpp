#include "host/inventory.h"

#include <fmt/format.h>

#include <algorithm>

#include "host/pci_inventory.h"
#include "host/sysfs_parse.h"

namespace fabscope::host {

namespace fs = std::filesystem;

namespace {

const fs::path kClassIb = "sys/class/infiniband";
const fs::path kClassNet = "sys/class/net";

/// The largest GID table read (mlx5 has 256 entries per port, rxe 1024).
constexpr int kMaxGids = 4096;
constexpr int kMaxPorts = 254;

std::optional<uint32_t> lid_attr(SysfsFiles& files, const fs::path& rel) {
    auto t = files.read(rel);
    if (!t) return std::nullopt;
    auto v = parse_uint(*t);
    if (!v || *v > 0xffff) {
        files.bad_value(rel, fmt::format("\"{}\" is not a LID", *t));
        return std::nullopt;
    }
    return static_cast<uint32_t>(*v);
}

std::optional<NetDev> read_netdev(SysfsFiles& files, const std::string& name) {
    if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
        return std::nullopt;
    fs::path dir = kClassNet / name;
    std::error_code ec;
    if (!fs::exists(files.full(dir), ec)) return std::nullopt;
    NetDev n;
    n.name = name;
    if (auto t = files.read(dir / "mtu", true)) {
        auto v = parse_uint(*t);
        if (v && *v >= 68 && *v <= 65536) {
            n.mtu = static_cast<int>(*v);
        } else {
            files.bad_value(dir / "mtu", fmt::format("\"{}\" is not an MTU", *t));
        }
    }
    n.operstate = files.read(dir / "operstate", true).value_or("");
    return n;
}

/// The netdev of a port without RoCE GIDs naming it (IPoIB): the device's
/// PCI function's net/ entries, matched by dev_port (0-based).
std::string netdev_by_dev_port(SysfsFiles& files, const fs::path& dev_dir, int port) {
    for (const auto& name : files.list(dev_dir / "device" / "net")) {
        auto dp = files.read(kClassNet / name / "dev_port");
        auto v = dp ? parse_uint(*dp) : std::optional<uint64_t>(0);
        if (v && static_cast<int>(*v) == port - 1) return name;
    }
    return "";
}

std::map<std::string, uint64_t> read_counters(SysfsFiles& files, const fs::path& dir) {
    std::map<std::string, uint64_t> out;
    for (const auto& name : files.list(dir)) {
        auto t = files.read(dir / name);
        if (!t) continue;
        auto v = parse_uint(*t);
        if (!v) {
            files.bad_value(dir / name, fmt::format("\"{}\" is not a counter value", *t));
            continue;
        }
        out[name] = *v;
    }
    return out;
}

std::vector<GidEntry> read_gids(SysfsFiles& files, const fs::path& port_dir) {
    std::vector<GidEntry> gids;
    std::vector<int> indices;
    for (const auto& name : files.list(port_dir / "gids")) {
        auto i = parse_uint(name);
        if (i && *i < kMaxGids) indices.push_back(static_cast<int>(*i));
    }
    std::sort(indices.begin(), indices.end());
    for (int i : indices) {
        std::string idx = std::to_string(i);
        auto g = files.read(port_dir / "gids" / idx);
        if (!g) continue;
        if (!is_gid(*g)) {
            files.bad_value(port_dir / "gids" / idx, fmt::format("\"{}\" is not a GID", *g));
            continue;
        }
        if (is_zero_gid(*g)) continue;
        GidEntry e;
        e.index = i;
        e.gid = *g;
        // The kernel answers EINVAL for the type of an entry being replaced;
        // an entry without one is kept with an empty type.
        SysfsFiles quiet(files.root());
        e.type = quiet.read(port_dir / "gid_attrs" / "types" / idx).value_or("");
        e.ndev = quiet.read(port_dir / "gid_attrs" / "ndevs" / idx).value_or("");
        gids.push_back(std::move(e));
    }
    return gids;
}

HostPort read_port(SysfsFiles& files, const fs::path& dev_dir, int number) {
    HostPort p;
    p.port = number;
    fs::path dir = dev_dir / "ports" / std::to_string(number);
    if (auto t = files.read(dir / "state", true)) {
        if (auto s = parse_numbered_name(*t)) {
            p.state_code = s->number;
            p.state = s->name;
        } else {
            files.bad_value(dir / "state", fmt::format("\"{}\" is not a port state", *t));
        }
    }
    if (auto t = files.read(dir / "phys_state", true)) {
        if (auto s = parse_numbered_name(*t)) {
            p.phys_state = s->name;
            p.phys_state_code = s->number;
        } else {
            files.bad_value(dir / "phys_state",
                            fmt::format("\"{}\" is not a physical port state", *t));
        }
    }
    std::error_code ec;
    if (auto ll = files.read(dir / "link_layer")) {
        p.link_layer = *ll;
    } else if (!fs::exists(files.full(dir / "link_layer"), ec)) {
        // Kernels before 2.6.37 (and the simulator's tree) have no link_layer:
        // InfiniBand, as libibumad assumes.
        p.link_layer = "InfiniBand";
    }
    if (!p.link_layer.empty() && p.link_layer != "InfiniBand" && p.link_layer != "Ethernet") {
        files.bad_value(dir / "link_layer",
                        fmt::format("\"{}\" is neither InfiniBand nor Ethernet", p.link_layer));
        p.link_layer.clear();
    }
    if (auto t = files.read(dir / "rate", true)) {
        p.rate_text = *t;
        if (auto r = parse_port_rate(*t)) {
            p.rate_gbps = r->gbps;
            p.width = r->width;
            p.speed = r->speed;
        } else {
            files.bad_value(dir / "rate", fmt::format("\"{}\" is not a port rate", *t));
        }
    }
    p.lid = lid_attr(files, dir / "lid");
    p.sm_lid = lid_attr(files, dir / "sm_lid");
    p.gids = read_gids(files, dir);
    std::string ndev;
    for (const auto& g : p.gids) {
        if (!g.ndev.empty()) {
            ndev = g.ndev;
            break;
        }
    }
    if (ndev.empty()) ndev = netdev_by_dev_port(files, dev_dir, number);
    p.netdev = read_netdev(files, ndev);
    p.counters = read_counters(files, dir / "counters");
    return p;
}

RdmaDevice read_device(SysfsFiles& files, const std::string& name,
                       const std::vector<PciFunction>& pci) {
    RdmaDevice d;
    d.name = name;
    fs::path dir = kClassIb / name;
    d.node_guid = files.read(dir / "node_guid", true).value_or("");
    if (!d.node_guid.empty() && !parse_guid(d.node_guid)) {
        files.bad_value(dir / "node_guid", fmt::format("\"{}\" is not a GUID", d.node_guid));
        d.node_guid.clear();
    }
    d.fw_ver = files.read(dir / "fw_ver").value_or("");
    if (auto t = files.read(dir / "node_type", true)) {
        auto s = parse_numbered_name(*t);
        d.node_type = s ? s->name : *t;
    }
    d.hca_type = files.read(dir / "hca_type").value_or("");
    d.board_id = files.read(dir / "board_id").value_or("");
    d.pci = read_pci_link(files, dir / "device");
    if (d.pci) d.neighbours = pci_neighbours(*d.pci, pci);
    std::vector<int> ports;
    for (const auto& p : files.list(dir / "ports", true)) {
        auto n = parse_uint(p);
        if (n && *n >= 1 && *n <= kMaxPorts) {
            ports.push_back(static_cast<int>(*n));
        } else {
            files.bad_value(dir / "ports" / p, "not a port number (1..254)");
        }
    }
    std::sort(ports.begin(), ports.end());
    for (int n : ports) d.ports.push_back(read_port(files, dir, n));
    return d;
}

}  // namespace

HostInventory read_inventory(const std::string& root) {
    SysfsFiles files(root);
    HostInventory inv;
    inv.root = root;
    std::vector<std::string> names = files.list(kClassIb);
    // The PCI scan is only worth it when there is a device to place.
    std::vector<PciFunction> pci;
    if (!names.empty()) pci = read_pci_functions(files);
    for (const auto& name : names) inv.devices.push_back(read_device(files, name, pci));
    inv.problems = files.take_problems();
    return inv;
}

}  // namespace fabscope::host
