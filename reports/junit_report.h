#pragma once
// The report as JUnit XML for CI systems (tests/junit.xsd): a test suite per
// kind of check, a test case per check, named the same in every run of the
// same command so that a CI server can trend each case (counts go to the
// case's output, never its name). Links: one case per cable, the plan's (or
// baseline's) cables when the validation names them, so a cable down or
// swapped fails its own case; failed by a warning or error naming one of its
// ports. Validation: one case per check made, failed by the findings it
// made. Perf: one case per pair and test, failed when it failed or fell
// short. A failure carries the finding's summary as its message and its
// evidence.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

struct JunitReport {
    std::string xml;
    size_t tests = 0;
    size_t failures = 0;  ///< failing cases: what a CI server counts
};
JunitReport junit_report(const ReportModel& m);
std::string render_junit_report(const ReportModel& m);

}  // namespace fabscope
