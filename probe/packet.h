#pragma once
// A probe and its answer on the wire (pure): 28 bytes in a UD datagram.
// `id` is the sender's number at the receiver (given in the hello's answer),
// so the receiver answers only the agents that said hello; `token` and `seq`
// come back unchanged, so the prober knows which probe an answer is for.

#include <array>
#include <cstdint>
#include <optional>

namespace fabscope::probe {

enum class PacketKind : uint8_t { Probe = 1, Answer = 2 };

struct ProbePacket {
    PacketKind kind = PacketKind::Probe;
    uint32_t id = 0;
    uint32_t token = 0;
    uint32_t seq = 0;
    uint64_t sent_ns = 0;
};

inline constexpr size_t kPacketSize = 28;

std::array<uint8_t, kPacketSize> encode(const ProbePacket& p);
/// Nothing for anything that is not a probe or an answer of this version.
std::optional<ProbePacket> decode(const uint8_t* bytes, size_t size);

}  // namespace fabscope::probe
