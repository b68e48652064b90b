#include "host/rdma_nl_merge.h"

#include <fmt/format.h>

#include <algorithm>

#include "host/sysfs_parse.h"

namespace fabscope::host {
namespace {

std::string guid_text(uint64_t g) {
    return fmt::format("{:04x}:{:04x}:{:04x}:{:04x}", g >> 48, (g >> 32) & 0xffff,
                       (g >> 16) & 0xffff, g & 0xffff);
}

std::string link_layer_of(const std::string& protocol) {
    if (protocol == "ib" || protocol == "opa") return "InfiniBand";
    if (protocol == "roce" || protocol == "iw") return "Ethernet";
    return "";
}

class Merger {
  public:
    explicit Merger(HostInventory& inv) : inv_(inv) {}

    void device(const NlDevice& n, const std::vector<const NlPort*>& ports) {
        auto it = std::find_if(inv_.devices.begin(), inv_.devices.end(),
                               [&](const RdmaDevice& d) { return d.name == n.name; });
        if (it == inv_.devices.end()) {
            add_device(n, ports);
            return;
        }
        RdmaDevice& d = *it;
        d.netlink_index = n.index;
        d.protocol = n.protocol;
        if (n.node_guid) {
            auto mine = parse_guid(d.node_guid);
            if (d.node_guid.empty()) {
                d.node_guid = guid_text(*n.node_guid);
            } else if (!mine || *mine != *n.node_guid) {
                differ(d.name, "node GUID", guid_text(*n.node_guid), d.node_guid);
            }
        }
        if (!n.fw_ver.empty()) {
            if (d.fw_ver.empty()) {
                d.fw_ver = n.fw_ver;
            } else if (d.fw_ver != n.fw_ver) {
                differ(d.name, "firmware", n.fw_ver, d.fw_ver);
            }
        }
        for (const NlPort* np : ports) {
            auto pit = std::find_if(d.ports.begin(), d.ports.end(), [&](const HostPort& p) {
                return p.port == static_cast<int>(np->port);
            });
            if (pit == d.ports.end()) {
                d.ports.push_back(port_from(*np, link_layer_of(n.protocol)));
                problem(fmt::format("{}/{}", d.name, np->port),
                        "listed by RDMA netlink but not in sysfs");
                continue;
            }
            port(d.name, *pit, *np);
        }
    }

  private:
    void problem(const std::string& subject, const std::string& message) {
        inv_.problems.push_back({"netlink:" + subject, message});
    }
    void differ(const std::string& subject, const char* what, const std::string& nl,
                const std::string& sysfs) {
        problem(subject, fmt::format("{}: RDMA netlink says {}, sysfs says {}", what, nl, sysfs));
    }

    static NetlinkPort view(const NlPort& n) {
        NetlinkPort v;
        if (n.state) v.state = nl_port_state_name(*n.state);
        if (n.phys_state) v.phys_state = nl_phys_state_name(*n.phys_state);
        v.netdev = n.netdev;
        v.netdev_index = n.netdev_index;
        return v;
    }

    static HostPort port_from(const NlPort& n, const std::string& link_layer) {
        HostPort p;
        p.port = static_cast<int>(n.port);
        if (n.state) {
            p.state_code = *n.state;
            p.state = nl_port_state_name(*n.state);
        }
        if (n.phys_state) {
            p.phys_state_code = *n.phys_state;
            p.phys_state = sysfs_phys_state_name(*n.phys_state);
        }
        p.link_layer = link_layer;
        p.lid = n.lid;
        p.sm_lid = n.sm_lid;
        if (!n.netdev.empty()) p.netdev = NetDev{n.netdev, std::nullopt, ""};
        p.netlink = view(n);
        return p;
    }

    void add_device(const NlDevice& n, const std::vector<const NlPort*>& ports) {
        RdmaDevice d;
        d.name = n.name;
        d.netlink_index = n.index;
        d.protocol = n.protocol;
        if (n.node_guid) d.node_guid = guid_text(*n.node_guid);
        d.fw_ver = n.fw_ver;
        if (n.node_type == 1) d.node_type = "CA";
        for (const NlPort* p : ports) d.ports.push_back(port_from(*p, link_layer_of(n.protocol)));
        problem(d.name, "listed by RDMA netlink but not in sysfs");
        inv_.devices.push_back(std::move(d));
    }

    void port(const std::string& dev, HostPort& p, const NlPort& n) {
        std::string subject = fmt::format("{}/{}", dev, p.port);
        p.netlink = view(n);
        if (n.state && p.state_code && *p.state_code != *n.state)
            differ(subject, "port state", nl_port_state_name(*n.state), p.state);
        if (n.phys_state && p.phys_state_code && *p.phys_state_code != *n.phys_state)
            differ(subject, "physical state", nl_phys_state_name(*n.phys_state), p.phys_state);
        if (n.lid && p.lid && *p.lid != *n.lid)
            differ(subject, "LID", std::to_string(*n.lid), std::to_string(*p.lid));
        if (n.sm_lid && p.sm_lid && *p.sm_lid != *n.sm_lid)
            differ(subject, "SM LID", std::to_string(*n.sm_lid), std::to_string(*p.sm_lid));
        if (!n.netdev.empty()) {
            if (!p.netdev) {
                p.netdev = NetDev{n.netdev, std::nullopt, ""};
            } else if (p.netdev->name != n.netdev) {
                differ(subject, "netdev", n.netdev, p.netdev->name);
            }
        }
    }

    HostInventory& inv_;
};

}  // namespace

std::string sysfs_phys_state_name(int code) {
    switch (code) {
        case 1: return "Sleep";
        case 2: return "Polling";
        case 3: return "Disabled";
        case 4: return "PortConfigurationTraining";
        case 5: return "LinkUp";
        case 6: return "LinkErrorRecovery";
        case 7: return "Phy Test";
        default: return "";
    }
}

void merge_netlink(HostInventory& inv, const NlDump& nl) {
    Merger m(inv);
    for (const auto& d : nl.devices) {
        std::vector<const NlPort*> ports;
        for (const auto& p : nl.ports) {
            if (p.dev_index == d.index) ports.push_back(&p);
        }
        m.device(d, ports);
    }
    for (const auto& p : nl.problems) inv.problems.push_back({"netlink", p});
    if (std::find(inv.sources.begin(), inv.sources.end(), "netlink") == inv.sources.end())
        inv.sources.push_back("netlink");
}

}  // namespace fabscope::host
