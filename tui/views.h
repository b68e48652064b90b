#pragma once
// The views: pure functions from the data and the view state to a canvas.
// Each keeps its cursor in range (so it takes the state by reference) and
// says what is under the cursor.

#include "tui/canvas.h"
#include "tui/draw_util.h"
#include "tui/tui_data.h"
#include "tui/view_state.h"

namespace fabscope::tui {

/// Spines over leaves over hosts: a matrix per tier pair, every link a cell
/// coloured by health, a leaf's hosts as a strip by port.
ViewOutput draw_fabric(const TuiData& d, ViewState& s, Canvas& c, Rect body);
/// Every link, sortable by health, rate, state, error rate, xmit wait, traffic, name.
ViewOutput draw_links(const TuiData& d, ViewState& s, Canvas& c, Rect body);
/// Port counter rates now, with sparklines over the last minutes.
ViewOutput draw_counters(const TuiData& d, ViewState& s, Canvas& c, Rect body);
/// The perf pair matrix as a heat map: each cell a share of the best pair.
ViewOutput draw_pairs(const TuiData& d, ViewState& s, Canvas& c, Rect body);
/// Findings, errors first, with the evidence of the one under the cursor.
ViewOutput draw_findings(const TuiData& d, ViewState& s, Canvas& c, Rect body);
/// Congestion: a congestion report's trees (root first), hottest ports and
/// findings, and the ports waiting most between the readings shown.
ViewOutput draw_congestion(const TuiData& d, ViewState& s, Canvas& c, Rect body);
/// The keys, over whatever is on the canvas.
void draw_help(Canvas& c);

struct FrameInfo {
    int64_t now_ms = 0;
    bool sweeping = false;  ///< a reading is in progress
    double sweeping_s = 0;  ///< for this long
};

/// The whole screen: tabs and summary on top, the current view, the status
/// and key line at the bottom; `d` is null before the first reading.
ViewOutput draw_frame(const TuiData* d, ViewState& s, Canvas& c, const FrameInfo& info);

}  // namespace fabscope::tui
