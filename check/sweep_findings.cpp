#include "check/sweep_findings.h"

#include "check/link_checks.h"

namespace fabscope {

std::vector<Finding> SweepFindings::all() && {
    std::vector<Finding> out = std::move(problems);
    out.reserve(out.size() + links.size() + subnet_managers.size());
    for (auto* part : {&links, &subnet_managers})
        out.insert(out.end(), std::make_move_iterator(part->begin()),
                   std::make_move_iterator(part->end()));
    return out;
}

SweepFindings sweep_findings(SweepFindingsInput in) {
    const Fabric& fabric = in.snapshot.fabric;
    SweepFindings out;
    out.problems = std::move(in.problems);
    out.links = check_links(fabric, in.tiers);
    out.subnet_managers = check_subnet_managers(
        {fabric, in.snapshot.source.sm_read, in.planned_standby, in.sm_after, in.sm_interval_s});
    return out;
}

}  // namespace fabscope
