#pragma once
// What one snapshot shows is wrong with the links, with no plan or baseline:
//  - link_below_capability: a link trained below the best width or speed
//    both ends have enabled and support (a bad cable, lane or connector);
//  - link_below_peers: a link slower than most links between the same two
//    tiers (e.g. one 1X leaf-spine link among 4X ones), whatever its ports
//    are configured to;
//  - link_count_asymmetry: a switch pair with fewer parallel links than the
//    same tiers' other pairs (a missing uplink in a regular leaf-spine);
//  - port_polling: a port with no link partner (cable out, far end down, or
//    simply unused: a plan or baseline tells which);
//  - port_not_active: a physically up port the SM has not activated;
//  - mtu_below_capability: a link running a smaller MTU than both ends can.

#include <vector>

#include "model/fabric.h"
#include "model/finding.h"
#include "model/tiers.h"

namespace fabscope {

std::vector<Finding> check_links(const Fabric& fabric, const Tiers& tiers);

}  // namespace fabscope
