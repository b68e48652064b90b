#pragma once
// The report as CSV, in sections as ibdiagnet's db_csv has them
// (START_LINKS ... END_LINKS, then PORTS, FINDINGS, PAIRS), each a header
// line and records quoted per RFC 4180, CRLF line ends. Sections the inputs
// do not have are left out (no LINKS or PORTS without a snapshot).

#include <string>

#include "reports/report_model.h"

namespace fabscope {

std::string render_csv_report(const ReportModel& m);

}  // namespace fabscope
