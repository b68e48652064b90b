#pragma once
// The last step of a sweep: the model's fabric from what the passes read.
// Nodes are assembled from their SMP replies (node_assembly.h, shared with
// the ibnetdiscover cache import); a link is kept only where both ends
// were read.

#include "discover/sweep_context.h"

namespace fabscope {

/// Consumes the context's nodes and peers (each node's replies are freed
/// as it is built): the context is spent afterwards.
Result<Fabric> assemble_fabric(SweepContext& ctx);

}  // namespace fabscope
