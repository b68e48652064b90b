#pragma once
// How probe agents learn each other's UD address: a hello over TCP, one
// short exchange per peer (and again when a peer's probes all go
// unanswered: it may have restarted with a new QP). The agent that is asked
// answers only addresses of its --allow list, only with the shared secret
// (HMAC of a fresh nonce, net/auth.h) when it has one, and only hosts
// of its pinglist file; each exchange has a deadline of `timeout`, so a
// client that stalls holds the listener that long and no longer.
//
//   agent -> client: {"type":"probe-welcome","protocol":1,"auth":bool,"nonce":...}
//   client -> agent: {"type":"probe-hello","host":NAME,"ud":ADDRESS,"auth":HMAC}
//   agent -> client: {"type":"probe-address","host":NAME,"ud":ADDRESS,"id":N}
//                    or {"type":"error","message":...}

#include <cstdint>
#include <functional>
#include <string>

#include "net/allow_list.h"
#include "probe/pinglist.h"
#include "rdma/ud_port.h"
#include "util/duration.h"
#include "util/interrupt.h"
#include "util/result.h"

namespace fabscope::probe {

struct HelloOptions {
    std::string secret;  ///< "" = none
    Millis timeout{2000};
};

struct PeerAddress {
    perf::UdAddress ud;
    uint32_t id = 0;  ///< our number at the peer: every probe carries it
};

/// The Q_Key of the agents' UD QPs: with a shared secret, derived from it
/// (HMAC), so the HCA itself drops datagrams of anyone without it; without,
/// the default. The high bit is clear (a controlled Q_Key needs privilege).
uint32_t probe_qkey(const std::string& secret, uint32_t dflt);

/// Says hello to `to` as host `self_name` at `self`. Errors name the peer and say why.
Result<PeerAddress> say_hello(const ProbeHost& to, const std::string& self_name,
                              const perf::UdAddress& self, const HelloOptions& o);

/// Called for each good hello, with the caller's host index in the file;
/// returns once the engine answers its probes (or why it cannot).
using Register = std::function<Status(size_t host, const perf::UdAddress& addr)>;
/// What the listener logs (a refused client, a failed hello).
using HelloLog = std::function<void(const std::string&)>;

/// Answers hellos on `listen_fd` until `stop`. Errors: accepting failed.
Status serve_hellos(int listen_fd, const std::vector<ProbeHost>& hosts,
                    const std::string& self_name, const perf::UdAddress& self,
                    const perf::AllowList& allow, const HelloOptions& o, const Register& reg,
                    const HelloLog& log, const StopToken& stop);

}  // namespace fabscope::probe
