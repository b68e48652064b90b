// The live DcbSource: RTM_GETDCB requests on a NETLINK_ROUTE socket, parsed
// by hand (a request, one reply or an error ack; no dump).

#include <fmt/format.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <span>

#include "congestion/dcb_settings.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

constexpr int kReplyTimeoutMs = 2000;
constexpr size_t kReplyBuffer = 64 * 1024;

/// What follows a netlink header (NLMSG_DATA without its C cast).
template <class T>
T* nl_data(nlmsghdr* nh) {
    return reinterpret_cast<T*>(reinterpret_cast<char*>(nh) + NLMSG_HDRLEN);  // NOLINT
}

/// A netlink request: header, dcbmsg, then attributes appended in order.
class Request {
  public:
    Request(uint8_t cmd, uint32_t seq) {
        auto* nh = header();
        nh->nlmsg_type = RTM_GETDCB;
        nh->nlmsg_flags = NLM_F_REQUEST;
        nh->nlmsg_seq = seq;
        nh->nlmsg_len = NLMSG_LENGTH(sizeof(dcbmsg));
        auto* d = nl_data<dcbmsg>(nh);
        d->dcb_family = AF_UNSPEC;
        d->cmd = cmd;
    }
    /// Appends an attribute; returns its offset (for nesting).
    size_t add(uint16_t type, const void* data, size_t len) {
        size_t off = NLMSG_ALIGN(header()->nlmsg_len);
        auto* a = reinterpret_cast<rtattr*>(buf_ + off);  // NOLINT
        a->rta_type = type;
        a->rta_len = static_cast<uint16_t>(RTA_LENGTH(len));
        if (len) std::memcpy(RTA_DATA(a), data, len);
        header()->nlmsg_len = static_cast<uint32_t>(off + RTA_ALIGN(a->rta_len));
        return off;
    }
    /// Closes a nest opened by add(type | NLA_F_NESTED, nullptr, 0).
    void end_nest(size_t off) {
        auto* a = reinterpret_cast<rtattr*>(buf_ + off);  // NOLINT
        a->rta_len = static_cast<uint16_t>(header()->nlmsg_len - off);
    }
    nlmsghdr* header() { return reinterpret_cast<nlmsghdr*>(buf_); }  // NOLINT

  private:
    alignas(NLMSG_ALIGNTO) char buf_[256] = {};
};

/// The attributes in `data`, by type (NLA_F_NESTED and friends masked off).
std::vector<std::pair<uint16_t, std::span<const char>>> attrs(std::span<const char> data) {
    // Headers are copied out (memcpy), not cast in place: the buffer has no
    // alignment to promise, and a length that runs past the data ends the walk.
    std::vector<std::pair<uint16_t, std::span<const char>>> out;
    size_t off = 0;
    while (off + sizeof(rtattr) <= data.size()) {
        rtattr a{};
        std::memcpy(&a, data.data() + off, sizeof a);
        if (a.rta_len < RTA_LENGTH(0) || off + a.rta_len > data.size()) break;
        out.emplace_back(a.rta_type & NLA_TYPE_MASK,
                         data.subspan(off + RTA_LENGTH(0), a.rta_len - RTA_LENGTH(0)));
        off += RTA_ALIGN(a.rta_len);
    }
    return out;
}

template <class T>
std::optional<T> as(std::span<const char> d) {
    if (d.size() < sizeof(T)) return std::nullopt;
    T v{};
    std::memcpy(&v, d.data(), sizeof(T));
    return v;
}

struct Reply {
    int error = 0;              ///< positive errno from the kernel's ack, 0 for a reply
    std::vector<char> payload;  ///< the attributes after the dcbmsg
};

}  // namespace

NetlinkDcbSource::NetlinkDcbSource() {
    fd_ = ::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd_ < 0) open_errno_ = errno;
}

NetlinkDcbSource::~NetlinkDcbSource() {
    if (fd_ >= 0) ::close(fd_);
}

