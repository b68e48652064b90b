#pragma once
// The short human summary `fabscope discover` prints: tiers with counts,
// links grouped by class and rate, and anything odd.

#include <string>
#include <vector>

#include "model/finding.h"
#include "model/snapshot.h"
#include "model/tiers.h"
#include "util/term.h"

namespace fabscope {

struct SummaryOptions {
    TextStyle style;
    size_t max_listed = 12;  ///< findings of one kind listed before "and N more"
};

std::string render_discover_summary(const Snapshot& snap, const Tiers& tiers,
                                    const std::vector<Finding>& findings,
                                    const SummaryOptions& opts);

}  // namespace fabscope
