#pragma once
// What only libibverbs tells: each port's active MTU (sysfs has none). Used
// on a live host (sysfs root "/"); fixture trees have no verbs devices.

#include "host/inventory.h"

namespace fabscope::host {

/// Fills HostPort::active_mtu for every device libibverbs can open; devices
/// it cannot open are left as they are.
void fill_active_mtu(HostInventory& inv);

}  // namespace fabscope::host
