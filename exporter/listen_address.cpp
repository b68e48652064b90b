#include "exporter/listen_address.h"

#include <arpa/inet.h>
#include <fmt/format.h>

#include <charconv>

#include "util/exit_status.h"

namespace fabscope {

Result<ListenAddress> parse_listen_address(std::string_view s) {
    auto bad = [&](std::string_view why) {
        return make_error(fmt::format("--listen {}: {}; use ADDR:PORT such as 127.0.0.1:9775, "
                                      "0.0.0.0:9775 or [::1]:9775",
                                      s, why),
                          kExitUsage);
    };
    size_t colon = s.rfind(':');
    if (colon == std::string_view::npos) return bad("no port");
    std::string_view host = s.substr(0, colon);
    std::string_view port = s.substr(colon + 1);
    bool v6 = false;
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
        v6 = true;
    }
    if (host.empty()) return bad("no address");
    ListenAddress a;
    a.host = std::string(host);
    if (host == "localhost" && !v6) {
        a.host = "127.0.0.1";
    } else {
        unsigned char buf[16];
        if (inet_pton(v6 ? AF_INET6 : AF_INET, a.host.c_str(), buf) != 1) {
            return bad(v6 ? "not an IPv6 address" : "not an IPv4 address (IPv6 goes in brackets)");
        }
    }
    auto [ptr, ec] = std::from_chars(port.data(), port.data() + port.size(), a.port);
    if (port.empty() || ec != std::errc() || ptr != port.data() + port.size() || a.port < 0 ||
        a.port > 65535) {
        return bad("the port is not a number from 0 to 65535");
    }
    return a;
}

std::string to_string(const ListenAddress& a) {
    bool v6 = a.host.find(':') != std::string::npos;
    return v6 ? fmt::format("[{}]:{}", a.host, a.port) : fmt::format("{}:{}", a.host, a.port);
}

}  // namespace fabscope
