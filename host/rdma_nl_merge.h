#pragma once
// RDMA netlink's view merged into the sysfs inventory of a live host. Each
// port keeps what netlink said (HostPort::netlink); what sysfs lacks is
// filled from it (the netdev of a port, a device sysfs did not list); where
// the two disagree on a device's node GUID or firmware, or a port's state,
// physical state, LID, SM LID or netdev, the disagreement is an inventory
// problem naming both values, so a health run shows it as a warning.

#include "host/inventory.h"
#include "host/rdma_nl_parse.h"

namespace fabscope::host {

void merge_netlink(HostInventory& inv, const NlDump& nl);

/// sysfs's name of a physical port state ("LinkUp" for 5).
std::string sysfs_phys_state_name(int code);

}  // namespace fabscope::host
