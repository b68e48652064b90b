#pragma once
// The fabric the TUI tests draw: 2 spines, 4 leaves, 4 hosts each, read
// twice two seconds apart. Between the readings leaf02's cable to spine01
// came out, leaf03's host port 2 trained at 1X, leaf01[5] (to spine01)
// gathered symbol errors and waited to transmit, and traffic flowed.
// Perf results from two sources, one pair slow and one failed.

#include <memory>

#include "tui/tui_data.h"

namespace fabscope::testing {

inline constexpr int64_t kFirstReadingMs = 1'764'000'000'000;
inline constexpr int64_t kSecondReadingMs = kFirstReadingMs + 2000;

/// Both readings folded in.
std::shared_ptr<const tui::TuiData> tui_scenario(bool with_perf = true);
/// The same readings with `cfg`'s perf, mesh and congestion inputs.
std::shared_ptr<const tui::TuiData> tui_scenario_with(tui::BuilderConfig cfg);
/// A fabric of `spines` x `leaves` x `hosts_per_leaf` with counters, read once.
std::shared_ptr<const tui::TuiData> tui_large(int spines, int leaves, int hosts_per_leaf);
std::vector<perf::PerfReport> scenario_perf();
/// `nodes` read at `at_ms`: every up port's counters stamped then, zero
/// where the node gave none.
tui::Reading counted_reading(std::vector<Node> nodes, int64_t at_ms);

}  // namespace fabscope::testing
