#pragma once
// The local CA port a discovery starts from, found and checked before any
// MAD is sent, so "no device" and "no permission" are one clear line and
// exit code 3 rather than a stack of library warnings.

#include <string>
#include <vector>

#include "model/fabric.h"
#include "util/result.h"

namespace fabscope {

struct LocalPort {
    std::string ca;  ///< e.g. "mlx5_0", "ibsim0"
    int port = 0;
    Lid lid = 0;
    Lid sm_lid = 0;
    int state = 0;       ///< PortState
    int phys_state = 0;  ///< PortPhysicalState
    Guid port_guid = 0;
    uint64_t subnet_prefix = 0;  ///< the port's GID prefix (host order)
};

/// Resolves `ca` / `port` ("" and 0 = the first CA with an active port, as
/// the infiniband-diags do) and checks that its umad device can be opened.
/// Errors carry kExitCannotRun and say what to try.
Result<LocalPort> resolve_local_port(const std::string& ca, int port);

/// Every InfiniBand port of every CA that has a physical link, by CA name and
/// port number (`--all-ports`). Errors as resolve_local_port's; an empty list
/// is one too (no port has a link).
Result<std::vector<LocalPort>> list_local_ports();

}  // namespace fabscope
