#pragma once
// The sections a mesh run and an incast run add to the HTML and Markdown
// reports: the suspects with their evidence (named first, before the
// findings), and latency under load. Empty when the report has neither.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

/// "12.3 µs" below a millisecond, "16.80 ms" from there.
std::string micros_text(double us);

std::string mesh_html(const ReportModel& m);
std::string incast_html(const ReportModel& m);
std::string mesh_md(const ReportModel& m);
std::string incast_md(const ReportModel& m);

}  // namespace fabscope
