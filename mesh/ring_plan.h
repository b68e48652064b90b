#pragma once
// Rank 0's plan of a ring all-reduce: a ring per plane over the ranks that
// can take part, those under one leaf next to each other, and the ring's
// edges as the run's one round of flows. Pure: the run's data in, rings
// and rounds out. `mesh run --pattern ring` plans with it through plan_run
// (mesh/plan.h), and so does `mesh plan --pattern ring`.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "mesh/run_data.h"

namespace fabscope::perf {

/// The flow label of edge `e` (RoCE: it chooses the UDP source port, so the
/// ECMP path; fixed, so the same ring takes the same paths run after run).
uint32_t ring_edge_label(size_t e);

/// A step's chunk: `bytes` shared out over a ring of `n`, at least a byte.
uint32_t ring_chunk(uint64_t bytes, size_t n);

/// Rank 0's ring: the ranks that can test, those under one leaf next to each
/// other (`leaf_of`: a rank's leaf, 0 unknown), leaves in the order of their
/// first rank, ranks of no known leaf last; `ordered_by` says which.
std::vector<int> ring_order(const std::vector<MeshRank>& ranks,
                            const std::vector<uint64_t>& leaf_of, std::string* ordered_by);

/// The rings of `d`'s ranks, one per plane (ordered by the leaves the
/// snapshot of `d.routes` gives them), into d.rings with a size each of
/// `sizes`; their edges, each rank to the next one way, as d.rounds' one
/// round (none without a ring); a plane with one rank able to take part is
/// a finding. d.spec.size grows to the largest size's chunk.
void plan_rings(MeshRunData& d, const std::vector<uint64_t>& sizes, uint32_t iterations);

}  // namespace fabscope::perf
