#include "host/rdma_nl_parse.h"

#include <fmt/format.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>

#include <cstring>

namespace fabscope::host {
namespace {

using Bytes = std::span<const uint8_t>;

/// Enough for any host: more messages in a dump than this is a broken reply.
constexpr size_t kMaxEntries = 4096;

struct Attr {
    uint16_t type;
    Bytes data;
};

/// The attributes of one message. Headers are copied out (no alignment is
/// promised); an attribute that runs past the message ends the walk.
std::vector<Attr> attrs(Bytes data, std::vector<std::string>& problems) {
    std::vector<Attr> out;
    size_t off = 0;
    while (off + sizeof(nlattr) <= data.size()) {
        nlattr a{};
        std::memcpy(&a, data.data() + off, sizeof a);
        if (a.nla_len < NLA_HDRLEN || a.nla_len > data.size() - off) {
            problems.push_back(fmt::format("attribute {} at byte {} has length {}, {} bytes left",
                                           a.nla_type & NLA_TYPE_MASK, off, a.nla_len,
                                           data.size() - off));
            break;
        }
        out.push_back({static_cast<uint16_t>(a.nla_type & NLA_TYPE_MASK),
                       data.subspan(off + NLA_HDRLEN, a.nla_len - NLA_HDRLEN)});
        off += NLA_ALIGN(a.nla_len);
    }
    return out;
}

template <class T>
std::optional<T> num(const Attr& a) {
    if (a.data.size() != sizeof(T)) return std::nullopt;
    T v{};
    std::memcpy(&v, a.data.data(), sizeof(T));
    return v;
}

/// A NUL-terminated string attribute; bytes after the first NUL are ignored,
/// and one without a NUL is taken whole (it is bounded by its length).
std::string str(const Attr& a) {
    size_t n = 0;
    while (n < a.data.size() && a.data[n] != 0) ++n;
    return {reinterpret_cast<const char*>(a.data.data()), n};  // NOLINT
}

constexpr size_t kU32AttrLen = NLA_ALIGN(NLA_HDRLEN + sizeof(uint32_t));

/// A u32 attribute at `off`, where the caller sized `buf` for it (sized once:
/// GCC 12 at -O3 misreads a vector grown attribute by attribute).
void put_u32(std::vector<uint8_t>& buf, size_t off, uint16_t type, uint32_t v) {
    nlattr a{};
    a.nla_len = static_cast<uint16_t>(NLA_HDRLEN + sizeof v);
    a.nla_type = type;
    std::memcpy(buf.data() + off, &a, sizeof a);
    std::memcpy(buf.data() + off + NLA_HDRLEN, &v, sizeof v);
}

NlDevice parse_device(const std::vector<Attr>& as) {
    NlDevice d;
    for (const auto& a : as) {
        switch (a.type) {
            case RDMA_NLDEV_ATTR_DEV_INDEX: d.index = num<uint32_t>(a).value_or(0); break;
            case RDMA_NLDEV_ATTR_DEV_NAME: d.name = str(a); break;
            case RDMA_NLDEV_ATTR_NODE_GUID: d.node_guid = num<uint64_t>(a); break;
            case RDMA_NLDEV_ATTR_SYS_IMAGE_GUID: d.sys_image_guid = num<uint64_t>(a); break;
            case RDMA_NLDEV_ATTR_FW_VERSION: d.fw_ver = str(a); break;
            case RDMA_NLDEV_ATTR_DEV_NODE_TYPE: d.node_type = num<uint8_t>(a); break;
            case RDMA_NLDEV_ATTR_PORT_INDEX: d.ports = num<uint32_t>(a); break;
            case RDMA_NLDEV_ATTR_DEV_PROTOCOL: d.protocol = str(a); break;
            default: break;
        }
    }
    return d;
}

NlPort parse_port(const std::vector<Attr>& as) {
    NlPort p;
    for (const auto& a : as) {
        switch (a.type) {
            case RDMA_NLDEV_ATTR_DEV_INDEX: p.dev_index = num<uint32_t>(a).value_or(0); break;
            case RDMA_NLDEV_ATTR_DEV_NAME: p.dev_name = str(a); break;
            case RDMA_NLDEV_ATTR_PORT_INDEX: p.port = num<uint32_t>(a).value_or(0); break;
            case RDMA_NLDEV_ATTR_PORT_STATE: p.state = num<uint8_t>(a); break;
            case RDMA_NLDEV_ATTR_PORT_PHYS_STATE: p.phys_state = num<uint8_t>(a); break;
            case RDMA_NLDEV_ATTR_LID: p.lid = num<uint32_t>(a); break;
            case RDMA_NLDEV_ATTR_SM_LID: p.sm_lid = num<uint32_t>(a); break;
            case RDMA_NLDEV_ATTR_LMC: p.lmc = num<uint8_t>(a); break;
            case RDMA_NLDEV_ATTR_SUBNET_PREFIX: p.subnet_prefix = num<uint64_t>(a); break;
            case RDMA_NLDEV_ATTR_NDEV_INDEX: p.netdev_index = num<uint32_t>(a); break;
            case RDMA_NLDEV_ATTR_NDEV_NAME: p.netdev = str(a); break;
            default: break;
        }
    }
    return p;
}

}  // namespace

uint16_t nldev_type(uint16_t command) {
    return static_cast<uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command));
}

