#pragma once
// The hosts' P_Key tables checked against the plan's partitions (OpenSM's
// partitions.conf, by node name).

#include <string>
#include <vector>

#include "model/fabric.h"
#include "model/finding.h"

namespace fabscope {

struct Plan;

/// The CA ports' P_Key tables against the plan's partitions: a host missing
/// from a partition it is planned in (`partition_missing`), in one the plan
/// does not give it (`partition_unexpected`), with the other membership
/// (`partition_membership`), or whose switch port filters a partition it is
/// in (`partition_filtered`, where the switch enforces partitions). One
/// finding per partition and kind, naming every port. The default partition
/// is checked only where the plan names it.
std::vector<Finding> check_partitions(const Fabric& f, const Plan& plan);
/// "3 partitions, 16 host ports", or why nothing was compared.
std::string partitions_check_detail(const Fabric& f, const Plan& plan);

}  // namespace fabscope
