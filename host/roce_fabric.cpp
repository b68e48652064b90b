#include "host/roce_fabric.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "util/fnv.h"

namespace fabscope::host {
namespace {

std::optional<uint64_t> hex_digits(std::string_view s, char sep, size_t want) {
    uint64_t v = 0;
    size_t n = 0;
    for (char c : s) {
        if (c == sep) continue;
        int d = -1;
        if (c >= '0' && c <= '9') d = c - '0';
        if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        if (d < 0 || ++n > want) return std::nullopt;
        v = (v << 4U) | static_cast<uint64_t>(d);
    }
    if (n != want) return std::nullopt;
    return v;
}

PortState port_state(const HostPort& p) {
    if (!p.state_code || *p.state_code < 1 || *p.state_code > 4) return PortState::Down;
    return static_cast<PortState>(*p.state_code);
}

PhysState phys_state(const HostPort& p) {
    static const std::map<std::string, PhysState, std::less<>> kNames{
        {"Sleep", PhysState::Sleep},       {"Polling", PhysState::Polling},
        {"Disabled", PhysState::Disabled}, {"PortConfigurationTraining", PhysState::Training},
        {"LinkUp", PhysState::LinkUp},     {"LinkErrorRecovery", PhysState::LinkErrorRecovery},
        {"Phy Test", PhysState::PhyTest}};
    auto it = kNames.find(p.phys_state);
    return it == kNames.end() ? PhysState::Polling : it->second;
}

Port host_port(const HostPort& p) {
    Port out;
    out.num = static_cast<uint8_t>(p.port);
    out.state = port_state(p);
    out.phys_state = phys_state(p);
    out.width_active = p.width;
    out.speed_active = p.speed;
    if (p.active_mtu) out.mtu_active = static_cast<uint16_t>(*p.active_mtu);
    return out;
}

/// A host port cabled to a leaf, before the leaf's port numbers are known.
struct Cable {
    PortRef host;
    std::string leaf;  ///< chassis key
    std::string port_name;
    std::optional<int> number;
};

struct Leaf {
    Node node;
    std::map<std::string, uint8_t> port_of_name;
};

Finding problem(std::string kind, Severity s, std::string summary, PortRef where,
                nlohmann::json evidence) {
    Finding f = make_finding(std::move(kind), s, std::move(summary), {where}, std::move(evidence));
    return f;
}

/// Numbers every named port of a leaf: its own number where its name ends in
/// one nobody else has, else the next free number, in name order so the
/// answer does not depend on the order hosts reported in.
void number_ports(Leaf& leaf, const std::map<std::string, std::optional<int>>& names,
                  std::vector<std::string>& unnumbered) {
    std::set<int> used;
    std::map<int, int> wanted;
    for (const auto& [name, n] : names)
        if (n) ++wanted[*n];
    for (const auto& [name, n] : names) {
        if (n && wanted[*n] == 1 && *n > 0) {
            leaf.port_of_name[name] = static_cast<uint8_t>(*n);
            used.insert(*n);
        }
    }
    int next = used.empty() ? 1 : *used.rbegin() + 1;
    for (const auto& [name, n] : names) {
        if (leaf.port_of_name.count(name)) continue;
        while (used.count(next)) ++next;
        if (next > 254) break;
        leaf.port_of_name[name] = static_cast<uint8_t>(next);
        used.insert(next);
        unnumbered.push_back(name);
    }
}

}  // namespace

std::vector<LldpNeighbour> rdma_netdev_neighbours(const HostInventory& inv,
                                                  std::vector<LldpNeighbour> all) {
    std::set<std::string> netdevs;
    for (const RdmaDevice& d : inv.devices)
        for (const HostPort& p : d.ports)
            if (p.roce() && p.netdev) netdevs.insert(p.netdev->name);
    std::erase_if(all, [&](const LldpNeighbour& n) { return !netdevs.count(n.netdev); });
    return all;
}

std::string gid_text_ipv4(std::string_view gid) {
    auto v4 = hex_digits(gid.substr(std::min(gid.size(), size_t{30})), ':', 8);
    auto head = hex_digits(gid.substr(0, std::min(gid.size(), size_t{29})), ':', 24);
    if (gid.size() != 39 || !v4 || !head || *head != 0xffffU) return "";
    return fmt::format("{}.{}.{}.{}", (*v4 >> 24U) & 0xffU, (*v4 >> 16U) & 0xffU,
                       (*v4 >> 8U) & 0xffU, *v4 & 0xffU);
}

std::optional<RoceAddress> roce_v2_address(const HostInventory& inv) {
    for (const RdmaDevice& d : inv.devices) {
        for (const HostPort& p : d.ports) {
            if (!p.roce() || !p.active()) continue;
            for (const GidEntry& g : p.gids) {
                if (g.type != "RoCE v2") continue;
                std::string a = gid_text_ipv4(g.gid);
                if (!a.empty()) return RoceAddress{d.name, p.port, a};
            }
        }
    }
    return std::nullopt;
}

std::optional<Guid> parse_sysfs_guid(std::string_view s) {
    return hex_digits(s, ':', 16);
}

Guid chassis_guid(std::string_view subtype, std::string_view id) {
    if (subtype == "mac") {
        if (auto mac = hex_digits(id, ':', 12)) {
            // EUI-64 from EUI-48: FF:FE in the middle.
            return ((*mac >> 24U) << 40U) | (0xfffeULL << 24U) | (*mac & 0xffffffULL);
        }
    }
    return fnv1a64(fmt::format("{}:{}", subtype, id));
}

namespace {

/// What the hosts' reports make of the fabric, as it is assembled.
struct Assembly {
    RoceAssembly out;
    std::vector<Node> nodes;
    std::vector<Cable> cables;
    std::map<std::string, Leaf> leaves;  // chassis key -> leaf
    std::map<std::string, std::map<std::string, std::optional<int>>> leaf_port_names;
};

/// One host port: its LLDP neighbour is its leaf, and the cable between.
void add_host_port(Assembly& a, const RoceHost& h, Node& n, const HostPort& p) {
    RoceAssembly& out = a.out;
    auto& leaves = a.leaves;
    n.ports.push_back(host_port(p));
    n.num_ports = std::max(n.num_ports, static_cast<uint8_t>(p.port));
    PortRef self{n.guid, static_cast<uint8_t>(p.port)};
    std::string netdev = p.netdev ? p.netdev->name : "";
    std::vector<const LldpNeighbour*> seen;
    for (const LldpNeighbour& nb : h.neighbours)
        if (!netdev.empty() && nb.netdev == netdev) seen.push_back(&nb);
    if (seen.empty()) {
        out.problems.push_back(
            problem("lldp_no_neighbour", p.active() ? Severity::Warning : Severity::Info,
                    fmt::format("{}[{}] ({}): no LLDP neighbour, so no leaf port for it",
                                n.description, p.port, netdev.empty() ? "no netdev" : netdev),
                    self, {{"host", h.name}, {"netdev", netdev}}));
        return;
    }
    if (seen.size() > 1) {
        nlohmann::json names = nlohmann::json::array();
        for (const auto* s : seen)
            names.push_back(fmt::format("{} {}", s->system_name, s->port_name));
        out.problems.push_back(
            problem("lldp_several_neighbours", Severity::Warning,
                    fmt::format("{}[{}] ({}): {} LLDP neighbours; the first is its leaf",
                                n.description, p.port, netdev, seen.size()),
                    self, {{"host", h.name}, {"netdev", netdev}, {"neighbours", names}}));
    }
    const LldpNeighbour& nb = *seen.front();
    std::string key = nb.chassis_id_subtype + " " + nb.chassis_id;
    if (!leaves.count(key)) {
        Leaf& leaf = leaves[key];
        leaf.node.type = NodeType::Switch;
        leaf.node.guid = chassis_guid(nb.chassis_id_subtype, nb.chassis_id);
        leaf.node.system_guid = leaf.node.guid;
        leaf.node.description = nb.system_name.empty() ? nb.chassis_id : nb.system_name;
    }
    a.leaf_port_names[key][nb.port_name] = nb.port_number;
    a.cables.push_back(Cable{self, key, nb.port_name, nb.port_number});
}

/// Every host's RoCE ports as nodes, with their leaves and cables.
void add_hosts(Assembly& a, const std::vector<RoceHost>& hosts) {
    for (const RoceHost& h : hosts) {
        if (!h.lldp_error.empty()) {
            a.out.problems.push_back(
                make_finding("lldp_unavailable", Severity::Warning,
                             fmt::format("{}: no LLDP neighbours read: {}", h.name, h.lldp_error),
                             {}, {{"host", h.name}, {"error", h.lldp_error}}));
        }
        for (const RdmaDevice& d : h.inventory.devices) {
            Node n;
            n.type = NodeType::CA;
            n.description = fmt::format("{} {}", h.name, d.name);
            n.guid = parse_sysfs_guid(d.node_guid).value_or(fnv1a64(n.description));
            n.system_guid = n.guid;
            for (const HostPort& p : d.ports) {
                if (!p.roce() || p.port < 1 || p.port > 254) continue;
                add_host_port(a, h, n, p);
            }
            std::sort(n.ports.begin(), n.ports.end(),
                      [](const Port& x, const Port& y) { return x.num < y.num; });
            if (!n.ports.empty()) a.nodes.push_back(std::move(n));
        }
    }
}

/// The leaves' ports numbered from their names.
void number_leaf_ports(Assembly& a) {
    RoceAssembly& out = a.out;
    const auto& cables = a.cables;
    for (auto& [key, leaf] : a.leaves) {
        std::vector<std::string> unnumbered;
        number_ports(leaf, a.leaf_port_names[key], unnumbered);
        for (const std::string& name : unnumbered) {
            for (const Cable& c : cables) {
                if (c.leaf != key || c.port_name != name) continue;
                out.problems.push_back(problem(
                    "lldp_port_unnumbered", Severity::Info,
                    fmt::format("{} port \"{}\" has no number of its own in its name: numbered {}",
                                leaf.node.description, name, leaf.port_of_name[name]),
                    c.host, {{"leaf", leaf.node.description}, {"port_name", name}}));
                break;
            }
        }
    }
}

/// The cables: a leaf port takes the first host port that names it.
void cable_leaves(Assembly& a) {
    RoceAssembly& out = a.out;
    auto& nodes = a.nodes;
    auto& leaves = a.leaves;
    std::map<Guid, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) index[nodes[i].guid] = i;
    for (const Cable& c : a.cables) {
        Leaf& leaf = leaves[c.leaf];
        auto num = leaf.port_of_name.find(c.port_name);
        if (num == leaf.port_of_name.end()) continue;  // past port 254
        PortRef leaf_ref{leaf.node.guid, num->second};
        Node& hn = nodes[index[c.host.node]];
        Port* hp = hn.port(c.host.port);
        if (Port* taken = leaf.node.port(num->second)) {
            out.problems.push_back(problem(
                "lldp_shared_leaf_port", Severity::Warning,
                fmt::format("{}[{}] and another host port both see {} port {} as their neighbour",
                            hn.description, c.host.port, leaf.node.description, c.port_name),
                c.host,
                {{"leaf", leaf.node.description},
                 {"port_name", c.port_name},
                 {"other", taken->peer ? format_guid(taken->peer->node) : ""}}));
            continue;
        }
        Port lp;
        lp.num = num->second;
        lp.state = hp ? hp->state : PortState::Active;
        lp.phys_state = hp ? hp->phys_state : PhysState::LinkUp;
        if (hp) {
            lp.width_active = hp->width_active;
            lp.speed_active = hp->speed_active;
            lp.mtu_active = hp->mtu_active;
            hp->peer = leaf_ref;
        }
        lp.peer = c.host;
        leaf.node.ports.push_back(lp);
        leaf.node.num_ports = std::max(leaf.node.num_ports, lp.num);
        std::sort(leaf.node.ports.begin(), leaf.node.ports.end(),
                  [](const Port& x, const Port& y) { return x.num < y.num; });
    }
}

}  // namespace

Result<RoceAssembly> assemble_roce_fabric(const std::vector<RoceHost>& hosts) {
    Assembly a;
    add_hosts(a, hosts);
    number_leaf_ports(a);
    cable_leaves(a);
    for (auto& [key, leaf] : a.leaves) a.nodes.push_back(std::move(leaf.node));
    auto f = Fabric::build(std::move(a.nodes));
    if (!f) return f.error();
    a.out.fabric = std::move(*f);
    return std::move(a.out);
}

}  // namespace fabscope::host
