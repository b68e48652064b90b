#include "discover/umad_transport.h"

#include <fmt/format.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "util/exit_status.h"

namespace fabscope {
namespace {

constexpr uint32_t kGsiQkey = 0x80010000;
// Only responses are expected: register no methods for unsolicited MADs.
constexpr int kRmppNone = 0;

}  // namespace

Result<std::unique_ptr<UmadTransport>> UmadTransport::open(const LocalPort& port) {
    std::unique_ptr<UmadTransport> t(new UmadTransport);
    t->where_ = fmt::format("{} port {}", port.ca, port.port);
    // Idempotent; callers that did not resolve the port first need it.
    if (umad_init() < 0)
        return make_error(fmt::format("cannot initialise libibumad for {}", t->where_),
                          kExitCannotRun);
    t->fd_ = umad_open_port(port.ca.c_str(), port.port);
    if (t->fd_ < 0) {
        return make_error(
            fmt::format("cannot open the umad device of {}: {}", t->where_, std::strerror(-t->fd_)),
            kExitCannotRun);
    }
    auto reg = [&](int mgmt_class, int& agent) -> Status {
        int version = mgmt_class == mad::kClassSubnAdm ? 2 : 1;
        agent = umad_register(t->fd_, mgmt_class, version, kRmppNone, nullptr);
        if (agent < 0) {
            return make_error(fmt::format("cannot register a MAD agent for class {:#04x} on {}",
                                          mgmt_class, t->where_),
                              kExitCannotRun);
        }
        return Ok{};
    };
    if (auto s = reg(mad::kClassSmpDirected, t->agent_smp_dr_); !s) return s.error();
    if (auto s = reg(mad::kClassSmpLid, t->agent_smp_lid_); !s) return s.error();
    if (auto s = reg(mad::kClassPerf, t->agent_perf_); !s) return s.error();
    // SubnAdmGet only (one record, no RMPP): the SA's answer fits in one MAD.
    if (auto s = reg(mad::kClassSubnAdm, t->agent_sa_); !s) return s.error();
    return t;
}

UmadTransport::~UmadTransport() {
    if (fd_ >= 0) umad_close_port(fd_);
}

Status UmadTransport::send(const mad::Address& to, const MadBytes& bytes,
                           std::chrono::milliseconds timeout) {
    std::vector<uint8_t> buf(umad_size() + kMadSize);
    void* umad = buf.data();
    std::memcpy(umad_get_mad(umad), bytes.data(), kMadSize);
    int agent = agent_smp_dr_;
    uint8_t mgmt_class = bytes[1];
    if (mgmt_class == mad::kClassSmpDirected) {
        umad_set_addr(umad, 0xFFFF, 0, 0, 0);  // permissive LID; the route is in the MAD
    } else if (mgmt_class == mad::kClassSmpLid) {
        agent = agent_smp_lid_;
        umad_set_addr(umad, to.lid, 0, 0, 0);
    } else {
        agent = mgmt_class == mad::kClassSubnAdm ? agent_sa_ : agent_perf_;
        umad_set_addr(umad, to.lid, 1, 0, static_cast<int>(kGsiQkey));
    }
    // The kernel gets the attempt's timeout (it matches responses only to
    // requests that wait for one) but no retries: retries are the engine's,
    // and the engine keeps its own deadline too (the simulator has none).
    if (umad_send(fd_, agent, umad, static_cast<int>(kMadSize), static_cast<int>(timeout.count()),
                  0) < 0) {
        return make_error(fmt::format("sending a MAD to {} on {} failed: {}", to.str(), where_,
                                      std::strerror(errno)),
                          kExitCannotRun);
    }
    return Ok{};
}

std::optional<ReceivedMad> UmadTransport::receive(std::chrono::milliseconds timeout) {
    std::vector<uint8_t> buf(umad_size() + kMadSize);
    int len = static_cast<int>(kMadSize);
    int rc = umad_recv(fd_, buf.data(), &len, static_cast<int>(std::max<long>(0, timeout.count())));
    if (rc < 0) return std::nullopt;  // timed out (or interrupted): the engine decides
    ReceivedMad r;
    r.transport_status = umad_status(buf.data());
    std::memcpy(r.mad.data(), umad_get_mad(buf.data()),
                std::min<size_t>(kMadSize, static_cast<size_t>(len)));
    return r;
}

}  // namespace fabscope