namespace {

Result<Reply> transact(int fd, Request& req, const std::string& netdev) {
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    auto fail = [&](const char* what, int e) {
        return make_error(fmt::format("{}: dcbnl {}: {}", netdev, what, std::strerror(e)),
                          kExitCannotRun);
    };
    if (::sendto(fd, req.header(), req.header()->nlmsg_len, 0, reinterpret_cast<sockaddr*>(&kernel),
                 sizeof kernel) < 0)  // NOLINT
        return fail("send", errno);
    const uint32_t seq = req.header()->nlmsg_seq;
    std::vector<char> buf(kReplyBuffer);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kReplyTimeoutMs);
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
        if (left <= 0)
            return make_error(fmt::format("{}: dcbnl: no answer from the kernel in {} ms", netdev,
                                          kReplyTimeoutMs),
                              kExitCannotRun);
        pollfd p{fd, POLLIN, 0};
        int ready = ::poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno != EINTR) return fail("poll", errno);
        if (ready <= 0) continue;
        ssize_t n = ::recv(fd, buf.data(), buf.size(), MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            return fail("receive", errno);
        }
        const auto got = static_cast<size_t>(n);
        for (size_t off = 0; off + sizeof(nlmsghdr) <= got;) {
            nlmsghdr nh{};
            std::memcpy(&nh, buf.data() + off, sizeof nh);
            if (nh.nlmsg_len < NLMSG_HDRLEN || off + nh.nlmsg_len > got) break;
            const char* body = buf.data() + off + NLMSG_HDRLEN;
            const size_t body_len = nh.nlmsg_len - NLMSG_HDRLEN;
            off += NLMSG_ALIGN(nh.nlmsg_len);
            if (nh.nlmsg_seq != seq) continue;  // a late answer to an earlier question
            if (nh.nlmsg_type == NLMSG_ERROR) {
                if (body_len < sizeof(nlmsgerr))
                    return make_error(fmt::format("{}: dcbnl: truncated error", netdev),
                                      kExitCannotRun);
                nlmsgerr e{};
                std::memcpy(&e, body, sizeof e);
                return Reply{-e.error, {}};
            }
            if (body_len < NLMSG_ALIGN(sizeof(dcbmsg))) continue;
            const char* data = body + NLMSG_ALIGN(sizeof(dcbmsg));
            return Reply{0, std::vector<char>(data, body + body_len)};
        }
    }
}

void parse_ieee(std::span<const char> top, DcbSettings& s) {
    for (auto [type, nest] : attrs(top)) {
        if (type != DCB_ATTR_IEEE) continue;
        for (auto [t, d] : attrs(nest)) {
            if (t == DCB_ATTR_IEEE_PFC) {
                if (auto pfc = as<ieee_pfc>(d)) {
                    s.pfc_enabled = pfc->pfc_en;
                    s.pfc_cap = pfc->pfc_cap;
                }
            } else if (t == DCB_ATTR_IEEE_APP_TABLE) {
                for (auto [at, ad] : attrs(d)) {
                    auto app = as<dcb_app>(ad);
                    if (at != DCB_ATTR_IEEE_APP || !app || s.apps.size() == kMaxDcbApps) continue;
                    s.apps.push_back({app->selector, app->protocol, app->priority});
                }
            }
        }
    }
}

void parse_cee_pfc(std::span<const char> top, DcbSettings& s) {
    for (auto [type, nest] : attrs(top)) {
        if (type != DCB_ATTR_PFC_CFG) continue;
        for (auto [t, d] : attrs(nest)) {
            if (t < DCB_PFC_UP_ATTR_0 || t > DCB_PFC_UP_ATTR_7) continue;
            auto on = as<uint8_t>(d);
            if (on && *on) s.pfc_enabled |= static_cast<uint8_t>(1U << (t - DCB_PFC_UP_ATTR_0));
        }
    }
}

}  // namespace

Result<DcbSettings> NetlinkDcbSource::read(const std::string& netdev) {
    if (fd_ < 0)
        return make_error(fmt::format("{}: dcbnl: cannot open a netlink socket: {}", netdev,
                                      std::strerror(open_errno_)),
                          kExitCannotRun);
    if (netdev.empty() || netdev.size() >= IFNAMSIZ)
        return make_error(fmt::format("\"{}\": not a network interface name", netdev));
    DcbSettings s;
    s.netdev = netdev;

    Request ieee(DCB_CMD_IEEE_GET, ++seq_);
    ieee.add(DCB_ATTR_IFNAME, netdev.c_str(), netdev.size() + 1);
    auto r = transact(fd_, ieee, netdev);
    if (!r) return r.error();
    if (r->error == ENODEV || r->error == EINVAL) {
        if (!if_nametoindex(netdev.c_str()))
            return make_error(fmt::format("{}: no such network interface", netdev), kExitCannotRun);
    }
    if (r->error == 0) {
        s.available = true;
        s.standard = "ieee";
        parse_ieee(r->payload, s);
        return s;
    }
    const int ieee_error = r->error;
    // A driver with only CEE DCB: PFC from DCB_CMD_PFC_GCFG.
    Request cee(DCB_CMD_PFC_GCFG, ++seq_);
    cee.add(DCB_ATTR_IFNAME, netdev.c_str(), netdev.size() + 1);
    size_t nest = cee.add(DCB_ATTR_PFC_CFG | NLA_F_NESTED, nullptr, 0);
    cee.add(DCB_PFC_UP_ATTR_ALL, nullptr, 0);
    cee.end_nest(nest);
    auto c = transact(fd_, cee, netdev);
    if (!c) return c.error();
    if (c->error == 0) {
        s.available = true;
        s.standard = "cee";
        parse_cee_pfc(c->payload, s);
        return s;
    }
    s.unavailable = ieee_error == EOPNOTSUPP
                        ? "the driver has no DCB support"
                        : fmt::format("dcbnl answered: {}", std::strerror(ieee_error));
    return s;
}

}  // namespace fabscope
