#pragma once
// The pair matrix: perf results from one or more `fabscope perf run` reports
// (each run from one source host), one grid per test and size, sources as
// rows and destinations as columns, every cell as a share of the grid's best;
// and a mesh run's flows, every cell as a share of its plane's median, with
// the run's top suspects.

#include <string>
#include <vector>

#include "pairtest/results/report.h"
#include "reports/mesh_doc.h"
#include "reports/probe_doc.h"

namespace fabscope::tui {

struct PairCell {
    bool measured = false;
    bool ok = false;
    double value = 0;  ///< Gb/s, or the median latency in us
    double ratio = 0;  ///< of the grid's best (1 = best)
    std::string error;
};

struct PairGrid {
    std::string test;  ///< "write_bw 64K"
    bool bandwidth = true;
    std::vector<std::string> rows;  ///< sources
    std::vector<std::string> cols;  ///< destinations
    std::vector<PairCell> cells;    ///< rows x cols
    double best = 0;
    std::string best_pair;  ///< "h1 → h2"
    /// A mesh run's: the cells are shares of the median, not of the best.
    bool of_median = false;
    double degraded_at = 0;  ///< the mesh's slow ratio; 0: the matrix's
    /// A mesh run's suspects, the top one first: "cable l1[..] <-> s2[..] (both ways): ...".
    std::vector<std::string> suspects;
    /// The top suspect's evidence beneath it: what its slow flows' ends and
    /// its switch ports counted (reports/mesh_doc's phrases).
    std::vector<std::string> top_evidence;
    /// A ring run's figures (reports/mesh_doc's ring_lines): its bus
    /// bandwidth, then its slowest edge and what the slow edges cost.
    std::vector<std::string> ring;
    bool ring_costly = false;  ///< the slow edges are below the mesh's slow ratio
    std::string note;          ///< "mesh run complete, 9 ranks, 72 of 72 flows, 14 slow"
    /// Probe agents' grid: agents as rows, their peers as columns; a cell is
    /// the peer's p99 (value, us) as a share of the grid's median p99 (the
    /// median over the p99: 1 at the median, lower when slower), failed
    /// (×) when probes were lost; the suspects are the agents' findings.
    bool probes = false;
    const PairCell& cell(size_t r, size_t c) const { return cells[r * cols.size() + c]; }
};

struct PairMatrix {
    std::vector<PairGrid> grids;
    double degraded_at = 0.7;
};

/// `names[i]` names report i when it does not say which host ran it.
PairMatrix build_pairs(const std::vector<perf::PerfReport>& reports,
                       const std::vector<std::string>& names);

/// A mesh run's grid: at most this many hosts (those of the slow and
/// failed flows of a bigger run).
inline constexpr size_t kMeshGridHosts = 128;
PairGrid build_mesh_grid(const MeshRunDoc& d);
/// The probe agents' grid (at most kMeshGridHosts peers: the lossy and
/// slowest first).
PairGrid build_probe_grid(const std::vector<ProbeDoc>& agents);
/// "cable l1[..] <-> s2[..] (both ways): 14 of 16 flows slow, 2 healthy, at 0.21".
std::string suspect_line(const MeshSuspectDoc& s);

}  // namespace fabscope::tui
