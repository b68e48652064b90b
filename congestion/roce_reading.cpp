#include "congestion/roce_reading.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

namespace fabscope {

namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path& p) {
    std::ifstream in(p);
    std::string line;
    if (!in || !std::getline(in, line)) return "";
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
    return line;
}

}  // namespace

std::string port_key(const std::string& device, int port) {
    return fmt::format("{}/{}", device, port);
}

std::string sysfs_netdev(const std::string& sysfs_root, const std::string& device, int port) {
    fs::path ndevs =
        fs::path(sysfs_root) / device / "ports" / std::to_string(port) / "gid_attrs" / "ndevs";
    std::string first = first_line(ndevs / "0");
    if (!first.empty()) return first;
    std::error_code ec;
    std::vector<fs::path> entries;
    for (const auto& e : fs::directory_iterator(ndevs, ec)) entries.push_back(e.path());
    std::sort(entries.begin(), entries.end());
    for (const fs::path& e : entries) {
        // Unused GID entries read as an error (EINVAL): first_line gives "".
        if (std::string n = first_line(e); !n.empty()) return n;
    }
    return "";
}

bool sysfs_is_roce(const std::string& sysfs_root, const std::string& device, int port) {
    return first_line(fs::path(sysfs_root) / device / "ports" / std::to_string(port) /
                      "link_layer") == "Ethernet";
}

RoceHostReading read_roce_host(const std::string& host, CounterSource& rdma,
                               const std::string& sysfs_root, EthtoolSource& ethtool,
                               DcbSource& dcb) {
    RoceHostReading r;
    r.host = host;
    r.rdma = rdma.read();
    std::set<std::string> netdevs;
    for (const CounterSample& s : r.rdma) {
        std::string nd = sysfs_netdev(sysfs_root, s.device, s.port);
        r.netdev_of[port_key(s.device, s.port)] = nd;
        if (nd.empty())
            r.problems.push_back(fmt::format("{}: {} port {} names no netdev (gid_attrs/ndevs)",
                                             host, s.device, s.port));
        else
            netdevs.insert(nd);
    }
    for (const std::string& nd : netdevs) {
        if (auto e = ethtool.read(nd))
            r.ethtool[nd] = std::move(e).value();
        else
            r.problems.push_back(fmt::format("{}: {}", host, e.error().message));
        if (auto d = dcb.read(nd))
            r.dcb[nd] = std::move(d).value();
        else
            r.problems.push_back(fmt::format("{}: {}", host, d.error().message));
    }
    return r;
}

Result<std::vector<RoceHostReading>> read_saved_roce(const std::string& dir, const Clock& clock) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        return make_error(fmt::format("{}: not a folder of saved readings", dir));
    std::vector<std::pair<std::string, fs::path>> hosts;
    if (fs::is_directory(fs::path(dir) / "infiniband", ec)) {
        std::string name = first_line(fs::path(dir) / "hostname");
        hosts.emplace_back(name.empty() ? "host" : name, dir);
    } else {
        for (const auto& e : fs::directory_iterator(dir, ec)) {
            if (fs::is_directory(e.path() / "infiniband", ec))
                hosts.emplace_back(e.path().filename().string(), e.path());
        }
        std::sort(hosts.begin(), hosts.end());
    }
    if (hosts.empty())
        return make_error(fmt::format(
            "{}: no saved reading (expected infiniband/ in it, or host folders that have one)",
            dir));
    std::vector<RoceHostReading> out;
    for (const auto& [name, path] : hosts) {
        const std::string ib = (path / "infiniband").string();
        SysfsCounterSource rdma(ib, clock);
        FixtureEthtoolSource eth((path / "ethtool").string(), clock);
        FixtureDcbSource dcb((path / "dcb.json").string());
        RoceHostReading r = read_roce_host(name, rdma, ib, eth, dcb);
        if (r.rdma.empty())
            return make_error(
                fmt::format("{}: no RDMA device ports under infiniband/", path.string()));
        out.push_back(std::move(r));
    }
    return out;
}

}  // namespace fabscope
