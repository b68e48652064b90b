#pragma once
// The out-of-band channel of a two-host test: one TCP connection carrying
// JSON messages, one per line. Every call has a deadline, so a peer that
// dies or never answers is an error, never a hang. What comes off the wire
// is bounded: a line of at most kMaxMessage bytes, nested at most
// kMaxDepth deep; anything else is an error for this channel only.

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "util/duration.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::perf {

inline constexpr uint16_t kDefaultPort = 18515;
inline constexpr size_t kMaxMessage = size_t{1} << 20;
inline constexpr int kMaxDepth = 64;

/// "host:port" or "[v6]:port" as host and port; without a port, kDefaultPort.
/// A bare IPv6 address (two colons or more, no brackets) is all host.
std::pair<std::string, std::string> split_host_port(const std::string& where);

/// Parses one message: an error (never an exception) for invalid JSON or
/// JSON nested deeper than kMaxDepth.
Result<nlohmann::json> parse_message(const std::string& line);

/// What listens at the far end of a channel, for the error when nothing does.
struct ChannelService {
    const char* what = "perf server";
    const char* command = "perf serve";
};

class Channel {
  public:
    Channel() = default;
    ~Channel();
    Channel(Channel&& o) noexcept;
    Channel& operator=(Channel&& o) noexcept;
    Channel(const Channel&) = delete;
    Channel& operator=(const Channel&) = delete;

    /// "host", "host:port", "[v6]:port".
    static Result<Channel> connect(const std::string& where, Millis timeout,
                                   const ChannelService& service = {});
    /// A listening socket on `addr` ("" = any) and `port`; returns its fd.
    static Result<int> listen(const std::string& addr, uint16_t port);
    /// Waits for one client; a timeout of 0 waits forever.
    static Result<Channel> accept(int listen_fd, Millis timeout);

    Status send(const nlohmann::json& msg, Millis timeout);
    /// The next message; an error if the peer closed, sent garbage, or the time ran out.
    Result<nlohmann::json> receive(Millis timeout);

    enum class Peek { Nothing, Message, Closed };
    /// Without waiting: is a message there, or has the peer gone?
    Peek peek();
    /// The same, waiting up to `timeout` for either (asleep, not spinning).
    Peek wait(Millis timeout);

    const std::string& peer() const { return peer_; }
    /// The socket, to poll many channels at once (then peek() each).
    int fd() const { return fd_; }
    /// A whole message, or a line already past kMaxMessage, read off the
    /// socket (poll will not say so). The buffer never holds more than
    /// kMaxMessage plus one read: every path (receive, peek, wait) stops there.
    bool buffered() const;
    /// The peer's numeric address without the port ("10.0.0.1", "::1").
    const std::string& peer_ip() const { return peer_ip_; }
    /// Waits end early (an error with kExitInterrupted) once `stop` is requested.
    void set_stop(const StopToken* stop) { stop_ = stop; }

  private:
    bool fill(Millis timeout, std::string* why);
    int fd_ = -1;
    std::string peer_;
    std::string peer_ip_;
    std::string buffer_;
    const StopToken* stop_ = nullptr;
    bool closed_ = false;
};

}  // namespace fabscope::perf
