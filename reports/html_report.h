#pragma once
// The report for a ticket: one self-contained HTML file (inline CSS and
// SVG; a Content-Security-Policy that lets it fetch nothing), readable on a
// screen, printed and on a phone. The verdict and the findings with their
// evidence first; then the fabric by tier with the bad links marked and
// named, the pair matrices as heat maps, the counters, and the run.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

std::string render_html_report(const ReportModel& m);

}  // namespace fabscope
