#pragma once
// The socket ProbeTransport: one unprivileged UDP socket per source port,
// bound to it (and to the source address when given), sending to the
// destination's port 4791 (unconnected: see send()). ICMP answers come back on the socket's error
// queue (IP_RECVERR, read with MSG_ERRQUEUE): sock_extended_err gives the
// ICMP type and code, SO_EE_OFFENDER the router, and the quoted payload the
// probe's tag. No raw socket, no privilege.

#include <array>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>

#include "trace/roce_trace.h"
#include "util/result.h"

namespace fabscope::perf {

class UdpProbeTransport final : public ProbeTransport {
  public:
    /// `source` may be "" (the kernel picks the address as for any flow).
    /// Errors (code 2) for addresses that are not IPv4.
    static Result<std::unique_ptr<UdpProbeTransport>> open(const std::string& source,
                                                           const std::string& destination);
    ~UdpProbeTransport() override;
    UdpProbeTransport(const UdpProbeTransport&) = delete;
    UdpProbeTransport& operator=(const UdpProbeTransport&) = delete;

    Status send(uint16_t sport, int ttl, uint32_t tag) override;
    std::optional<ProbeAnswer> receive(Clock::time_point until) override;

  private:
    UdpProbeTransport(uint32_t source, uint32_t destination)
        : source_(source), destination_(destination) {}
    Result<int> socket_for(uint16_t sport);
    void drain(int fd, uint16_t sport);

    uint32_t source_;       ///< network order; 0: any
    uint32_t destination_;  ///< network order
    std::map<uint16_t, int> sockets_;
    std::deque<ProbeAnswer> ready_;
};

/// HOST as an IPv4 address (a name is looked up), or an error (code 2).
Result<std::string> resolve_ipv4(const std::string& host);

/// The IPv4 address in an IPv4-mapped GID (::ffff:a.b.c.d), or "".
std::string gid_ipv4(const std::array<uint8_t, 16>& gid);

/// True when `destination` is on a subnet of one of this host's interfaces:
/// no router between, nothing to trace.
bool on_link(const std::string& destination);

}  // namespace fabscope::perf
