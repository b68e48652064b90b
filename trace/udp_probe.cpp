#include "trace/udp_probe.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <vector>

namespace fabscope::perf {
namespace {

constexpr std::array<char, 4> kMagic{'F', 'S', 'T', 'R'};

std::optional<uint32_t> ipv4(const std::string& s) {
    in_addr a{};
    if (inet_pton(AF_INET, s.c_str(), &a) != 1) return std::nullopt;
    return a.s_addr;
}

std::string ipv4_text(uint32_t net_order) {
    std::array<char, INET_ADDRSTRLEN> buf{};
    in_addr a{};
    a.s_addr = net_order;
    inet_ntop(AF_INET, &a, buf.data(), buf.size());
    return buf.data();
}

}  // namespace

Result<std::unique_ptr<UdpProbeTransport>> UdpProbeTransport::open(const std::string& source,
                                                                   const std::string& destination) {
    auto dst = ipv4(destination);
    if (!dst) {
        return make_error(
            fmt::format("{}: not an IPv4 address (RoCE path tracing needs the peer's IPv4 address)",
                        destination));
    }
    uint32_t src = 0;
    if (!source.empty()) {
        auto s = ipv4(source);
        if (!s) return make_error(fmt::format("{}: not an IPv4 address", source));
        src = *s;
    }
    return std::unique_ptr<UdpProbeTransport>(new UdpProbeTransport(src, *dst));
}

UdpProbeTransport::~UdpProbeTransport() {
    for (auto& [port, fd] : sockets_) ::close(fd);
}

Result<int> UdpProbeTransport::socket_for(uint16_t sport) {
    if (auto it = sockets_.find(sport); it != sockets_.end()) return it->second;
    int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return make_error(fmt::format("socket: {}", std::strerror(errno)), 3);
    int on = 1;
    sockaddr_in local{};
    local.sin_family = AF_INET;
    local.sin_addr.s_addr = source_;
    local.sin_port = htons(sport);
    auto fail = [&](const char* what) {
        std::string e = fmt::format("{} UDP port {}: {}", what, sport, std::strerror(errno));
        ::close(fd);
        return make_error(e, 3);
    };
    if (setsockopt(fd, SOL_IP, IP_RECVERR, &on, sizeof on) != 0) return fail("IP_RECVERR on");
    if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) return fail("binding");
    sockets_[sport] = fd;
    return fd;
}

Status UdpProbeTransport::send(uint16_t sport, int ttl, uint32_t tag) {
    auto fd = socket_for(sport);
    if (!fd) return fd.error();
    if (setsockopt(*fd, SOL_IP, IP_TTL, &ttl, sizeof ttl) != 0)
        return make_error(fmt::format("IP_TTL {}: {}", ttl, std::strerror(errno)), 3);
    std::array<char, 8> payload{};
    std::memcpy(payload.data(), kMagic.data(), kMagic.size());
    uint32_t t = htonl(tag);
    std::memcpy(payload.data() + 4, &t, sizeof t);
    sockaddr_in remote{};
    remote.sin_family = AF_INET;
    remote.sin_addr.s_addr = destination_;
    remote.sin_port = htons(kRoceV2Port);
    // An earlier ICMP error is also reported by the next send: once more then.
    for (int attempt = 0; attempt < 2; ++attempt) {
        // Never connect(): a connected UDP socket gets a random transmit hash
        // (sk_txhash) that its packets carry as their L4 hash, and a Linux
        // router's multipath choice then follows that instead of the ports.
        // Unconnected, a probe is hashed from its headers, as the RoCE flow is.
        if (::sendto(*fd, payload.data(), payload.size(), 0, reinterpret_cast<sockaddr*>(&remote),
                     sizeof remote) >= 0)
            return Ok{};
        if (errno != EHOSTUNREACH && errno != ENETUNREACH && errno != ECONNREFUSED &&
            errno != EHOSTDOWN)
            break;
        drain(*fd, sport);
    }
    return make_error(
        fmt::format("sending a probe from UDP port {}: {}", sport, std::strerror(errno)), 3);
}

