#pragma once
// Port counters of an RDMA device from sysfs: the standard ones
// (/sys/class/infiniband/DEV/ports/P/counters) and the driver's
// (hw_counters: rxe's retransmit and sequence errors, mlx5's ECN/CNP and
// out-of-sequence counters). The root is a parameter, so fixture trees
// (synthetic, named as the kernel's mlx5 documentation names them) stand
// in for hardware this machine does not have.

#include <string>

#include "model/counter_map.h"

namespace fabscope {

/// Every readable counter of DEV port P under `root` (default
/// /sys/class/infiniband). Missing directories give an empty map.
CounterMap read_sysfs_counters(const std::string& device, int port,
                               const std::string& root = "/sys/class/infiniband");

}  // namespace fabscope
