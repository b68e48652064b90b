#include "probe/host_addresses.h"

#include <fmt/format.h>
#include <netdb.h>

#include "net/channel.h"
#include "util/tcp_connect.h"

namespace fabscope::probe {
namespace {

/// Every address `name` resolves to.
Result<perf::AllowList> resolve(const std::string& name) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(name.c_str(), nullptr, &hints, &res); rc != 0)
        return make_error(fmt::format("cannot resolve {}: {}", name, ::gai_strerror(rc)));
    perf::AllowList out;
    for (addrinfo* ai = res; ai; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET || ai->ai_family == AF_INET6)
            (void)out.add(numeric_address(ai->ai_addr).second);
    }
    ::freeaddrinfo(res);
    return out;
}

}  // namespace

std::string host_part(const std::string& where) {
    return perf::split_host_port(where).first;
}

HostAddresses::HostAddresses(const std::vector<ProbeHost>& hosts)
    : hosts_(hosts), known_(hosts.size()) {
    // Literal addresses now (no lookup); names when first claimed.
    for (size_t i = 0; i < hosts_.size(); ++i) {
        perf::AllowList one;
        if (one.add(host_part(hosts_[i].where))) known_[i] = std::move(one);
    }
}

Result<bool> HostAddresses::is_of(size_t host, const std::string& ip) {
    if (!known_[host]) {
        auto r = resolve(host_part(hosts_[host].where));
        if (!r) return r.error();
        known_[host] = std::move(*r);
    }
    return known_[host]->allows(ip);
}

}  // namespace fabscope::probe
