#include "rdma/endpoint_info.h"

#include <fmt/format.h>

#include <cstdio>

#include "model/json_io.h"

namespace fabscope::perf {

std::string format_gid(const Gid& g) {
    std::string s;
    for (size_t i = 0; i < g.size(); i += 2)
        s += fmt::format("{}{:02x}{:02x}", i ? ":" : "", g[i], g[i + 1]);
    return s;
}

Gid gid_from_json(const nlohmann::json& j, const char* key) {
    std::string g = json_io::get_string(j, key);
    if (g.size() != 39) json_io::fail(j.at(key), "must be a GID such as fe80:0000:...");
    Gid gid{};
    for (size_t i = 0, k = 0; i < g.size() && k < 16; i += 5, k += 2) {
        unsigned hi = 0;
        unsigned lo = 0;
        if (std::sscanf(g.c_str() + i, "%2x%2x", &hi, &lo) != 2)
            json_io::fail(j.at(key), "is not a GID");
        gid[k] = static_cast<uint8_t>(hi);
        gid[k + 1] = static_cast<uint8_t>(lo);
    }
    return gid;
}

nlohmann::json info_to_json(const EndpointInfo& e) {
    return {{"qpn", e.qpn},   {"psn", e.psn},   {"lid", e.lid},   {"gid", format_gid(e.gid)},
            {"addr", e.addr}, {"rkey", e.rkey}, {"size", e.size}, {"mtu", e.mtu},
            {"roce", e.roce}};
}

EndpointInfo info_from_json(const nlohmann::json& j) {
    EndpointInfo e;
    e.qpn = json_io::get_uint<uint32_t>(j, "qpn");
    e.psn = json_io::get_uint<uint32_t>(j, "psn");
    e.lid = json_io::get_uint<uint16_t>(j, "lid");
    e.gid = gid_from_json(j, "gid");
    e.addr = json_io::get_uint<uint64_t>(j, "addr");
    e.rkey = json_io::get_uint<uint32_t>(j, "rkey");
    e.size = json_io::get_uint<uint32_t>(j, "size");
    e.mtu = json_io::get_uint<int>(j, "mtu");
    e.roce = json_io::get_bool(j, "roce", true);
    return e;
}

}  // namespace fabscope::perf
