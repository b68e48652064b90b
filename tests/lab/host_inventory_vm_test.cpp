// The host inventory (`fabscope health --json`: sysfs, libibverbs and RDMA
// netlink merged) in a Soft-RoCE host namespace of the VM lab, compared field
// by field with what `ibv_devinfo -v` and `rdma link` / `rdma dev` print for
// the same device: device, node GUID, port state, physical state, link
// layer, active MTU, the GID table with RoCE types, the netdev.

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "lab_harness.h"
#include "vm_run.h"

namespace fabscope::labtest {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A GID in any spelling inet_pton takes ("fe80::1", "::ffff:10.0.0.1", the
/// eight full groups) as sysfs spells it; "" when it is not one.
std::string sysfs_gid(const std::string& text) {
    in6_addr a{};
    if (::inet_pton(AF_INET6, text.c_str(), &a) != 1) return "";
    std::string out;
    for (int i = 0; i < 16; i += 2) {
        if (i) out += ':';
        out += fmt::format("{:02x}{:02x}", a.s6_addr[i], a.s6_addr[i + 1]);
    }
    return out;
}

struct DevinfoPort {
    std::map<std::string, std::string> fields;                // "state" -> "PORT_ACTIVE (4)"
    std::map<int, std::pair<std::string, std::string>> gids;  // index -> (sysfs gid, type)
};
struct Devinfo {
    std::string hca_id;
    std::map<std::string, std::string> fields;
    std::map<int, DevinfoPort> ports;
};

/// `ibv_devinfo -v` of one device: "key: value" lines, a "port: N" line
/// opening each port, "GID[  i]: gid, type" lines.
Devinfo parse_devinfo(const std::string& text) {
    Devinfo d;
    std::istringstream in(text);
    std::string line;
    DevinfoPort* port = nullptr;
    std::regex kv(R"(^\s*([A-Za-z_][A-Za-z_0-9 ]*):\s*(.*?)\s*$)");
    std::regex gid(R"(^\s*GID\[\s*(\d+)\]:\s*([0-9a-fA-F:.]+)(?:,\s*(.*?))?\s*$)");
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, gid)) {
            if (port) port->gids[std::stoi(m[1])] = {sysfs_gid(m[2]), m[3]};
            continue;
        }
        if (!std::regex_match(line, m, kv)) continue;
        std::string k = m[1], v = m[2];
        if (k == "hca_id") {
            d.hca_id = v;
        } else if (k == "port") {
            port = &d.ports[std::stoi(v)];
        } else if (port) {
            port->fields[k] = v;
        } else {
            d.fields[k] = v;
        }
    }
    return d;
}

/// The number in "PORT_ACTIVE (4)" / "1024 (3)": the first word's value and the code.
std::pair<std::string, int> word_and_code(const std::string& v) {
    std::smatch m;
    static const std::regex re(R"(^(\S+)\s*\((\d+)\)$)");
    if (!std::regex_match(v, m, re)) return {v, -1};
    return {m[1], std::stoi(m[2])};
}

struct Compare {
    std::vector<std::string> rows;
    void row(const std::string& field, const std::string& ours, const std::string& devinfo,
             const std::string& rdma, bool agree) {
        rows.push_back(fmt::format("{:<22} | {:<40} | {:<40} | {:<12} | {}", field, ours, devinfo,
                                   rdma, agree ? "agree" : "DIFFER"));
        EXPECT_TRUE(agree) << field << ": fabscope " << ours << ", ibv_devinfo " << devinfo
                           << ", rdma " << rdma;
    }
};

