#include "discover/sa_path_record.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope::sa {
namespace {

uint16_t get16(std::span<const uint8_t> m, size_t off) {
    return static_cast<uint16_t>(m[off] << 8 | m[off + 1]);
}
uint32_t get32(std::span<const uint8_t> m, size_t off) {
    return static_cast<uint32_t>(m[off]) << 24 | static_cast<uint32_t>(m[off + 1]) << 16 |
           static_cast<uint32_t>(m[off + 2]) << 8 | m[off + 3];
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace

std::optional<Gid> parse_gid(std::string_view s) {
    // Exactly eight groups of four hex digits, colon separated (39 characters).
    if (s.size() != 39) return std::nullopt;
    Gid g{};
    size_t byte = 0;
    for (size_t i = 0; i < s.size();) {
        if (i % 5 == 4) {
            if (s[i] != ':') return std::nullopt;
            ++i;
            continue;
        }
        int hi = hex_digit(s[i]);
        int lo = hex_digit(s[i + 1]);
        if (hi < 0 || lo < 0) return std::nullopt;
        g[byte++] = static_cast<uint8_t>(hi << 4 | lo);
        i += 2;
    }
    return g;
}

std::string gid_text(const Gid& g) {
    std::string out;
    for (size_t i = 0; i < g.size(); i += 2) {
        if (i) out += ':';
        out += fmt::format("{:02x}{:02x}", g[i], g[i + 1]);
    }
    return out;
}

mad::Request path_request(uint16_t sm_lid, const Gid& sgid, const Gid& dgid) {
    mad::Request r;
    r.mgmt_class = mad::kClassSubnAdm;
    r.attr_id = mad::kAttrPathRecord;
    r.to.lid = sm_lid;
    r.sa_template.assign(kPathRecordSize, 0);
    std::copy(dgid.begin(), dgid.end(), r.sa_template.begin() + 8);
    std::copy(sgid.begin(), sgid.end(), r.sa_template.begin() + 24);
    // One path: a SubnAdmGet answers one record or an error.
    r.sa_template[49] = 1;
    r.component_mask = kPrDgid | kPrSgid | kPrNumbPath;
    return r;
}

mad::Request path_request_by_lids(uint16_t sm_lid, uint16_t slid, uint16_t dlid) {
    mad::Request r;
    r.mgmt_class = mad::kClassSubnAdm;
    r.attr_id = mad::kAttrPathRecord;
    r.to.lid = sm_lid;
    r.sa_template.assign(kPathRecordSize, 0);
    r.sa_template[40] = static_cast<uint8_t>(dlid >> 8U);  // DLID, bytes 40-41
    r.sa_template[41] = static_cast<uint8_t>(dlid & 0xFFU);
    r.sa_template[42] = static_cast<uint8_t>(slid >> 8U);  // SLID, bytes 42-43
    r.sa_template[43] = static_cast<uint8_t>(slid & 0xFFU);
    r.sa_template[49] = 1;  // NumbPath: one
    r.component_mask = kPrDlid | kPrSlid | kPrNumbPath;
    return r;
}

PathRecord decode_path_record(std::span<const uint8_t, kPathRecordSize> b) {
    PathRecord p;
    std::copy_n(b.begin() + 8, 16, p.dgid.begin());
    std::copy_n(b.begin() + 24, 16, p.sgid.begin());
    p.dlid = get16(b, 40);
    p.slid = get16(b, 42);
    uint32_t w = get32(b, 44);  // RawTraffic:1 reserved:3 FlowLabel:20 HopLimit:8
    p.flow_label = (w >> 8) & 0xFFFFF;
    p.hop_limit = static_cast<uint8_t>(w);
    p.tclass = b[48];
    p.reversible = (b[49] & 0x80) != 0;
    p.numb_path = b[49] & 0x7F;
    p.pkey = get16(b, 50);
    p.sl = b[53] & 0x0F;
    p.mtu = b[54] & 0x3F;
    p.rate = b[55] & 0x3F;
    p.packet_life = b[56] & 0x3F;
    return p;
}

std::string sa_status_name(uint16_t status) {
    if ((status & 0x00FF) != 0) return mad::status_name(status & 0x00FF);
    switch (status >> 8) {
        case 1: return "SA has no resources (ERR_NO_RESOURCES)";
        case 2: return "SA says the request is invalid (ERR_REQ_INVALID)";
        case 3: return "SA has no such record (ERR_NO_RECORDS)";
        case 4: return "SA has more than one record (ERR_TOO_MANY_RECORDS)";
        case 5: return "SA does not know the GID (ERR_REQ_INVALID_GID)";
        case 6: return "SA needs more components (ERR_REQ_INSUFFICIENT_COMPONENTS)";
        case 7: return "SA denied the request (ERR_REQ_DENIED)";
        default: return fmt::format("SA status {:#06x}", status);
    }
}

Result<PathRecord> decode_path_reply(std::span<const uint8_t, kMadSize> m) {
    mad::Header h = mad::decode_header(m);
    if (h.base_version != 1 || h.mgmt_class != mad::kClassSubnAdm || h.class_version != 2)
        return make_error(
            fmt::format("not an SA reply (base version {}, class {:#04x}, class "
                        "version {})",
                        h.base_version, h.mgmt_class, h.class_version));
    if ((h.method & 0x80) == 0)
        return make_error(fmt::format("not a response (method {:#04x})", h.method));
    if (h.attr_id != mad::kAttrPathRecord)
        return make_error(fmt::format("answered attribute {:#06x}, not PathRecord", h.attr_id));
    if (h.status != 0) return make_error(sa_status_name(h.status));
    // For a Get the offset may be 0 (one record, unsized); any other value
    // must cover a whole PathRecord within the SA data.
    size_t words = get16(m, mad::kSaAttrOffsetOffset);
    if (words != 0 && (words * 8 < kPathRecordSize || words * 8 > mad::kSaDataSize))
        return make_error(
            fmt::format("AttributeOffset {} ({} bytes) does not hold one "
                        "PathRecord of {} bytes in {} bytes of data",
                        words, words * 8, kPathRecordSize, mad::kSaDataSize));
    auto bytes = m.subspan<mad::kSaDataOffset, kPathRecordSize>();
    if (std::all_of(bytes.begin(), bytes.end(), [](uint8_t b) { return b == 0; }))
        return make_error("the SA answered an empty PathRecord");
    return decode_path_record(bytes);
}

int mtu_bytes(uint8_t code) {
    return code >= 1 && code <= 5 ? 128 << code : 0;
}

}  // namespace fabscope::sa
