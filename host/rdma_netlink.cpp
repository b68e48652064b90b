#include "host/rdma_netlink.h"

#include <fmt/format.h>
#include <linux/netlink.h>
#include <poll.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/exit_status.h"

namespace fabscope::host {
namespace {

constexpr int kTimeoutMs = 1000;
constexpr size_t kBufferBytes = 64 * 1024;
constexpr size_t kMaxBuffers = 256;  // a dump longer than this is not a host's

class Socket {
  public:
    Socket() : fd_(::socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA)) {}
    ~Socket() {
        if (fd_ >= 0) ::close(fd_);
    }
    Socket(const Socket&) = delete;
    Socket& operator=(const Socket&) = delete;
    int fd() const { return fd_; }

  private:
    int fd_;
};

Error failed(const std::string& what, int e) {
    return make_error(fmt::format("RDMA netlink: {}: {}", what, std::strerror(e)), kExitCannotRun);
}

Status dump(const Socket& s, uint16_t command, uint32_t seq, std::optional<uint32_t> dev,
            NlDump& out, std::vector<std::vector<uint8_t>>* raw) {
    std::vector<uint8_t> req = nldev_dump_request(command, seq, dev);
    sockaddr_nl kernel{};
    kernel.nl_family = AF_NETLINK;
    if (::sendto(s.fd(), req.data(), req.size(), 0,
                 reinterpret_cast<sockaddr*>(&kernel),  // NOLINT
                 sizeof kernel) < 0)
        return failed("send", errno);
    NlDump part;
    std::vector<uint8_t> buf(kBufferBytes);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kTimeoutMs);
    for (size_t n = 0; !part.done; ++n) {
        if (n >= kMaxBuffers) return make_error("RDMA netlink: dump never ended", kExitCannotRun);
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                        deadline - std::chrono::steady_clock::now())
                        .count();
        if (left <= 0)
            return make_error(
                fmt::format("RDMA netlink: no complete answer from the kernel in {} ms",
                            kTimeoutMs),
                kExitCannotRun);
        pollfd p{s.fd(), POLLIN, 0};
        int ready = ::poll(&p, 1, static_cast<int>(left));
        if (ready < 0 && errno != EINTR) return failed("poll", errno);
        if (ready <= 0) continue;
        ssize_t got = ::recv(s.fd(), buf.data(), buf.size(), MSG_DONTWAIT);
        if (got < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            return failed("receive", errno);
        }
        std::span<const uint8_t> bytes(buf.data(), static_cast<size_t>(got));
        if (raw) raw->emplace_back(bytes.begin(), bytes.end());
        parse_nldev_reply(bytes, seq, part);
        if (!part.problems.empty() && !part.done) break;  // a broken reply: keep what it had
    }
    if (part.error != 0)
        return failed(command == RDMA_NLDEV_CMD_GET ? "devices" : "ports", part.error);
    out.devices.insert(out.devices.end(), part.devices.begin(), part.devices.end());
    out.ports.insert(out.ports.end(), part.ports.begin(), part.ports.end());
    out.problems.insert(out.problems.end(), part.problems.begin(), part.problems.end());
    return Ok{};
}

}  // namespace

Result<NlDump> read_rdma_netlink(std::vector<std::vector<uint8_t>>* raw) {
    Socket s;
    if (s.fd() < 0) return failed("cannot open a NETLINK_RDMA socket", errno);
    NlDump out;
    uint32_t seq = 1;
    if (auto st = dump(s, RDMA_NLDEV_CMD_GET, seq++, std::nullopt, out, raw); !st)
        return st.error();
    // The kernel dumps ports of one device at a time (DEV_INDEX is required).
    std::vector<uint32_t> indices;
    for (const auto& d : out.devices) indices.push_back(d.index);
    for (uint32_t i : indices) {
        if (auto st = dump(s, RDMA_NLDEV_CMD_PORT_GET, seq++, i, out, raw); !st) return st.error();
    }
    out.done = true;
    return out;
}

}  // namespace fabscope::host
