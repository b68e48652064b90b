#pragma once
// MadTransport over libibumad: one umad port, agents for directed-route and
// LID-routed SMPs, the performance management class and the SA.

#include <string>

#include "discover/local_port.h"
#include "discover/mad_transport.h"

namespace fabscope {

class UmadTransport final : public MadTransport {
  public:
    /// Opens the local port and registers the agents. Errors are kExitCannotRun.
    static Result<std::unique_ptr<UmadTransport>> open(const LocalPort& port);
    ~UmadTransport() override;
    UmadTransport(const UmadTransport&) = delete;
    UmadTransport& operator=(const UmadTransport&) = delete;

    Status send(const mad::Address& to, const MadBytes& mad,
                std::chrono::milliseconds timeout) override;
    std::optional<ReceivedMad> receive(std::chrono::milliseconds timeout) override;

  private:
    UmadTransport() = default;
    int fd_ = -1;
    int agent_smp_lid_ = -1;
    int agent_smp_dr_ = -1;
    int agent_perf_ = -1;
    int agent_sa_ = -1;
    std::string where_;
};

}  // namespace fabscope
