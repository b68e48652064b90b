#pragma once
// Every plane: a rail-optimised host has one HCA per plane (its own subnet,
// often its own SM). This sweeps each plane once, from the first local port
// on it, and joins the planes into one snapshot (model/plane.h). A local port
// whose GUID a plane already swept holds is on that plane and is not swept
// again; a plane with no SM is swept by directed route all the same and
// reported unmanaged.

#include <functional>
#include <vector>

#include "discover/live_session.h"
#include "discover/local_port.h"
#include "discover/sweep.h"

namespace fabscope {

/// Sweeps one plane from one local port.
using PlaneSweeper = std::function<Result<SweepOutput>(const LocalPort&)>;

/// Sweeps the planes behind `ports` in order and joins them. A port that
/// cannot be swept is a finding ("plane_unswept") and the others go on; it
/// fails only if no plane could be swept, or on a stop before the first.
/// Each unmanaged plane is a finding ("unmanaged_plane").
Result<SweepOutput> sweep_planes(const std::vector<LocalPort>& ports, const PlaneSweeper& sweep,
                                 const StopToken* stop = nullptr);

/// `--all-ports`: every local InfiniBand port with a physical link, each
/// opened with `options` (its ca / ca_port replaced), swept plane by plane.
Result<SweepOutput> sweep_all_ports(const LiveOptions& options, const StopToken* stop);

}  // namespace fabscope
