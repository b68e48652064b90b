#pragma once
// The module in a network device's cage, read through the kernel's ethtool
// netlink interface (ETHTOOL_MSG_MODULE_EEPROM_GET, Linux 5.13 and later;
// what `ethtool -m` reads), in the caller's network namespace, with a
// deadline: the lower page, page 00h, then the pages its memory map has
// (formats/module_eeprom.h). Needs CAP_NET_ADMIN.

#include <string>

#include "formats/module_eeprom.h"

namespace fabscope::host {

struct ModuleRead {
    enum class Outcome : uint8_t {
        Read,      ///< `pages` holds the lower page, page 00h and the paged ones that answered
        NoModule,  ///< the device has no module to read (a veth, an empty cage, a driver without
                   ///< it)
        Failed,    ///< no answer, no permission, no ethtool netlink in this kernel
    };
    Outcome outcome = Outcome::Failed;
    std::string detail;  ///< why not Read: "Operation not supported", "needs CAP_NET_ADMIN"
    ModulePages pages;
};

ModuleRead read_module_eeprom(const std::string& ifname);

}  // namespace fabscope::host
