#pragma once
// Identities that must be unique: LIDs (with their LMC ranges) and port
// GUIDs. (Two nodes answering with one node GUID are caught by the sweep,
// which sees both: "duplicate_guid".)

#include <vector>

#include "model/fabric.h"
#include "model/finding.h"

namespace fabscope {

std::vector<Finding> check_identities(const Fabric& f);

}  // namespace fabscope
