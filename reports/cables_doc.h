#pragma once
// The cables and modules of a host as `fabscope health` found them
// (docs/health.schema.json: each port's module, decoded from its SFF-8636 or
// CMIS memory map through ethtool's netlink, and the health checks' module
// findings), read back for the report's cables section: which module to
// replace (vendor, part number, serial), how hot it runs, what it transmits
// and receives per lane, and what its own alarm thresholds say about it.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "reports/report_finding.h"
#include "util/result.h"

namespace fabscope {

/// One port of a host and its module.
struct CableRow {
    std::string host;
    std::string device;  ///< "mlx5_0"
    int port = 1;
    std::string netdev;  ///< "eth0", "" when none
    /// "present", "none" (a veth, an empty cage), "unreadable", or "" when
    /// health did not look (an InfiniBand port, an older document).
    std::string status;
    std::string detail;  ///< why not present, as the kernel said it
    std::string type;    ///< "QSFP28", "OSFP"
    std::string spec;    ///< "SFF-8636", "CMIS"
    std::string vendor;
    std::string part_number;
    std::string revision;
    std::string serial;
    std::string media;  ///< "copper", "optical"
    std::optional<double> length_m;
    std::optional<double> temperature_c;
    std::optional<double> supply_v;
    /// The weakest lane's receive and transmit power, mW, and its lane.
    std::optional<double> min_rx_mw;
    int min_rx_lane = 0;
    std::optional<double> min_tx_mw;
    int min_tx_lane = 0;
    std::vector<std::string> flags;  ///< latched alarms and warnings
    /// What is wrong with it (the health doc's module findings for this port).
    std::vector<std::string> issues;
    Severity severity = Severity::Info;  ///< the worst of them; Info when none
};

/// A health document's cables: every port of every device, and the module
/// findings as report findings (source "health", kind "module").
struct HostCables {
    std::string host;
    std::vector<CableRow> rows;
    std::vector<ReportFinding> findings;
};

/// Whether `j` is a `fabscope health --json` document.
bool looks_like_health(const nlohmann::json& j);

/// Reads a health document's cables. Bounded: at most 256 devices of 64
/// ports, 16 lanes a module and 1,024 findings; an error names the path in
/// the document.
Result<HostCables> host_cables_from_json(const nlohmann::json& j);

}  // namespace fabscope
