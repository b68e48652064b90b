#pragma once
// How a mesh rank traces paths, the same whether MPI or an agent runs it:
// each flow's sender traces the flow's own path once measured (Soft-RoCE
// only: its UDP source port is known from the QPNs, trace/roce_sport.h), and
// before a cover every rank traces each UDP source port to every other.

#include <string>

#include "mesh/run.h"
#include "trace/roce_trace.h"

namespace fabscope::perf {

/// Sets o.trace_flow and o.trace_sports; returns `open` wrapped so that the
/// flows are traced only when the device it opens is Soft-RoCE.
OpenDevice with_mesh_tracing(MeshRunOptions& o, OpenDevice open, const TraceOptions& t,
                             const HostNames& names);

}  // namespace fabscope::perf