void UdpProbeTransport::drain(int fd, uint16_t sport) {
    for (;;) {
        std::array<char, 512> data{};
        std::array<char, 512> control{};
        sockaddr_in name{};
        iovec iov{data.data(), data.size()};
        msghdr m{};
        m.msg_name = &name;
        m.msg_namelen = sizeof name;
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = control.data();
        m.msg_controllen = control.size();
        ssize_t n = ::recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
        if (n < 0) break;
        for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) {
            if (c->cmsg_level != SOL_IP || c->cmsg_type != IP_RECVERR) continue;
            sock_extended_err ee{};
            std::memcpy(&ee, CMSG_DATA(c), sizeof ee);
            ProbeAnswer a;
            a.sport = sport;
            // The router quotes our datagram: its payload carries the tag.
            if (n >= 8 && std::memcmp(data.data(), kMagic.data(), kMagic.size()) == 0) {
                uint32_t t = 0;
                std::memcpy(&t, data.data() + 4, sizeof t);
                a.tag = ntohl(t);
            }
            if (ee.ee_origin == SO_EE_ORIGIN_ICMP) {
                sockaddr_in off{};
                std::memcpy(&off,
                            SO_EE_OFFENDER(reinterpret_cast<sock_extended_err*>(CMSG_DATA(c))),
                            sizeof off);
                a.from = ipv4_text(off.sin_addr.s_addr);
                a.icmp_type = ee.ee_type;
                a.icmp_code = ee.ee_code;
                if (ee.ee_type == 11) {  // time exceeded
                    a.kind = ProbeAnswer::Kind::TimeExceeded;
                } else if (ee.ee_type == 3) {  // destination unreachable
                    a.kind = ProbeAnswer::Kind::Unreachable;
                } else {
                    continue;  // redirects, source quench: not about the path
                }
            } else {
                a.kind = ProbeAnswer::Kind::LocalError;
                a.error = std::strerror(static_cast<int>(ee.ee_errno));
            }
            ready_.push_back(a);
        }
    }
    // Datagrams to our port (nobody should send any) are read and dropped.
    std::array<char, 64> junk{};
    while (::recv(fd, junk.data(), junk.size(), MSG_DONTWAIT) >= 0) {
    }
}

std::optional<ProbeAnswer> UdpProbeTransport::receive(Clock::time_point until) {
    for (;;) {
        if (!ready_.empty()) {
            ProbeAnswer a = ready_.front();
            ready_.pop_front();
            return a;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            until - std::chrono::steady_clock::now());
        if (left.count() < 0) return std::nullopt;
        std::vector<pollfd> fds;
        std::vector<uint16_t> ports;
        for (auto& [port, fd] : sockets_) {
            fds.push_back({fd, POLLIN, 0});
            ports.push_back(port);
        }
        if (fds.empty()) return std::nullopt;
        int n = ::poll(fds.data(), fds.size(), static_cast<int>(left.count()) + 1);
        if (n < 0 && errno != EINTR) return std::nullopt;
        for (size_t i = 0; i < fds.size(); ++i) {
            if (fds[i].revents != 0) drain(fds[i].fd, ports[i]);
        }
        if (n == 0 && ready_.empty() && std::chrono::steady_clock::now() >= until)
            return std::nullopt;
    }
}

Result<std::string> resolve_ipv4(const std::string& host) {
    if (ipv4(host)) return host;
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* res = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &res); rc != 0 || res == nullptr) {
        return make_error(fmt::format("{}: no IPv4 address ({})", host, gai_strerror(rc)));
    }
    std::string out = ipv4_text(reinterpret_cast<sockaddr_in*>(res->ai_addr)->sin_addr.s_addr);
    freeaddrinfo(res);
    return out;
}

std::string gid_ipv4(const std::array<uint8_t, 16>& gid) {
    for (size_t i = 0; i < 10; ++i) {
        if (gid[i] != 0) return "";
    }
    if (gid[10] != 0xff || gid[11] != 0xff) return "";
    return fmt::format("{}.{}.{}.{}", gid[12], gid[13], gid[14], gid[15]);
}

bool on_link(const std::string& destination) {
    auto dst = ipv4(destination);
    if (!dst) return false;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) != 0) return false;
    bool found = false;
    for (ifaddrs* i = list; i != nullptr && !found; i = i->ifa_next) {
        if (i->ifa_addr == nullptr || i->ifa_netmask == nullptr ||
            i->ifa_addr->sa_family != AF_INET)
            continue;
        uint32_t a = reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr;
        uint32_t m = reinterpret_cast<sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr;
        found = (a & m) == (*dst & m);
    }
    freeifaddrs(list);
    return found;
}

}  // namespace fabscope::perf
