#pragma once
// Which cables a mesh run's slow flows point at. On RoCE every measured
// flow's traced path (trace/flow_path) becomes lanes of the switch-level
// fabric the traces show (trace/trace_fabric); on InfiniBand a flow's lanes
// are its route in the loaded snapshot (mesh/ib). schedule/localize ranks
// the lanes: slow flows implicate theirs, healthy flows exonerate theirs.
// Pure: the run's data in, suspects with their evidence out.

#include <string>
#include <vector>

#include "mesh/evidence.h"
#include "mesh/run_data.h"
#include "mesh/switch_counters.h"
#include "schedule/localize.h"
#include "trace/trace_fabric.h"

namespace fabscope::perf {

/// One lane, or several that the flows cannot tell apart.
struct LinkSuspect {
    std::vector<Lane> lanes;
    std::string name;  ///< "l1[10.9.12.0] -> s2[10.9.12.1]", several joined by " or "
    size_t slow_flows = 0;
    size_t own_slow = 0;    ///< of slow_flows, those no suspect chosen before it explained
    double own_weight = 0;  ///< their strengths summed (localize's Suspect::own_weight)
    size_t total_flows = 0;
    double mean_ratio = 0;         ///< of the slow flows through it
    std::vector<size_t> evidence;  ///< indices into MeshRunData::flows: the slow ones
    std::vector<size_t> healthy;   ///< the flows through it that were not slow
    /// Both ends' counters over the slow flows, and over the healthy ones.
    FlowCounters slow_counters;
    FlowCounters healthy_counters;
    /// InfiniBand, one lane: what its switch ports counted over the run
    /// (the sending port first; empty when the counters were not read).
    std::vector<PortEvidence> switch_ports;
};

/// A cable some localized lane suspect is on, with the directions that are bad.
struct CableSuspect {
    size_t link = 0;
    std::string name;  ///< "l1[10.9.12.0] <-> s2[10.9.12.1]"
    /// A host's own cable: the host ("a2"); its NIC is as much a suspect as
    /// the cable. "" for a cable between switches.
    std::string host;
    std::vector<size_t> directions;  ///< indices into MeshLinks::suspects
    size_t slow_flows = 0;           ///< over its bad directions
    size_t own_slow = 0;             ///< of them, those no suspect chosen before explained
    double own_weight = 0;           ///< their strengths summed
    size_t total_flows = 0;
};

struct MeshLinks {
    TracedFabric fabric;
    /// Per flow of the run: the lanes of its traced path (empty: not traced,
    /// or no router between its ends).
    std::vector<std::vector<Lane>> flow_lanes;
    size_t traced = 0;    ///< flows with a path (traced, or routed on IB)
    bool routed = false;  ///< the paths are an IB snapshot's routes, not traces
    Coverage coverage;    ///< lanes crossed by measured flows, of the lanes traces showed
    std::vector<LinkSuspect> suspects;
    std::vector<CableSuspect> cables;  ///< the most weight of slow flows of their own first
    /// Lanes slow flows crossed that too few flows tested to judge.
    std::vector<Lane> undersampled;
    /// Lanes the traces show that no measured flow crossed: the flows
    /// planned through them failed, or a rank they needed was gone.
    std::vector<Lane> uncrossed;
    Localization localization;  ///< over the measured flows (observation i = measured[i])
    std::vector<size_t> measured;
};

/// `slow`, `ratio` and `strength` per flow, as analyse_mesh found them.
MeshLinks analyse_links(const MeshRunData& d, const std::vector<double>& ratio,
                        const std::vector<char>& slow, const std::vector<double>& strength,
                        const LocalizeOptions& o = {});

}  // namespace fabscope::perf
