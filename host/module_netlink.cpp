#include "host/module_netlink.h"

#include <fmt/format.h>
#include <libmnl/libmnl.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

namespace fabscope::host {
namespace {

constexpr int kDeadlineMs = 1000;  // the whole module, every page
constexpr uint8_t kI2cAddress = 0x50;

using MnlSocket = std::unique_ptr<mnl_socket, decltype(&mnl_socket_close)>;

/// One request and its answer: the reply's messages go to `cb`; an error
/// the kernel returns is its errno (0 = acknowledged).
struct Exchange {
    mnl_socket* nl = nullptr;
    std::chrono::steady_clock::time_point deadline;
    uint32_t seq = 0;

    int run(nlmsghdr* req, mnl_cb_t cb, void* data) {
        req->nlmsg_seq = ++seq;
        if (mnl_socket_sendto(nl, req, req->nlmsg_len) < 0) return errno;
        std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
        const unsigned portid = mnl_socket_get_portid(nl);
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  deadline - std::chrono::steady_clock::now())
                                  .count();
            if (left <= 0) return ETIMEDOUT;
            pollfd p{mnl_socket_get_fd(nl), POLLIN, 0};
            const int ready = ::poll(&p, 1, static_cast<int>(left));
            if (ready < 0 && errno != EINTR) return errno;
            if (ready <= 0) continue;
            const ssize_t got = mnl_socket_recvfrom(nl, buf.data(), buf.size());
            if (got < 0) return errno;
            const int r = mnl_cb_run(buf.data(), static_cast<size_t>(got), seq, portid, cb, data);
            if (r == MNL_CB_STOP) return 0;
            if (r < 0) return errno != 0 ? errno : EPROTO;
        }
    }
};

nlmsghdr* genl_request(std::vector<char>& buf, uint16_t family, uint8_t cmd, uint8_t version) {
    nlmsghdr* nlh = mnl_nlmsg_put_header(buf.data());
    nlh->nlmsg_type = family;
    nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    auto* g = static_cast<genlmsghdr*>(mnl_nlmsg_put_extra_header(nlh, sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = version;
    return nlh;
}

using AttrVisitor = std::function<void(uint16_t type, const nlattr* a)>;

int visit_attr(const nlattr* a, void* data) {
    (*static_cast<AttrVisitor*>(data))(mnl_attr_get_type(a), a);
    return MNL_CB_OK;
}

/// Calls `f(type, attr)` for each top-level attribute of a generic netlink reply.
void each_attr(const nlmsghdr* nlh, AttrVisitor f) {
    mnl_attr_parse(nlh, sizeof(genlmsghdr), visit_attr, &f);
}

int family_cb(const nlmsghdr* nlh, void* data) {
    each_attr(nlh, [&](uint16_t type, const nlattr* a) {
        if (type == CTRL_ATTR_FAMILY_ID && mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
            *static_cast<uint16_t*>(data) = mnl_attr_get_u16(a);
    });
    return MNL_CB_OK;
}

struct PageReply {
    uint8_t* into = nullptr;
    size_t want = 0;
    size_t got = 0;
};

int page_cb(const nlmsghdr* nlh, void* data) {
    auto* r = static_cast<PageReply*>(data);
    each_attr(nlh, [&](uint16_t type, const nlattr* a) {
        if (type != ETHTOOL_A_MODULE_EEPROM_DATA) return;
        // The driver may read less than asked: the attribute's length says.
        r->got = std::min<size_t>(mnl_attr_get_payload_len(a), r->want);
        std::memcpy(r->into, mnl_attr_get_payload(a), r->got);
    });
    return MNL_CB_OK;
}

/// 128 bytes of `page` (offset 0 = the lower page, 128 = the upper half).
int read_half(Exchange& x, uint16_t family, const std::string& ifname, uint8_t page,
              uint32_t offset, ModuleHalfPage& into) {
    std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
    nlmsghdr* nlh = genl_request(buf, family, ETHTOOL_MSG_MODULE_EEPROM_GET, ETHTOOL_GENL_VERSION);
    nlattr* hdr = mnl_attr_nest_start(nlh, ETHTOOL_A_MODULE_EEPROM_HEADER);
    mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname.c_str());
    mnl_attr_nest_end(nlh, hdr);
    mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_OFFSET, offset);
    mnl_attr_put_u32(nlh, ETHTOOL_A_MODULE_EEPROM_LENGTH, kModuleHalfPage);
    mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_PAGE, page);
    mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_BANK, 0);
    mnl_attr_put_u8(nlh, ETHTOOL_A_MODULE_EEPROM_I2C_ADDRESS, kI2cAddress);
    PageReply r{into.data(), into.size(), 0};
    const int e = x.run(nlh, page_cb, &r);
    if (e != 0) return e;
    return r.got == into.size() ? 0 : EIO;
}

ModuleRead not_read(ModuleRead::Outcome o, std::string detail) {
    ModuleRead r;
    r.outcome = o;
    r.detail = std::move(detail);
    return r;
}

}  // namespace

ModuleRead read_module_eeprom(const std::string& ifname) {
    MnlSocket nl(mnl_socket_open(NETLINK_GENERIC), &mnl_socket_close);
    if (!nl || mnl_socket_bind(nl.get(), 0, MNL_SOCKET_AUTOPID) < 0)
        return not_read(
            ModuleRead::Outcome::Failed,
            fmt::format("cannot open a generic netlink socket: {}", std::strerror(errno)));
    Exchange x{nl.get(), std::chrono::steady_clock::now() + std::chrono::milliseconds(kDeadlineMs)};
    uint16_t family = 0;
    {
        std::vector<char> buf(MNL_SOCKET_BUFFER_SIZE);
        nlmsghdr* nlh = genl_request(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
        mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME);
        if (int e = x.run(nlh, family_cb, &family); e != 0 || family == 0)
            return not_read(
                ModuleRead::Outcome::Failed,
                fmt::format("no ethtool netlink in this kernel ({}): Linux 5.13 or later "
                            "reads modules",
                            std::strerror(e != 0 ? e : ENOENT)));
    }
    ModuleRead out;
    if (int e = read_half(x, family, ifname, 0, 0, out.pages.lower); e != 0) {
        if (e == EPERM || e == EACCES)
            return not_read(ModuleRead::Outcome::Failed,
                            "reading a module needs CAP_NET_ADMIN (run as root)");
        if (e == ETIMEDOUT) return not_read(ModuleRead::Outcome::Failed, "no answer within 1 s");
        // EOPNOTSUPP (no module support: a veth), ENODEV (an empty cage), EIO, EINVAL.
        return not_read(ModuleRead::Outcome::NoModule, std::strerror(e));
    }
    if (int e = read_half(x, family, ifname, 0, kModuleHalfPage, out.pages.upper[0]); e != 0)
        return not_read(ModuleRead::Outcome::Failed, fmt::format("page 00h: {}", std::strerror(e)));
    for (uint8_t page : module_pages_to_read(out.pages.lower)) {
        ModuleHalfPage half{};
        // A page the module does not have is left out: its values are not shown.
        if (read_half(x, family, ifname, page, kModuleHalfPage, half) == 0)
            out.pages.upper[page] = half;
    }
    out.outcome = ModuleRead::Outcome::Read;
    return out;
}

}  // namespace fabscope::host
