#pragma once
// The table `perf run` prints as results come in: one header per kind of
// test, one row per result.

#include <optional>
#include <string>

#include "pairtest/results/result.h"

namespace fabscope::perf {

class RunTable {
  public:
    /// The lines to print for `r`: a header when the kind of test changes, then its row.
    std::string lines(const TestResult& r);

  private:
    std::optional<Measure> shown_;
};

/// One row: peer, test, size, then the numbers (or FAILED and why).
std::string render_row(const TestResult& r);

}  // namespace fabscope::perf
