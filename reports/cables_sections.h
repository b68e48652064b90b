#pragma once
// The cables section of the reports, from health documents
// (reports/cables_doc.h): per host and port the module a technician would
// replace (vendor, part number, serial, length), how it runs (temperature,
// supply, the weakest lane's power) and what its own thresholds say. The
// modules' findings join the report's; a host port without a module (a
// Soft-RoCE veth, an empty cage) is information, not a finding.

#include <string>
#include <vector>

#include "reports/report_model.h"

namespace fabscope {

/// The health documents' module findings and what was checked.
void add_cables(ReportModel& m);

std::string cables_html(const ReportModel& m);
std::string cables_md(const ReportModel& m);
/// The CSV section's header and records (CABLES).
std::vector<std::string> cables_csv_header();
std::vector<std::vector<std::string>> cables_csv_rows(const ReportModel& m);

/// "h01 mlx5_0/1 (eth0)": how the reports name a host port.
std::string cable_port_name(const CableRow& r);
/// "Mellanox MCP1600-C003 serial MT2012VS01234, 3 m copper QSFP28", or why
/// there is none ("no module: a veth").
std::string cable_identity(const CableRow& r);

}  // namespace fabscope
