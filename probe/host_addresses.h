#pragma once
// Who a hello comes from: the pinglist's addresses are the hosts' identity.
// A hello names its host; it is taken only from one of that host's
// addresses, so a host of the --allow list (or a holder of the secret)
// cannot sign in as another host of the pinglist and have the victim's
// probes go unanswered. A literal address is compared as it is; a name is
// resolved once, when it is first claimed (not at start: 8,192 names would
// hold the listener), and again only while it does not resolve.

#include <optional>
#include <string>
#include <vector>

#include "net/allow_list.h"
#include "probe/pinglist.h"
#include "util/result.h"

namespace fabscope::probe {

class HostAddresses {
  public:
    explicit HostAddresses(const std::vector<ProbeHost>& hosts);

    /// Whether `ip` (numeric, as Channel::peer_ip() gives it) is an address
    /// of host `host`. Errors: the host's name does not resolve.
    Result<bool> is_of(size_t host, const std::string& ip);

  private:
    std::vector<ProbeHost> hosts_;
    // Per host, once known: its addresses, each a network of one address.
    std::vector<std::optional<perf::AllowList>> known_;
};

/// The host part of a pinglist's "host:port" ("[v6]:port" without brackets).
std::string host_part(const std::string& where);

}  // namespace fabscope::probe
