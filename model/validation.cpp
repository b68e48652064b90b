#include "model/validation.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabscope {

std::string CheckMade::text() const {
    return detail.empty() ? name : fmt::format("{} ({})", name, detail);
}

std::string check_of(std::string_view kind, const std::vector<CheckMade>& made) {
    // The kinds each check finds; the first of a row's checks that was made
    // claims them (a plan's cabling before a baseline's before the changes).
    struct Row {
        std::vector<std::string_view> checks;
        std::vector<std::string_view> kinds;
    };
    static const std::vector<Row> rows = {
        {{"links"},
         {"link_below_capability", "link_below_peers", "link_count_asymmetry",
          "mtu_below_capability", "port_not_active", "port_polling"}},
        {{"cabling_plan", "cabling_baseline", "changes"},
         {"node_missing", "node_new", "node_replaced", "link_down", "miswired", "cables_swapped",
          "unexpected_link", "degraded_link", "leaf_spine_links", "tier_mismatch"}},
        {{"identities"}, {"duplicate_guid", "duplicate_lid"}},
        {{"counter_rates", "counter_saturation"},
         {"counter_rising", "counter_saturated", "counters_unanswered", "xmit_wait",
          "congestion_root", "congestion_victim"}},
        {{"bit_error_rate"}, {"bit_error_rate", "raw_bit_error_rate"}},
        {{"routing"}, {"credit_loop", "route_hole", "route_imbalance"}},
        {{"subnet_manager"},
         {"sm_not_answering", "sm_no_master", "sm_masters", "sm_standby_missing", "sm_inactive"}},
        {{"partitions"},
         {"partition_missing", "partition_unexpected", "partition_membership", "partition_filtered",
          "partition_member_missing"}},
    };
    auto was_made = [&](std::string_view id) {
        return std::any_of(made.begin(), made.end(),
                           [&](const CheckMade& c) { return c.id == id; });
    };
    for (const Row& r : rows) {
        if (std::find(r.kinds.begin(), r.kinds.end(), kind) == r.kinds.end()) continue;
        for (std::string_view id : r.checks) {
            if (was_made(id)) return std::string(id);
        }
    }
    return made.empty() ? std::string() : made.front().id;
}

bool Validation::failed() const {
    return std::any_of(findings.begin(), findings.end(),
                       [](const Finding& f) { return f.severity != Severity::Info; });
}

size_t Validation::count(Severity s) const {
    return static_cast<size_t>(std::count_if(findings.begin(), findings.end(),
                                             [&](const Finding& f) { return f.severity == s; }));
}

void sort_by_severity(std::vector<Finding>& findings) {
    std::stable_sort(findings.begin(), findings.end(),
                     [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
}

}  // namespace fabscope
