#include "host/lldp_neighbour.h"

#include <fmt/format.h>

#include "util/printable.h"

namespace fabscope::host {
namespace {

constexpr uint32_t kOuiIeee8021 = 0x0080c2;
constexpr uint32_t kOuiCeeDcbx = 0x001b21;  // the pre-standard (CEE) DCBX TLV
constexpr int kMaxPortNumber = 254;

/// Names of the IEEE 802.1Qaz (DCBX) TLVs and of the congestion notification TLV.
std::optional<std::string> dcbx_name(const LldpOrgTlv& t) {
    if (t.oui == kOuiCeeDcbx) return "CEE DCBX";
    if (t.oui != kOuiIeee8021) return std::nullopt;
    switch (t.subtype) {
        case 0x08: return "congestion notification";
        case 0x09: return "ETS configuration";
        case 0x0a: return "ETS recommendation";
        case 0x0b: return "PFC";
        case 0x0c: return "application priority";
        default: return std::nullopt;
    }
}

bool names_port(std::string_view subtype) {
    return subtype == "ifname" || subtype == "local" || subtype == "ifalias";
}

}  // namespace

std::string PfcTlv::priorities() const {
    std::string out;
    for (int p = 0; p < 8; ++p) {
        if ((enabled >> p) & 1U) out += fmt::format("{}{}", out.empty() ? "" : ",", p);
    }
    return out.empty() ? "none" : out;
}

std::optional<PfcTlv> decode_pfc(std::span<const uint8_t> info) {
    if (info.size() < 2) return std::nullopt;
    PfcTlv p;
    p.willing = (info[0] & 0x80U) != 0;
    p.mbc = (info[0] & 0x40U) != 0;
    p.capability = info[0] & 0x0fU;
    p.enabled = info[1];
    return p;
}

std::optional<int> trailing_port_number(std::string_view name) {
    size_t end = name.size();
    size_t begin = end;
    while (begin > 0 && name[begin - 1] >= '0' && name[begin - 1] <= '9') --begin;
    if (begin == end || end - begin > 3) return std::nullopt;
    int n = 0;
    for (size_t i = begin; i < end; ++i) n = n * 10 + (name[i] - '0');
    if (n > kMaxPortNumber) return std::nullopt;
    return n;
}

LldpNeighbour to_neighbour(const LldpRaw& raw) {
    // Everything here came off the wire from another machine: printed later,
    // so cleaned as node descriptions are.
    LldpNeighbour n;
    n.netdev = printable(raw.interface);
    n.system_name = printable(raw.system_name);
    n.system_description = printable(raw.system_description);
    n.chassis_id = printable(raw.chassis_id);
    n.chassis_id_subtype = printable(raw.chassis_id_subtype);
    n.port_id = printable(raw.port_id);
    n.port_id_subtype = printable(raw.port_id_subtype);
    n.port_description = printable(raw.port_description);
    n.port_name = names_port(n.port_id_subtype) || n.port_description.empty() ? n.port_id
                                                                              : n.port_description;
    n.port_number = trailing_port_number(n.port_name);
    for (const LldpOrgTlv& t : raw.org_tlvs) {
        auto what = dcbx_name(t);
        if (!what) continue;
        n.dcbx.push_back(*what);
        if (t.oui == kOuiIeee8021 && t.subtype == 0x0b) n.pfc = decode_pfc(t.info);
    }
    return n;
}

std::vector<LldpNeighbour> to_neighbours(const std::vector<LldpRaw>& raw) {
    std::vector<LldpNeighbour> out;
    out.reserve(raw.size());
    for (const LldpRaw& r : raw) out.push_back(to_neighbour(r));
    return out;
}

}  // namespace fabscope::host
