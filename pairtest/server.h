#pragma once
// `fabscope perf serve`: a network service. It answers one session at a
// time; while one runs, up to `max_queue` clients wait (told how many are
// ahead) and more are refused with a message. A client enters the queue
// only once its hello (with the proof of the secret) is read: hellos are
// read at once, each under a short grace, so clients that connect and say
// nothing never hold a place nor delay one that answers. Only clients from the allow
// list are answered (loopback by default), and with a secret only those
// that prove they know it. A session that misbehaves ends with a log line;
// the server goes on.

#include <memory>
#include <string>

#include "net/allow_list.h"
#include "net/pending.h"
#include "pairtest/session.h"
#include "rdma/verbs_device.h"
#include "util/interrupt.h"

namespace fabscope::perf {

struct ServeOptions {
    std::string listen_addr;       ///< "" = every address
    uint16_t port = kDefaultPort;  ///< 0: any free port (tests)
    PeerOptions peer;              ///< peer.secret: the shared secret ("" = none)
    SessionLimits limits;
    AllowList allow = AllowList::loopback();
    size_t max_queue = 4;  ///< clients waiting (their hello read) while one is served
    /// Connections welcomed and not heard from yet: read at once, each with
    /// its grace (at most limits.handshake_timeout), bounded per address and
    /// in all (net/pending.h).
    PendingLimits pending;
    bool once = false;       ///< exit after one session
    Millis idle_timeout{0};  ///< exit when no client comes for this long (0: never)
};

class Server {
  public:
    /// Checks the listen address and binds; errors carry their exit code
    /// (2 for a bad address, 3 for a port in use).
    static Result<std::unique_ptr<Server>> open(const ServeOptions& opts);
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    /// The port it listens on (the one picked, with port 0).
    uint16_t port() const { return port_; }
    /// Serves until `stop` (kExitInterrupted), --once or --idle-timeout (kExitClean).
    int run(const VerbsDevice& dev, const StopToken& stop, const Log& log);

  private:
    explicit Server(ServeOptions opts) : opts_(std::move(opts)) {}
    ServeOptions opts_;
    int fd_ = -1;
    uint16_t port_ = 0;
};

/// "--listen ADDR" is an IP address (or "" for all): checked before any device is opened.
Status check_listen_address(const std::string& addr);

}  // namespace fabscope::perf
