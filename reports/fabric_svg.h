#pragma once
// The fabric drawn by tier (spines on top, hosts at the bottom) as inline
// SVG, the links the findings name drawn thick, coloured by severity and
// labelled with their ports, each an element with id "link-<name>" and
// class "link bad", so a reader and a test can find it.

#include <string>

#include "reports/report_model.h"

namespace fabscope {

struct FabricSvgOptions {
    /// A tier with more nodes than this is drawn as one box with a count
    /// (hosts of a large fabric), so the drawing stays legible.
    size_t max_per_tier = 96;
    /// The drawing's width at most (the HTML page's is 1200 less its
    /// padding): a tier with more nodes than fit wraps onto more lines, so the
    /// page never scales the drawing below its own size (11 px text).
    int max_width = 1160;
};

/// "" when the report has no snapshot.
std::string render_fabric_svg(const ReportModel& m, const FabricSvgOptions& o = {});

/// The id the drawing gives a link's element: "link-" + html_id(name).
std::string link_element_id(const ReportModel& m, size_t link);

}  // namespace fabscope
