#include "probe/host_addresses.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netdb.h>

#include <algorithm>
#include <cstring>

namespace fabscope::probe {
namespace {

using Bytes = std::array<uint8_t, 16>;

std::optional<Bytes> numeric(const std::string& s) {
    Bytes b{};
    in_addr v4{};
    if (::inet_pton(AF_INET, s.c_str(), &v4) == 1) {
        b[10] = 0xff;
        b[11] = 0xff;
        std::memcpy(b.data() + 12, &v4, 4);
        return b;
    }
    in6_addr v6{};
    if (::inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
        std::memcpy(b.data(), &v6, 16);
        return b;
    }
    return std::nullopt;
}

Bytes from_sockaddr(const sockaddr* sa) {
    Bytes b{};
    if (sa->sa_family == AF_INET) {
        b[10] = 0xff;
        b[11] = 0xff;
        std::memcpy(b.data() + 12, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, 4);
    } else {
        std::memcpy(b.data(), &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, 16);
    }
    return b;
}

Result<std::vector<Bytes>> resolve(const std::string& name) {
    if (auto b = numeric(name)) return std::vector<Bytes>{*b};
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &res); rc != 0)
        return make_error(fmt::format("cannot resolve {}: {}", name, ::gai_strerror(rc)));
    std::vector<Bytes> out;
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
            out.push_back(from_sockaddr(ai->ai_addr));
    }
    ::freeaddrinfo(res);
    return out;
}

}  // namespace

std::string host_part(const std::string& where) {
    if (!where.empty() && where.front() == '[') return where.substr(1, where.find(']') - 1);
    return where.substr(0, where.rfind(':'));
}

HostAddresses::HostAddresses(const std::vector<ProbeHost>& hosts)
    : hosts_(hosts), known_(hosts.size()) {
    // Literal addresses now (no lookup); names when first claimed.
    for (size_t i = 0; i < hosts_.size(); ++i) {
        if (auto b = numeric(host_part(hosts_[i].where))) known_[i] = std::vector<Bytes>{*b};
    }
}

Result<bool> HostAddresses::is_of(size_t host, const std::string& ip) {
    if (!known_[host]) {
        auto r = resolve(host_part(hosts_[host].where));
        if (!r) return r.error();
        known_[host] = std::move(*r);
    }
    const auto b = numeric(ip);
    if (!b) return false;
    return std::find(known_[host]->begin(), known_[host]->end(), *b) != known_[host]->end();
}

}  // namespace fabscope::probe
