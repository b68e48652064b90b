#pragma once
// The report as JUnit XML for CI systems (tests/junit.xsd): a test suite per
// kind of check, a test case per check. Links: one case per cable of the
// snapshot, failed by a warning or error naming one of its ports. Validation:
// one case per check made, and one failed case per finding not on a cable.
// Perf: one case per pair and test, failed when it failed or fell short.
// A failure carries the finding's summary as its message and its evidence.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

std::string render_junit_report(const ReportModel& m);

}  // namespace fabscope
