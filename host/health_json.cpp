#include "host/health_json.h"

#include <fmt/format.h>

namespace fabscope::host {

using nlohmann::json;

namespace {

template <class T>
json opt(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

json limits_json(const std::optional<ModuleLimits>& l) {
    if (!l) return nullptr;
    return {{"high_alarm", l->high_alarm},
            {"low_alarm", l->low_alarm},
            {"high_warning", l->high_warn},
            {"low_warning", l->low_warn}};
}

json module_to_json(const PortModule& pm) {
    json j{{"status", pm.status}, {"detail", pm.detail}};
    if (!pm.info) return j;
    const ModuleInfo& m = *pm.info;
    json lanes = json::array();
    for (const ModuleLane& l : m.lanes) {
        lanes.push_back({{"lane", l.lane},
                         {"tx_power_mw", opt(l.tx_power_mw)},
                         {"rx_power_mw", opt(l.rx_power_mw)},
                         {"tx_bias_ma", opt(l.tx_bias_ma)}});
    }
    j.update({{"type", m.type},
              {"spec", m.family == ModuleFamily::Cmis ? "CMIS" : "SFF-8636"},
              {"vendor", m.vendor},
              {"oui", m.oui},
              {"part_number", m.part_number},
              {"revision", m.revision},
              {"serial", m.serial},
              {"date_code", m.date_code},
              {"media", m.media},
              {"length_m", opt(m.length_m)},
              {"state", m.state},
              {"temperature_c", opt(m.temperature_c)},
              {"supply_v", opt(m.supply_v)},
              {"limits",
               {{"temperature_c", limits_json(m.temperature_limits)},
                {"supply_v", limits_json(m.supply_limits)},
                {"tx_power_mw", limits_json(m.tx_power_limits)},
                {"rx_power_mw", limits_json(m.rx_power_limits)},
                {"tx_bias_ma", limits_json(m.tx_bias_limits)}}},
              {"lanes", lanes},
              {"flags", m.flags}});
    return j;
}

json port_to_json(const HostPort& p) {
    json j{{"port", p.port},
           {"state", p.state},
           {"phys_state", p.phys_state},
           {"link_layer", p.link_layer},
           {"rate", p.rate_text},
           {"rate_gbps", opt(p.rate_gbps)},
           {"width", p.width ? json(std::string(name(*p.width))) : json(nullptr)},
           {"speed", p.speed ? json(std::string(name(*p.speed))) : json(nullptr)},
           {"lid", opt(p.lid)},
           {"sm_lid", opt(p.sm_lid)},
           {"active_mtu", opt(p.active_mtu)}};
    json gids = json::array();
    for (const auto& g : p.gids)
        gids.push_back({{"index", g.index}, {"gid", g.gid}, {"type", g.type}, {"ndev", g.ndev}});
    j["gids"] = gids;
    if (p.netdev) {
        j["netdev"] = {{"name", p.netdev->name},
                       {"mtu", opt(p.netdev->mtu)},
                       {"operstate", p.netdev->operstate}};
    } else {
        j["netdev"] = nullptr;
    }
    j["counters"] = p.counters;
    if (p.netlink) {
        j["netlink"] = {{"state", p.netlink->state},
                        {"phys_state", p.netlink->phys_state},
                        {"netdev", p.netlink->netdev},
                        {"netdev_index", opt(p.netlink->netdev_index)}};
    } else {
        j["netlink"] = nullptr;
    }
    if (p.module) j["module"] = module_to_json(*p.module);
    return j;
}

json pci_to_json(const PciLink& l) {
    return {{"address", l.address},
            {"current_link_speed", l.current_speed_text},
            {"max_link_speed", l.max_speed_text},
            {"current_link_width", opt(l.current_width)},
            {"max_link_width", opt(l.max_width)},
            {"numa_node", opt(l.numa_node)}};
}

}  // namespace

json inventory_to_json(const HostInventory& inv) {
    json devices = json::array();
    for (const auto& d : inv.devices) {
        json j{{"name", d.name},           {"node_guid", d.node_guid}, {"fw_ver", d.fw_ver},
               {"node_type", d.node_type}, {"hca_type", d.hca_type},   {"board_id", d.board_id}};
        j["pci"] = d.pci ? pci_to_json(*d.pci) : json(nullptr);
        json near = json::array();
        for (const auto& n : d.neighbours)
            near.push_back({{"address", n.address},
                            {"kind", n.kind},
                            {"vendor", fmt::format("0x{:04x}", n.vendor)},
                            {"device", fmt::format("0x{:04x}", n.device)},
                            {"same_pcie_switch", n.same_switch},
                            {"same_numa_node", n.same_numa}});
        j["neighbours"] = near;
        json ports = json::array();
        for (const auto& p : d.ports) ports.push_back(port_to_json(p));
        j["ports"] = ports;
        j["netlink_index"] = opt(d.netlink_index);
        j["protocol"] = d.protocol;
        devices.push_back(j);
    }
    json problems = json::array();
    for (const auto& p : inv.problems)
        problems.push_back({{"file", p.file}, {"message", p.message}});
    return {{"sysfs_root", inv.root},
            {"sources", inv.sources},
            {"devices", devices},
            {"problems", problems}};
}

json health_to_json(const HostInventory& inv, const HealthResult& r, const HealthMeta& meta) {
    json findings = json::array();
    for (const auto& f : r.findings)
        findings.push_back({{"check", f.check},
                            {"severity", std::string(name(f.severity))},
                            {"subject", f.subject},
                            {"message", f.message}});
    json expected{
        {"width", r.expected.width ? json(std::string(name(*r.expected.width))) : json(nullptr)},
        {"speed", r.expected.speed ? json(std::string(name(*r.expected.speed))) : json(nullptr)},
        {"source", r.expected.source}};
    return {{"format", "fabscope-health"},
            {"version", 1},
            {"node", meta.node},
            {"started", meta.started},
            {"elapsed_ms", meta.elapsed_ms},
            {"healthy", r.healthy()},
            {"reason", r.reason()},
            {"expected", expected},
            {"state_file", meta.state_file},
            {"drained", meta.drained},
            {"findings", findings},
            {"inventory", inventory_to_json(inv)}};
}

}  // namespace fabscope::host
