#pragma once
// What a mesh run and an incast run add to a report: their suspects and
// findings as report findings (suspects first), what was checked, and the
// mesh's flows as pair checks for the heat map. Used by build_report.

#include "reports/report_model.h"

namespace fabscope {

/// A pair matrix of a mesh run shows at most this many hosts (the hosts of
/// the slow and failed flows of a bigger run).
inline constexpr size_t kMeshMatrixHosts = 64;

/// The findings a mesh run's suspects and problems become, suspects first:
/// an error for a localized suspect, a warning for one the flows cannot
/// tell from others and for each problem (a rank gone, a flow failed).
std::vector<ReportFinding> mesh_findings(const MeshRunDoc& d);
/// The incast's findings (latency under load, the RoCE detectors) and its
/// problems as warnings.
std::vector<ReportFinding> incast_findings(const IncastDoc& d);

/// Adds m.mesh's and m.incast's checks, findings and pair checks.
void add_runs(ReportModel& m);

}  // namespace fabscope
