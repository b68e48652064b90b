#pragma once
// A RoCE host of two ports for the module checks: mlx5_0 port 1 (eth2)
// holding `module`, and rxe0 port 1 without one (a veth: the kernel has
// nothing to read).

#include "formats/module_eeprom.h"
#include "host/inventory.h"

namespace fabscope::testing {

inline host::HostInventory roce_host(const ModuleInfo& module) {
    host::HostInventory inv;
    host::RdmaDevice d;
    d.name = "mlx5_0";
    host::HostPort port;
    port.link_layer = "Ethernet";
    port.netdev = host::NetDev{"eth2", 9000, "up"};
    port.module = host::PortModule{"present", "", module};
    d.ports.push_back(port);
    host::RdmaDevice veth;
    veth.name = "rxe0";
    host::HostPort vp;
    vp.link_layer = "Ethernet";
    vp.module = host::PortModule{"none", "Operation not supported", std::nullopt};
    veth.ports.push_back(vp);
    inv.devices = {d, veth};
    return inv;
}

}  // namespace fabscope::testing
