#include "net/allow_list.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <charconv>
#include <cstring>
#include <optional>

namespace fabscope::perf {
namespace {

using Bytes = std::array<uint8_t, 16>;

// The address as 16 bytes and whether it was IPv4.
std::optional<std::pair<Bytes, bool>> parse_ip(const std::string& s) {
    Bytes b{};
    in_addr v4{};
    if (::inet_pton(AF_INET, s.c_str(), &v4) == 1) {
        b[10] = 0xff;
        b[11] = 0xff;
        std::memcpy(b.data() + 12, &v4, 4);
        return std::make_pair(b, true);
    }
    in6_addr v6{};
    if (::inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
        std::memcpy(b.data(), &v6, 16);
        return std::make_pair(b, false);
    }
    return std::nullopt;
}

bool same_prefix(const Bytes& a, const Bytes& b, int prefix) {
    int full = prefix / 8;
    for (int i = 0; i < full; ++i) {
        if (a[static_cast<size_t>(i)] != b[static_cast<size_t>(i)]) return false;
    }
    int rest = prefix % 8;
    if (rest == 0) return true;
    auto mask = static_cast<uint8_t>(0xff << (8 - rest));
    return (a[static_cast<size_t>(full)] & mask) == (b[static_cast<size_t>(full)] & mask);
}

}  // namespace

AllowList AllowList::loopback() {
    AllowList a;
    (void)a.add("127.0.0.0/8");
    (void)a.add("::1");
    return a;
}

Status AllowList::add(const std::string& cidr) {
    auto slash = cidr.find('/');
    std::string addr = cidr.substr(0, slash);
    auto ip = parse_ip(addr);
    if (!ip) {
        return make_error(fmt::format(
            "--allow {}: not an address or network (e.g. 10.0.0.0/24, fd00::/8)", cidr));
    }
    int max = ip->second ? 32 : 128;
    int prefix = max;
    if (slash != std::string::npos) {
        std::string p = cidr.substr(slash + 1);
        auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), prefix);
        if (ec != std::errc() || end != p.data() + p.size() || p.empty() || prefix < 0 ||
            prefix > max) {
            return make_error(
                fmt::format("--allow {}: the prefix length must be 0 to {}", cidr, max));
        }
    }
    nets_.push_back({ip->first, ip->second ? prefix + 96 : prefix, cidr});
    return Ok{};
}

bool AllowList::allows(const std::string& ip) const {
    auto a = parse_ip(ip);
    if (!a) return false;
    for (const Net& n : nets_) {
        if (same_prefix(n.addr, a->first, n.prefix)) return true;
    }
    return false;
}

std::string AllowList::describe() const {
    std::string s;
    for (const Net& n : nets_) s += (s.empty() ? "" : ", ") + n.text;
    return s;
}

}  // namespace fabscope::perf
