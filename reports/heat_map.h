#pragma once
// A pair matrix as an SVG heat map: a row per host that ran the tests, a
// column per peer, each cell coloured by how far it is from the best of the
// test (green best, red worst), failed tests dark, degraded pairs outlined.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

std::string render_heat_map_svg(const ReportModel& m, const PairMatrix& pm);

/// How good a result is next to the test's best: 1 = the best, 0 = nothing.
double pair_score(const PairMatrix& pm, const PairCheck& c);

}  // namespace fabscope
