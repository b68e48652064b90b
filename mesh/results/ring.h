#pragma once
// A ring all-reduce's figures (`mesh run --pattern ring`), as the collective
// benchmarks report them (nccl-tests' PERFORMANCE.md): per message size the
// all-reduce's time, its algorithm bandwidth (bytes / time) and bus bandwidth
// (algbw x 2(n-1)/n: what each rank's link carried, comparable with a link's
// rate); GB/s are 1e9 bytes/s, as there. Per edge (a rank to the next in the
// ring) what its steps' WRITEs took; and what the slowest edge costs the ring.
// Pure: the ring run fills it, the reports read it.

#include <cstdint>
#include <string>
#include <vector>

namespace fabscope::perf {

/// One edge of the ring at one size, as its sender measured its steps.
struct RingEdge {
    int src = 0;  ///< ranks
    int dst = 0;
    uint64_t steps = 0;  ///< measured steps
    double mean_us = 0;
    double median_us = 0;
    double max_us = 0;
    double gbps = 0;    ///< the step's bytes over its mean time, Gb/s
    std::string error;  ///< "": measured
};

struct RingSize {
    uint64_t bytes = 0;  ///< the all-reduce's message
    uint32_t chunk = 0;  ///< what each step moves: bytes / n, rounded up
    uint32_t iterations = 0;
    double time_us = 0;  ///< the mean all-reduce time of the slowest rank
    double algbw_gbs = 0;
    double busbw_gbs = 0;
    std::vector<RingEdge> edges;  ///< in ring order
    bool measured = false;        ///< every rank's all-reduces ran
};

/// What the slow edges cost the ring at one size: the ring runs at the pace
/// of its slowest edge (each of the 2(n-1) steps ends when the slowest WRITE
/// of the step has), so were the slow edges as fast as the median edge, each
/// step would take the longest of the other edges and the median instead.
/// The rest of a step (polling, waiting on the previous rank) stays as
/// measured. The slow edges: the slowest, and every edge below `slow_ratio`
/// of the median (a cable shaped both ways slows each edge that crosses it).
struct RingCost {
    bool found = false;        ///< at least two edges measured
    size_t edge = 0;           ///< the slowest, an index into RingSize::edges
    std::vector<size_t> slow;  ///< the slow edges, the slowest first
    double gbps = 0;
    double median_gbps = 0;
    double busbw_gbs = 0;            ///< as measured
    double busbw_if_median_gbs = 0;  ///< were the slow edges as fast as the median
    double share = 0;  ///< of the bus bandwidth lost to them: 1 - busbw / busbw_if_median
};

/// One plane's ring (`--devices`: device i of every host is plane i, and
/// each plane's ranks form their own ring, as a collective library runs one
/// ring per rail and splits each message over them).
struct RingResult {
    int plane = 0;
    std::vector<int> order;  ///< ranks in ring order: order[i] sends to order[i + 1]
    std::vector<RingSize> sizes;
    std::string ordered_by;  ///< "leaf" (from the routes) or "rank"
    /// Its edges are MeshRunData::flows[first_flow ..] in ring order.
    size_t first_flow = 0;
};

/// What the slowest plane's ring costs a job that splits each all-reduce
/// evenly over its planes' rings (as NCCL spreads its channels over the
/// NICs): the collective ends with its slowest ring, so the job's bus
/// bandwidth is the planes times the slowest ring's; were that ring as fast
/// as the fastest, it would be the planes times the fastest's. Read at the
/// largest size every ring measured.
struct RingPlanesCost {
    bool found = false;  ///< two or more rings measured a common size
    uint64_t bytes = 0;
    size_t slowest = 0;  ///< an index into the rings
    size_t fastest = 0;
    double busbw_gbs = 0;             ///< the job's: planes x the slowest ring's
    double busbw_if_fastest_gbs = 0;  ///< planes x the fastest ring's
    double share = 0;                 ///< 1 - busbw / busbw_if_fastest
};

/// 2(n-1)/n: busbw over algbw for an all-reduce of n ranks.
double bus_factor(size_t ranks);
/// The 2(n-1) steps of a ring all-reduce of n ranks.
uint32_t ring_steps(size_t ranks);

/// The slow edges of `s` and their cost (found: false when fewer than two
/// edges measured).
RingCost ring_cost(const RingSize& s, size_t ranks, double slow_ratio);

/// The size the verdict is read at: the largest measured (where the bus
/// bandwidth has plateaued), or null.
const RingSize* ring_verdict_size(const RingResult& r);

/// "the ring", or with several planes "plane 1's ring".
std::string ring_name(const std::vector<RingResult>& rings, const RingResult& ring);

/// The planes' rings judged together (found: false with fewer than two).
RingPlanesCost ring_planes_cost(const std::vector<RingResult>& rings);

}  // namespace fabscope::perf
