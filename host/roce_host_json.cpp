#include "host/roce_host_json.h"

#include <fmt/format.h>

#include <array>

#include "host/health_json.h"
#include "model/json_io.h"
#include "util/printable.h"

namespace fabscope::host {

using nlohmann::json;

namespace {

constexpr int kMaxPort = 254;
/// A GID table holds at most a few hundred entries (mlx5: 255 per port).
constexpr size_t kMaxGids = 1024;

std::string str(const json& j, const char* key) {
    return printable(json_io::get_string(j, key, ""));
}

template <class T>
std::optional<T> opt_uint(const json& j, const char* key, uint64_t max) {
    if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
    return static_cast<T>(json_io::get_uint_checked(j, key, max));
}

/// The state number of a port from its name, as the inventory reads it.
std::optional<int> state_code(std::string_view s) {
    constexpr std::array<std::string_view, 5> kNames{"NOP", "DOWN", "INIT", "ARMED", "ACTIVE"};
    for (size_t i = 0; i < kNames.size(); ++i)
        if (s == kNames[i]) return static_cast<int>(i);
    return std::nullopt;
}

HostPort port_from_json(const json& j) {
    HostPort p;
    p.port = static_cast<int>(json_io::get_uint_between(j, "port", 1, kMaxPort));
    p.state = str(j, "state");
    p.state_code = state_code(p.state);
    p.phys_state = str(j, "phys_state");
    p.link_layer = str(j, "link_layer");
    p.rate_text = str(j, "rate");
    if (j.contains("rate_gbps") && j.at("rate_gbps").is_number())
        p.rate_gbps = j.at("rate_gbps").get<double>();
    p.width = json_io::get_optional_enum<Width>(j, "width");
    p.speed = json_io::get_optional_enum<Speed>(j, "speed");
    p.active_mtu = opt_uint<int>(j, "active_mtu", 65536);
    if (j.contains("gids")) {
        const json& gids = json_io::get_array(j, "gids");
        if (gids.size() > kMaxGids)
            json_io::fail(gids, fmt::format("more than {} GID entries", kMaxGids));
        for (const json& g : gids) {
            p.gids.push_back({static_cast<int>(json_io::get_uint_checked(g, "index", 65535)),
                              str(g, "gid"), str(g, "type"), str(g, "ndev")});
        }
    }
    if (j.contains("netdev") && j.at("netdev").is_object()) {
        const json& n = j.at("netdev");
        NetDev d;
        d.name = str(n, "name");
        d.mtu = opt_uint<int>(n, "mtu", 65536);
        d.operstate = str(n, "operstate");
        p.netdev = d;
    }
    return p;
}

LldpNeighbour neighbour_from_json(const json& j) {
    LldpNeighbour n;
    n.netdev = str(j, "netdev");
    n.system_name = str(j, "system_name");
    n.system_description = str(j, "system_description");
    n.chassis_id = str(j, "chassis_id");
    n.chassis_id_subtype = str(j, "chassis_id_subtype");
    n.port_id = str(j, "port_id");
    n.port_id_subtype = str(j, "port_id_subtype");
    n.port_description = str(j, "port_description");
    n.port_name = str(j, "port_name");
    n.port_number = opt_uint<int>(j, "port_number", kMaxPort);
    if (j.contains("pfc") && j.at("pfc").is_object()) {
        const json& p = j.at("pfc");
        PfcTlv t;
        t.willing = json_io::get_bool(p, "willing", false);
        t.mbc = json_io::get_bool(p, "mbc", false);
        t.capability = static_cast<int>(json_io::get_uint_checked(p, "capability", 15));
        for (const json& prio : json_io::get_array(p, "enabled")) {
            uint64_t v = prio.get<uint64_t>();
            if (v > 7) json_io::fail(prio, "a PFC priority is 0..7");
            t.enabled = static_cast<uint8_t>(t.enabled | (1U << v));
        }
        n.pfc = t;
    }
    if (j.contains("dcbx"))
        for (const json& d : json_io::get_array(j, "dcbx"))
            n.dcbx.push_back(printable(d.get<std::string>()));
    return n;
}

}  // namespace

json neighbour_to_json(const LldpNeighbour& n) {
    json j{{"netdev", n.netdev},
           {"system_name", n.system_name},
           {"system_description", n.system_description},
           {"chassis_id", n.chassis_id},
           {"chassis_id_subtype", n.chassis_id_subtype},
           {"port_id", n.port_id},
           {"port_id_subtype", n.port_id_subtype},
           {"port_description", n.port_description},
           {"port_name", n.port_name},
           {"port_number", n.port_number ? json(*n.port_number) : json(nullptr)},
           {"dcbx", n.dcbx}};
    if (n.pfc) {
        json prios = json::array();
        for (int p = 0; p < 8; ++p)
            if ((n.pfc->enabled >> p) & 1U) prios.push_back(p);
        j["pfc"] = {{"willing", n.pfc->willing},
                    {"mbc", n.pfc->mbc},
                    {"capability", n.pfc->capability},
                    {"enabled", prios}};
    }
    return j;
}

json roce_host_to_json(const RoceHost& h) {
    json lldp = json::array();
    for (const LldpNeighbour& n : h.neighbours) lldp.push_back(neighbour_to_json(n));
    return {{"format", kRoceHostFormat},
            {"version", kRoceHostVersion},
            {"host", h.name},
            {"inventory", inventory_to_json(h.inventory)},
            {"lldp", lldp},
            {"lldp_error", h.lldp_error}};
}

Result<RoceHost> roce_host_from_json(const json& j) {
    if (!j.is_object() || !j.contains("format") || j.at("format") != kRoceHostFormat) {
        return make_error(fmt::format("not a fabscope RoCE host report (no \"format\": \"{}\")",
                                      kRoceHostFormat));
    }
    if (!j.contains("version") || j.at("version") != kRoceHostVersion) {
        return make_error(fmt::format(
            "RoCE host report version {} is not supported (this "
            "fabscope reads version {})",
            j.contains("version") ? j.at("version").dump() : "(none)", kRoceHostVersion));
    }
    return json_io::guarded([&]() -> Result<RoceHost> {
        RoceHost h;
        h.name = str(j, "host");
        const json& inv = json_io::get_object(j, "inventory");
        h.inventory.root = str(inv, "sysfs_root");
        for (const json& d : json_io::get_array(inv, "devices")) {
            RdmaDevice dev;
            dev.name = str(d, "name");
            dev.node_guid = str(d, "node_guid");
            dev.fw_ver = str(d, "fw_ver");
            dev.node_type = str(d, "node_type");
            dev.hca_type = str(d, "hca_type");
            for (const json& p : json_io::get_array(d, "ports"))
                dev.ports.push_back(port_from_json(p));
            h.inventory.devices.push_back(std::move(dev));
        }
        h.lldp_error = str(j, "lldp_error");
        for (const json& n : json_io::get_array(j, "lldp"))
            h.neighbours.push_back(neighbour_from_json(n));
        return h;
    });
}

Result<RoceHost> load_roce_host(const std::string& path) {
    return json_io::load_file<RoceHost>(path, roce_host_from_json);
}

json lldp_to_json(const std::vector<RoceHost>& hosts) {
    json out = json::array();
    for (const RoceHost& h : hosts) {
        json ns = json::array();
        for (const LldpNeighbour& n : h.neighbours) ns.push_back(neighbour_to_json(n));
        out.push_back({{"host", h.name}, {"neighbours", ns}});
    }
    return out;
}

}  // namespace fabscope::host