std::vector<uint8_t> nldev_dump_request(uint16_t command, uint32_t seq,
                                        std::optional<uint32_t> dev_index) {
    std::vector<uint8_t> buf(NLMSG_HDRLEN + (dev_index ? kU32AttrLen : 0), 0);
    if (dev_index) put_u32(buf, NLMSG_HDRLEN, RDMA_NLDEV_ATTR_DEV_INDEX, *dev_index);
    nlmsghdr h{};
    h.nlmsg_len = static_cast<uint32_t>(buf.size());
    h.nlmsg_type = nldev_type(command);
    h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    h.nlmsg_seq = seq;
    std::memcpy(buf.data(), &h, sizeof h);
    return buf;
}

void parse_nldev_reply(Bytes bytes, uint32_t seq, NlDump& dump) {
    size_t off = 0;
    while (off + sizeof(nlmsghdr) <= bytes.size()) {
        nlmsghdr h{};
        std::memcpy(&h, bytes.data() + off, sizeof h);
        if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > bytes.size() - off) {
            dump.problems.push_back(
                fmt::format("netlink message at byte {} has length {}, {} "
                            "bytes left",
                            off, h.nlmsg_len, bytes.size() - off));
            return;
        }
        Bytes body = bytes.subspan(off + NLMSG_HDRLEN, h.nlmsg_len - NLMSG_HDRLEN);
        off += NLMSG_ALIGN(h.nlmsg_len);
        if (h.nlmsg_seq != seq) continue;  // an answer to an earlier question
        if (h.nlmsg_type == NLMSG_DONE) {
            dump.done = true;
            continue;
        }
        if (h.nlmsg_type == NLMSG_ERROR) {
            nlmsgerr e{};
            if (body.size() < sizeof e) {
                dump.problems.push_back("truncated netlink error message");
                dump.error = EIO;
                dump.done = true;
                continue;
            }
            std::memcpy(&e, body.data(), sizeof e);
            if (e.error != 0) dump.error = -e.error;
            dump.done = true;
            continue;
        }
        if (dump.devices.size() + dump.ports.size() >= kMaxEntries) {
            dump.problems.push_back(
                fmt::format("more than {} entries; the rest ignored", kMaxEntries));
            return;
        }
        if (h.nlmsg_type == nldev_type(RDMA_NLDEV_CMD_GET)) {
            dump.devices.push_back(parse_device(attrs(body, dump.problems)));
        } else if (h.nlmsg_type == nldev_type(RDMA_NLDEV_CMD_PORT_GET)) {
            dump.ports.push_back(parse_port(attrs(body, dump.problems)));
        }
    }
}

std::string nl_port_state_name(uint8_t state) {
    switch (state) {
        case 0: return "NOP";
        case 1: return "DOWN";
        case 2: return "INIT";
        case 3: return "ARMED";
        case 4: return "ACTIVE";
        case 5: return "ACTIVE_DEFER";
        default: return "";
    }
}

std::string nl_phys_state_name(uint8_t phys_state) {
    switch (phys_state) {
        case 1: return "SLEEP";
        case 2: return "POLLING";
        case 3: return "DISABLED";
        case 4: return "PORT_CONFIGURATION_TRAINING";
        case 5: return "LINK_UP";
        case 6: return "LINK_ERROR_RECOVERY";
        case 7: return "PHY_TEST";
        default: return "";
    }
}

}  // namespace fabscope::host
