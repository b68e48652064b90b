#pragma once
// One unreliable-datagram QP for small probes (fabscope probe): a lost probe
// stays lost (no retransmission turns it into latency, as on RC), and one QP
// reaches every peer through an address handle each, so an agent's state
// grows with its pinglist, not with connections. The seam between the probe
// engine (probe/engine.h) and libibverbs: UdVerbsPort is the real one; the
// engine's tests hand it a fake network.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "rdma/endpoint_info.h"
#include "util/result.h"

namespace fabscope::perf {

/// What a peer needs to send to this QP.
struct UdAddress {
    uint32_t qpn = 0;
    uint16_t lid = 0;
    Gid gid{};
    bool roce = true;
};

nlohmann::json ud_address_to_json(const UdAddress& a);
/// Throws nlohmann errors on a bad document.
UdAddress ud_address_from_json(const nlohmann::json& j);

/// The largest probe payload a port carries.
inline constexpr size_t kMaxUdPayload = 64;

/// One datagram as it arrived.
struct UdDatagram {
    uint32_t src_qpn = 0;
    std::array<uint8_t, kMaxUdPayload> bytes{};
    size_t size = 0;
};

/// What went wrong under the port, for the agent's metrics and log.
struct UdPortCounts {
    uint64_t send_errors = 0;  ///< sends completed in error (their probes are lost)
    uint64_t recoveries = 0;   ///< the QP brought back to RTS after an error
    std::string last_error;    ///< the last error's completion status
};

class UdPort {
  public:
    virtual ~UdPort() = default;
    virtual UdAddress address() const = 0;
    /// An address handle towards `to`; the handle's number for send().
    virtual Result<int> add_destination(const UdAddress& to) = 0;
    /// Drops a handle (the peer restarted with a new QP).
    virtual void remove_destination(int handle) = 0;
    /// Posts one datagram; false when the send queue is full (not sent).
    virtual bool send(int handle, const uint8_t* bytes, size_t size) = 0;
    /// What arrived, waiting up to `wait` for the first (asleep, not spinning).
    /// An error: the device failed (the agent cannot go on).
    virtual Result<std::vector<UdDatagram>> receive(std::chrono::milliseconds wait) = 0;
    virtual UdPortCounts counts() const { return {}; }
};

struct UdPortConfig {
    std::string device;  ///< "" = the first
    int port = 0;        ///< 0 = the first active
    std::optional<int> gid_index;
    uint32_t qkey = 0x46534250;  ///< "FSBP": a datagram with another Q_Key is dropped by the HCA
    uint32_t send_depth = 256;
    uint32_t recv_depth = 512;
};

/// Opens the device and brings a UD QP to RTS. Errors carry kExitCannotRun
/// and say what to try.
Result<std::unique_ptr<UdPort>> open_ud_port(const UdPortConfig& cfg);

}  // namespace fabscope::perf
