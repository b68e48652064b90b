#pragma once
// What a mesh run, an incast run and a collective benchmark add to a
// report: their suspects and findings as report findings (suspects first),
// what was checked, and the mesh's flows as pair checks for the heat map.
// Used by build_report.

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

/// What a collective benchmark (nccl-tests) says: elements computed wrong
/// (an error: a bad GPU, NIC or memory, not a slow link) and, given an
/// expectation, a bus bandwidth below it at the largest message (an error).
std::vector<ReportFinding> collective_findings(const CollectiveBench& b,
                                               std::optional<double> expect_busbw_gbps);

/// The out-of-place bus bandwidth at the largest message, as every format
/// gives it: "189.94 GB/s at 8589934592 B, expected 180.00", or ", not
/// judged (no --expect-busbw, ...)" without an expectation.
std::string collective_busbw_line(const CollectiveBench& b,
                                  std::optional<double> expect_busbw_gbps);

/// Adds m.mesh's, m.incast's and m.collectives' checks, findings and pair checks.
void add_runs(ReportModel& m);

}  // namespace fabscope
