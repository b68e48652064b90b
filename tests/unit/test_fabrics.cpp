#include "test_fabrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace fabscope::testing {
namespace {

Port up_port(uint8_t num, Guid guid, Lid lid) {
    Port p;
    p.num = num;
    p.guid = guid;
    p.lid = lid;
    p.state = PortState::Active;
    p.phys_state = PhysState::LinkUp;
    p.width_active = Width::X4;
    p.width_enabled = WidthSet{Width::X1, Width::X4};
    p.width_supported = WidthSet{Width::X1, Width::X4};
    p.speed_active = Speed::HDR;
    p.speed_enabled =
        SpeedSet{Speed::SDR, Speed::DDR, Speed::QDR, Speed::FDR, Speed::EDR, Speed::HDR};
    p.speed_supported = p.speed_enabled;
    p.mtu_cap = 4096;
    p.mtu_active = 4096;
    return p;
}

void connect(Node& a, uint8_t pa, Node& b, uint8_t pb) {
    a.port(pa)->peer = PortRef{b.guid, pb};
    b.port(pb)->peer = PortRef{a.guid, pa};
}

Node make_switch(Guid guid, const std::string& name, int ports, Lid lid) {
    Node n;
    n.guid = guid;
    n.type = NodeType::Switch;
    n.description = name;
    n.system_guid = guid;
    n.num_ports = static_cast<uint8_t>(ports);
    n.enhanced_port0 = true;
    Port p0 = up_port(0, guid, lid);
    n.ports.push_back(p0);
    for (int i = 1; i <= ports; ++i) n.ports.push_back(up_port(static_cast<uint8_t>(i), guid, lid));
    return n;
}

}  // namespace

std::vector<Node> leaf_spine_nodes(const LeafSpineShape& s) {
    std::vector<Node> hosts;
    std::vector<Node> leaves;
    std::vector<Node> spines;
    Lid lid = 1;
    const int H = s.hosts_per_leaf;
    for (int l = 1; l <= s.leaves; ++l) {
        leaves.push_back(make_switch(0x2000 + l, fmt::format("leaf{:02d}", l),
                                     H + s.spines * s.links_per_pair, lid++));
    }
    for (int sp = 1; sp <= s.spines; ++sp) {
        spines.push_back(make_switch(0x3000 + sp, fmt::format("spine{:02d}", sp),
                                     s.leaves * s.links_per_pair, lid++));
    }
    for (int l = 1; l <= s.leaves; ++l) {
        for (int h = 1; h <= H; ++h) {
            int i = (l - 1) * H + h;
            Node n;
            // Past 4,095 hosts the default 0x1000 block would run into the leaves'.
            n.guid = s.host_guid_base == 0x1000 && i >= 0x1000
                         ? Guid(0x10000000 + i)
                         : s.host_guid_base + static_cast<Guid>(i);
            n.type = NodeType::CA;
            n.description = fmt::format("h{:04d} HCA-1", i);
            n.num_ports = 1;
            n.ports.push_back(up_port(1, n.guid + 0x100000, lid++));
            hosts.push_back(n);
            connect(hosts.back(), 1, leaves[l - 1], static_cast<uint8_t>(h));
        }
        for (int sp = 1; sp <= s.spines; ++sp) {
            for (int k = 0; k < s.links_per_pair; ++k) {
                auto lp = static_cast<uint8_t>(H + (sp - 1) * s.links_per_pair + k + 1);
                auto spp = static_cast<uint8_t>((l - 1) * s.links_per_pair + k + 1);
                connect(leaves[l - 1], lp, spines[sp - 1], spp);
            }
        }
    }
    std::vector<Node> all;
    for (auto* group : {&hosts, &leaves, &spines})
        all.insert(all.end(), group->begin(), group->end());
    return all;
}

Fabric leaf_spine(const LeafSpineShape& shape) {
    auto f = Fabric::build(leaf_spine_nodes(shape));
    if (!f) throw std::runtime_error(f.error().message);
    return std::move(f).value();
}

