#pragma once
// The sections a mesh run, an incast run and a collective benchmark add to
// the HTML and Markdown reports: the suspects with their evidence (named
// first, before the findings), latency under load, and the collective's
// bandwidth by message size. Empty when the report has none of them.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

/// "12.3 µs" below a millisecond, "16.80 ms" from there.
std::string micros_text(double us);

std::string mesh_html(const ReportModel& m);
std::string incast_html(const ReportModel& m);
std::string mesh_md(const ReportModel& m);
std::string incast_md(const ReportModel& m);
/// The collective benchmarks (nccl-tests): per size, time, algbw, busbw and
/// #wrong out of place and in place.
std::string collective_html(const ReportModel& m);
std::string collective_md(const ReportModel& m);

}  // namespace fabscope
