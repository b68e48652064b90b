#pragma once
// The live reader of the kernel's RDMA netlink interface: what `rdma dev`
// and `rdma link` show (device index, name, node GUID, firmware, port
// state, physical state, LIDs, netdev), read from a NETLINK_RDMA socket of
// the calling process's network namespace, with a deadline. Parsing is
// rdma_nl_parse's; merging into the sysfs inventory is rdma_nl_merge's.

#include <cstdint>
#include <vector>

#include "host/rdma_nl_parse.h"
#include "util/result.h"

namespace fabscope::host {

/// One DEV_GET dump and one PORT_GET dump per device. `raw`, when given,
/// receives every reply buffer as read (for test fixtures). Errors (no
/// NETLINK_RDMA in this kernel, no answer in time) are kExitCannotRun.
Result<NlDump> read_rdma_netlink(std::vector<std::vector<uint8_t>>* raw = nullptr);

}  // namespace fabscope::host
