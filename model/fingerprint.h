#pragma once
// A short fingerprint of a fabric's state: which nodes are there, which
// ports are cabled to which, and at what width and speed each link runs.
// Two documents with the same fingerprint describe the same fabric as it
// was at one time: `report` uses it to see that a snapshot and a validation
// belong together.

#include <string>

#include "model/fabric.h"

namespace fabscope {

/// 16 hex digits (FNV-1a over the sorted node GUIDs, then the sorted links
/// with their active width and speed); the same whatever order discovery
/// met the nodes and links in.
std::string fabric_fingerprint(const Fabric& f);

/// 12 hex digits over the sorted node GUIDs alone: which fabric it is,
/// whatever its cables do (what a report's identity line shows).
std::string node_set_fingerprint(const Fabric& f);

}  // namespace fabscope