TEST(HostInventoryVm, AgreesWithIbvDevinfoAndRdmaLink) {
    std::string capture =
        (fs::path(fabscope()).parent_path().parent_path() / "tests/tools/rdma_nl_capture").string();
    VmRun vm = run_in_vm("inventory",
                         fmt::format(R"SH(
rxe_init
rxe_bridge 1
ip netns exec h1 ip addr add fd00::1/64 dev eth0 nodad
# rxe adds the address's GIDs on the netdev event: wait for them, not a time.
for i in $(seq 1 100); do in_host h1 ibv_devinfo -v 2>/dev/null | grep -q 'fd00:' && break; sleep 0.1; done
in_host h1 $F health --no-state --no-sa --json > health.json 2> health.err; echo "health_rc=$?"
in_host h1 ibv_devinfo -v > devinfo.txt 2>&1; echo "devinfo_rc=$?"
in_host h1 rdma -j link show > link.json; echo "link_rc=$?"
in_host h1 rdma -j dev show > dev.json; echo "dev_rc=$?"
in_host h1 ethtool -m eth0 > ethtool-m.txt 2>&1; echo "ethtool_m_rc=$?"
in_host h1 $(guest_path {}) > nl-capture.hex; echo "capture_rc=$?"
)SH",
                                     capture),
                         std::chrono::seconds(300));
    ASSERT_EQ(vm.exit_code, 0) << vm.output;
    EXPECT_EQ(vm.value("devinfo_rc"), "0");
    EXPECT_EQ(vm.value("link_rc"), "0");
    EXPECT_EQ(vm.value("capture_rc"), "0");
    json h = vm.file("health.json", "health.schema.json");
    json link = json::parse(slurp((vm.dir / "link.json").string()));
    json dev = json::parse(slurp((vm.dir / "dev.json").string()));
    Devinfo di = parse_devinfo(slurp((vm.dir / "devinfo.txt").string()));

    const json& inv = h["inventory"];
    EXPECT_EQ(inv["sources"], json({"sysfs", "libibverbs", "netlink", "ethtool-netlink"}));
    EXPECT_TRUE(inv["problems"].empty()) << inv["problems"].dump(1);
    ASSERT_EQ(inv["devices"].size(), 1U) << inv.dump(1);
    ASSERT_EQ(link.size(), 1U);
    ASSERT_EQ(dev.size(), 1U);
    const json& d = inv["devices"][0];
    const json& p = d["ports"][0];
    const json& l = link[0];
    ASSERT_TRUE(di.ports.count(1)) << slurp((vm.dir / "devinfo.txt").string());
    const DevinfoPort& dp = di.ports.at(1);

    Compare c;
    std::string name = d["name"];
    c.row("device", name, di.hca_id, dev[0]["ifname"],
          name == di.hca_id && name == dev[0]["ifname"] && name == l["ifname"]);
    std::string guid = d["node_guid"];
    c.row("node_guid", guid, di.fields["node_guid"], dev[0]["node_guid"],
          guid == di.fields["node_guid"] && guid == dev[0]["node_guid"]);
    auto [st_word, st_code] = word_and_code(dp.fields.at("state"));
    std::string st = p["state"];
    c.row("port state", st + " / netlink " + p["netlink"]["state"].get<std::string>(),
          dp.fields.at("state"), l["state"],
          "PORT_" + st == st_word && st == l["state"] && p["netlink"]["state"] == l["state"]);
    auto [ph_word, ph_code] = word_and_code(dp.fields.at("phys_state"));
    std::string ph = p["phys_state"];
    c.row("physical state", ph + " / netlink " + p["netlink"]["phys_state"].get<std::string>(),
          dp.fields.at("phys_state"), l["physical_state"],
          ph_code == 5 && ph == "LinkUp" && ph_word == l["physical_state"] &&
              p["netlink"]["phys_state"] == l["physical_state"]);
    std::string ll = p["link_layer"];
    c.row("link layer", ll, dp.fields.at("link_layer"), "-", ll == dp.fields.at("link_layer"));
    auto [mtu_word, mtu_code] = word_and_code(dp.fields.at("active_mtu"));
    std::string mtu = p["active_mtu"].is_null() ? "null" : p["active_mtu"].dump();
    c.row("active MTU", mtu, dp.fields.at("active_mtu"), "-", mtu == mtu_word);
    std::string netdev = p["netdev"].is_null() ? "" : p["netdev"]["name"].get<std::string>();
    c.row("netdev", netdev + " / netlink " + p["netlink"]["netdev"].get<std::string>(), "-",
          l["netdev"], netdev == l["netdev"] && p["netlink"]["netdev"] == l["netdev"]);

    // A veth has no module: information (status none), not a finding; ethtool -m agrees.
    const json& mod = p["module"];
    const std::string ethtool_m = slurp((vm.dir / "ethtool-m.txt").string());
    c.row("module", mod.value("status", "?") + " (" + mod.value("detail", "") + ")", "-",
          "ethtool -m: " + ethtool_m.substr(0, ethtool_m.find('\n')),
          mod["status"] == "none" && vm.value("ethtool_m_rc") != "0");
    for (const auto& f : h["findings"]) EXPECT_NE(f["check"], "module") << f.dump();

    std::map<int, std::pair<std::string, std::string>> ours;
    for (const auto& g : p["gids"]) {
        ours[g["index"].get<int>()] = {g["gid"], g["type"]};
        c.row(fmt::format("GID[{}] netdev", g["index"].get<int>()), g["ndev"], "-", l["netdev"],
              g["ndev"] == l["netdev"]);
    }
    for (const auto& [i, og] : ours) {
        auto it = dp.gids.find(i);
        std::string theirs =
            it == dp.gids.end() ? "(none)" : it->second.first + ", " + it->second.second;
        c.row(fmt::format("GID[{}]", i), og.first + ", " + og.second, theirs, "-",
              it != dp.gids.end() && it->second == og);
    }
    for (const auto& [i, tg] : dp.gids) {
        if (!ours.count(i))
            c.row(fmt::format("GID[{}]", i), "(none)", tg.first + ", " + tg.second, "-", false);
    }
    int v2 = 0;
    for (const auto& [i, og] : ours) v2 += og.second == "RoCE v2";
    EXPECT_GE(v2, 2) << "a link-local and an IPv4 RoCE v2 GID at least";

    std::cout << fmt::format("{:<22} | {:<40} | {:<40} | {:<12} | {}\n", "field", "fabscope",
                             "ibv_devinfo -v", "rdma link", "");
    for (const auto& r : c.rows) std::cout << r << "\n";
    std::cout << "health_rc=" << vm.value("health_rc") << " elapsed_ms=" << h["elapsed_ms"]
              << " wall_s=" << vm.wall_s << "\n";
}

}  // namespace
}  // namespace fabscope::labtest
