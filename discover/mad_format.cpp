#include "discover/mad_format.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope::mad {
namespace {

void put16(MadBytes& m, size_t off, uint16_t v) {
    m[off] = static_cast<uint8_t>(v >> 8);
    m[off + 1] = static_cast<uint8_t>(v);
}
void put32(MadBytes& m, size_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i)
        m[off + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (24 - 8 * i));
}
void put64(MadBytes& m, size_t off, uint64_t v) {
    for (int i = 0; i < 8; ++i)
        m[off + static_cast<size_t>(i)] = static_cast<uint8_t>(v >> (56 - 8 * i));
}
uint16_t get16(std::span<const uint8_t, kMadSize> m, size_t off) {
    return static_cast<uint16_t>(m[off] << 8 | m[off + 1]);
}
uint32_t get32(std::span<const uint8_t, kMadSize> m, size_t off) {
    return static_cast<uint32_t>(m[off]) << 24 | static_cast<uint32_t>(m[off + 1]) << 16 |
           static_cast<uint32_t>(m[off + 2]) << 8 | m[off + 3];
}
uint64_t get64(std::span<const uint8_t, kMadSize> m, size_t off) {
    return static_cast<uint64_t>(get32(m, off)) << 32 | get32(m, off + 4);
}

}  // namespace

std::string Address::str() const {
    if (!directed()) return fmt::format("LID {}", lid);
    std::string s = "DR 0";
    for (uint8_t p : dr_path) s += fmt::format(",{}", p);
    return s;
}

MadBytes encode_get(const Request& r, uint64_t tid) {
    MadBytes m{};
    m[0] = 1;  // BaseVersion
    m[1] = r.mgmt_class;
    m[2] = r.mgmt_class == kClassSubnAdm ? 2 : 1;  // ClassVersion (SMP and PMA: 1, SA: 2)
    m[3] = kMethodGet;
    put64(m, 8, tid);
    put16(m, 16, r.attr_id);
    put32(m, 20, r.attr_mod);
    if (r.mgmt_class == kClassSmpDirected) {
        // Status and D bit 0 (outbound), HopPointer 0, HopCount = hops.
        m[7] = static_cast<uint8_t>(r.to.dr_path.size());
        put16(m, 32, 0xFFFF);  // DrSLID: the path starts at the requester
        put16(m, 34, 0xFFFF);  // DrDLID: and ends at the destination
        for (size_t i = 0; i < r.to.dr_path.size() && i < kMaxDrHops; ++i)
            m[128 + 1 + i] = r.to.dr_path[i];
    } else if (r.mgmt_class == kClassPerf) {
        // PortCounters and PortCountersExtended: PortSelect is byte 1 of the data.
        m[kPmaDataOffset + 1] = r.port_select;
    } else if (r.mgmt_class == kClassSubnAdm) {
        put64(m, kSaComponentMaskOffset, r.component_mask);
        std::copy_n(r.sa_template.begin(), std::min(r.sa_template.size(), kSaDataSize),
                    m.begin() + static_cast<long>(kSaDataOffset));
    }
    return m;
}

Header decode_header(std::span<const uint8_t, kMadSize> m) {
    Header h;
    h.base_version = m[0];
    h.mgmt_class = m[1];
    h.class_version = m[2];
    h.method = m[3];
    h.status = get16(m, 4);
    if (h.mgmt_class == kClassSmpDirected) h.status &= 0x7FFF;  // bit 15 is the D (direction) bit
    h.tid = get64(m, 8);
    h.attr_id = get16(m, 16);
    h.attr_mod = get32(m, 20);
    return h;
}

std::span<const uint8_t, 64> smp_data(std::span<const uint8_t, kMadSize> mad) {
    return mad.subspan<kSmpDataOffset, 64>();
}

std::span<const uint8_t, kPmaDataSize> pma_data(std::span<const uint8_t, kMadSize> mad) {
    return mad.subspan<kPmaDataOffset, kPmaDataSize>();
}

std::string status_name(uint16_t status) {
    switch (status) {
        case 0x0000: return "success";
        case 0x0001: return "busy";
        case 0x0002: return "redirect required";
        case 0x0004: return "bad version";
        case 0x0008: return "method not supported";
        case 0x000C: return "method/attribute combination not supported";
        case 0x001C: return "invalid attribute or modifier";
        default: return fmt::format("status {:#06x}", status);
    }
}

MadBytes make_response(std::span<const uint8_t, kMadSize> request, std::span<const uint8_t> data,
                       uint16_t status) {
    MadBytes m{};
    std::copy(request.begin(), request.end(), m.begin());
    m[3] = kMethodGetResp;
    uint16_t st = status;
    if (m[1] == kClassSmpDirected) {
        st |= 0x8000;  // D bit: inbound
        m[6] = m[7];   // HopPointer at the end of the path
    }
    put16(m, 4, st);
    size_t off = m[1] == kClassPerf ? kPmaDataOffset : kSmpDataOffset;
    size_t max = m[1] == kClassPerf ? kPmaDataSize : 64;
    if (m[1] == kClassSubnAdm) {
        off = kSaDataOffset;
        max = kSaDataSize;
        put64(m, kSaComponentMaskOffset, 0);
        put16(m, kSaAttrOffsetOffset, static_cast<uint16_t>((data.size() + 7) / 8));
    }
    std::fill(m.begin() + static_cast<long>(off), m.begin() + static_cast<long>(off + max), 0);
    std::copy_n(data.begin(), std::min(data.size(), max), m.begin() + static_cast<long>(off));
    return m;
}

}  // namespace fabscope::mad
