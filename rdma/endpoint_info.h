#pragma once
// What one side of a test tells the other through the rendezvous, and what
// it asks of its own device for one test. Pure data: the session logic uses
// it without libibverbs.

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fabscope::perf {

using Gid = std::array<uint8_t, 16>;

struct EndpointInfo {
    uint32_t qpn = 0;
    uint32_t psn = 0;
    uint16_t lid = 0;
    Gid gid{};
    uint64_t addr = 0;  ///< the buffer the peer writes into and reads from
    uint32_t rkey = 0;
    uint32_t size = 0;  ///< of that buffer
    int mtu = 1024;     ///< active MTU of the port, bytes
    bool roce = true;
    /// RoCE: the GRH flow label this side's QP sends with (0: none, the
    /// device picks the UDP source port). Local only: not exchanged.
    uint32_t flow_label = 0;
};

nlohmann::json info_to_json(const EndpointInfo& e);
/// Throws nlohmann errors on a bad document.
EndpointInfo info_from_json(const nlohmann::json& j);

struct EndpointConfig {
    uint32_t buffer_size = 65536;  ///< the remotely accessible half; as much again for sending
    uint32_t send_depth = 128;
    uint32_t recv_depth = 0;  ///< receives posted for SEND tests
    uint32_t max_inline = 0;  ///< wanted; the device may allow less
    std::optional<int> gid_index;
    uint8_t traffic_class = 0;  ///< RoCE: the low two bits are ECN (2 = ECT(0))
    int mtu_cap = 0;            ///< path MTU at most this (bytes); 0: the port's active MTU
    /// RoCE: the GRH flow label (20 bits), from which the kernel derives the
    /// UDP source port and so the ECMP path (model/paths.h); 0: none.
    uint32_t flow_label = 0;
};

/// "fe80:0000:...": eight groups of four hex digits.
std::string format_gid(const Gid& g);
/// The GID at `key` of `j`, as format_gid writes it; throws json_io's error naming the value.
Gid gid_from_json(const nlohmann::json& j, const char* key);

}  // namespace fabscope::perf
