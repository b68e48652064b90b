#pragma once
// The seam between the MAD engine and the wire. UmadTransport is the real
// one (libibumad, the kernel's or the simulator's); tests use fakes that
// answer from an in-memory fabric. A transport never retries and never
// waits longer than it is told: timeouts and retries are the engine's.

#include <chrono>
#include <optional>

#include "discover/mad_format.h"
#include "util/clock.h"
#include "util/result.h"

namespace fabscope {

struct ReceivedMad {
    MadBytes mad{};
    /// 0, or the transport's own failure for a MAD we sent (the kernel's
    /// ETIMEDOUT; the simulator answers a dropped MAD with 110 at once).
    int transport_status = 0;
};

class MadTransport {
  public:
    virtual ~MadTransport() = default;
    /// Queues a MAD for sending; must not block for long. `timeout` is the
    /// engine's deadline for this attempt; the kernel needs one to match the
    /// response to the request (it then reports ETIMEDOUT, never retries).
    virtual Status send(const mad::Address& to, const MadBytes& mad,
                        std::chrono::milliseconds timeout) = 0;
    /// Waits at most `timeout` for one incoming MAD.
    virtual std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) = 0;
};

}  // namespace fabscope
