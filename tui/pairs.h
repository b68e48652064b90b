#pragma once
// The pair matrix: perf results from one or more `fabscope perf run` reports
// (each run from one source host), one grid per test and size, sources as
// rows and destinations as columns, every cell as a share of the grid's best.

#include <string>
#include <vector>

#include "perf/report.h"

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
    const PairCell& cell(size_t r, size_t c) const { return cells[r * cols.size() + c]; }
};

struct PairMatrix {
    std::vector<PairGrid> grids;
    double degraded_at = 0.7;
};

/// `names[i]` names report i when it does not say which host ran it.
PairMatrix build_pairs(const std::vector<perf::PerfReport>& reports,
                       const std::vector<std::string>& names);

}  // namespace fabscope::tui
