#include "probe/packet.h"

#include <cstring>

namespace fabscope::probe {
namespace {

constexpr uint32_t kMagic = 0x31505346;  // "FSP1"

template <typename T>
void put(std::array<uint8_t, kPacketSize>& b, size_t at, T v) {
    std::memcpy(b.data() + at, &v, sizeof v);
}

template <typename T>
T get(const uint8_t* b, size_t at) {
    T v{};
    std::memcpy(&v, b + at, sizeof v);
    return v;
}

}  // namespace

std::array<uint8_t, kPacketSize> encode(const ProbePacket& p) {
    std::array<uint8_t, kPacketSize> b{};
    put(b, 0, kMagic);
    b[4] = static_cast<uint8_t>(p.kind);
    put(b, 8, p.id);
    put(b, 12, p.token);
    put(b, 16, p.seq);
    put(b, 20, p.sent_ns);
    return b;
}

std::optional<ProbePacket> decode(const uint8_t* bytes, size_t size) {
    if (size < kPacketSize || get<uint32_t>(bytes, 0) != kMagic) return std::nullopt;
    if (bytes[4] != static_cast<uint8_t>(PacketKind::Probe) &&
        bytes[4] != static_cast<uint8_t>(PacketKind::Answer))
        return std::nullopt;
    ProbePacket p;
    p.kind = static_cast<PacketKind>(bytes[4]);
    p.id = get<uint32_t>(bytes, 8);
    p.token = get<uint32_t>(bytes, 12);
    p.seq = get<uint32_t>(bytes, 16);
    p.sent_ns = get<uint64_t>(bytes, 20);
    return p;
}

}  // namespace fabscope::probe