void add_dmodk_routes(std::vector<Node>& nodes, uint8_t lmc) {
    std::unordered_map<Guid, Node*> by_guid;
    for (Node& n : nodes) by_guid[n.guid] = &n;
    if (lmc > 0) {
        // Hosts take 2^lmc LIDs each, aligned, after the switches'.
        Lid next = 1;
        for (Node& n : nodes) {
            if (n.type == NodeType::Switch) next = std::max<Lid>(next, n.lid() + 1);
        }
        Lid step = static_cast<Lid>(1U << lmc);
        next = static_cast<Lid>((next + step - 1) / step * step);
        for (Node& n : nodes) {
            if (n.type != NodeType::CA) continue;
            for (Port& p : n.ports) {
                p.lid = next;
                p.lmc = lmc;
                next = static_cast<Lid>(next + step);
            }
        }
    }
    Lid top = 0;
    for (const Node& n : nodes) {
        for (const Port& p : n.ports)
            top = std::max<Lid>(top, static_cast<Lid>(p.lid + (1U << p.lmc) - 1));
    }
    // The LIDs reached through each switch port (a host's, or everything
    // under a leaf for a spine's down port).
    auto lids_behind = [&](const Node& sw, const Port& p) {
        std::vector<Lid> out;
        const Node* peer = by_guid.at(p.peer->node);
        if (peer->type == NodeType::CA) {
            const Port* hp = peer->port(p.peer->port);
            for (unsigned k = 0; k < (1U << hp->lmc); ++k)
                out.push_back(static_cast<Lid>(hp->lid + k));
            return out;
        }
        (void)sw;
        out.push_back(peer->lid());
        for (const Port& q : peer->ports) {
            if (q.num == 0 || !q.peer) continue;
            const Node* h = by_guid.at(q.peer->node);
            if (h->type != NodeType::CA) continue;
            const Port* hp = h->port(q.peer->port);
            for (unsigned k = 0; k < (1U << hp->lmc); ++k)
                out.push_back(static_cast<Lid>(hp->lid + k));
        }
        return out;
    };
    for (Node& sw : nodes) {
        if (sw.type != NodeType::Switch) continue;
        sw.lft.assign(top + 1U, 0xFF);
        sw.lft[sw.lid()] = 0;
        bool leaf = false;
        std::vector<uint8_t> up;
        for (const Port& p : sw.ports) {
            if (p.num == 0 || !p.peer) continue;
            const Node* peer = by_guid.at(p.peer->node);
            if (peer->type == NodeType::CA) leaf = true;
        }
        for (const Port& p : sw.ports) {
            if (p.num == 0 || !p.peer) continue;
            const Node* peer = by_guid.at(p.peer->node);
            if (leaf && peer->type == NodeType::Switch) {
                up.push_back(p.num);
                sw.lft[peer->lid()] = p.num;
                continue;
            }
            // Down: several cables to one leaf share its LIDs by LID.
            for (Lid l : lids_behind(sw, p)) {
                if (sw.lft[l] == 0xFF || (l % 2 == p.num % 2)) sw.lft[l] = p.num;
            }
        }
        if (!leaf) continue;
        // D-mod-K: the uplink by destination LID, so each LID of a host
        // (LMC) and each host takes its own spine.
        for (Lid l = 1; l <= top; ++l) {
            if (sw.lft[l] == 0xFF && !up.empty()) sw.lft[l] = up[l % up.size()];
        }
    }
}

Fabric routed_leaf_spine(const LeafSpineShape& shape, uint8_t lmc) {
    auto nodes = leaf_spine_nodes(shape);
    add_dmodk_routes(nodes, lmc);
    auto f = Fabric::build(std::move(nodes));
    if (!f) throw std::runtime_error(f.error().message);
    return std::move(f).value();
}

Node& node_named(std::vector<Node>& nodes, const std::string& name) {
    for (Node& n : nodes) {
        if (n.description == name) return n;
    }
    throw std::runtime_error("no node " + name);
}

void swap_cables(std::vector<Node>& nodes, const std::string& node, uint8_t p1, uint8_t p2) {
    Node& a = node_named(nodes, node);
    PortRef x = *a.port(p1)->peer;
    PortRef y = *a.port(p2)->peer;
    a.port(p1)->peer = y;
    a.port(p2)->peer = x;
    for (Node& m : nodes) {
        if (m.guid == x.node) m.port(x.port)->peer = PortRef{a.guid, p2};
        if (m.guid == y.node) m.port(y.port)->peer = PortRef{a.guid, p1};
    }
}

void unplug(std::vector<Node>& nodes, const std::string& node, uint8_t port) {
    Port* a = node_named(nodes, node).port(port);
    PortRef far = *a->peer;
    Port* b = nullptr;
    for (Node& n : nodes) {
        if (n.guid == far.node) b = n.port(far.port);
    }
    for (Port* p : {a, b}) {
        p->peer.reset();
        p->state = PortState::Down;
        p->phys_state = PhysState::Polling;
        p->width_active.reset();
        p->speed_active.reset();
    }
}

void set_link_width(std::vector<Node>& nodes, const std::string& node, uint8_t port, Width w,
                    WidthSet enabled) {
    Port* a = node_named(nodes, node).port(port);
    PortRef far = *a->peer;
    for (Node& n : nodes) {
        if (n.guid == far.node) {
            n.port(far.port)->width_active = w;
            n.port(far.port)->width_enabled = enabled;
        }
    }
    a->width_active = w;
    a->width_enabled = enabled;
}

std::vector<Node> switch_ring(int switches) {
    const std::vector<Node> shape =
        leaf_spine_nodes({.spines = 1, .leaves = 1, .hosts_per_leaf = 2});
    std::vector<Node> nodes;
    Lid lid = 1;
    for (int i = 0; i < switches; ++i) {
        Node h = shape.front();
        h.guid = 0x5000 + static_cast<Guid>(i);
        h.description = "host" + std::to_string(i) + " HCA-1";
        h.ports[0].guid = h.guid + 0x100;
        h.ports[0].lid = lid++;
        h.ports[0].peer = PortRef{0x6000 + static_cast<Guid>(i), 3};
        nodes.push_back(h);
    }
    for (int i = 0; i < switches; ++i) {
        Node s = shape[2];  // a leaf: hosts on 1 and 2, its uplink on 3
        s.guid = 0x6000 + static_cast<Guid>(i);
        s.description = "ring" + std::to_string(i);
        for (Port& p : s.ports) {
            p.guid = s.guid;
            p.lid = lid;
            p.peer.reset();
        }
        ++lid;
        s.port(1)->peer = PortRef{0x6000 + static_cast<Guid>((i + switches - 1) % switches), 2};
        s.port(2)->peer = PortRef{0x6000 + static_cast<Guid>((i + 1) % switches), 1};
        s.port(3)->peer = PortRef{0x5000 + static_cast<Guid>(i), 1};
        nodes.push_back(s);
    }
    return nodes;
}

}  // namespace fabscope::testing
