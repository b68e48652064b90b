#pragma once
// Reading a mesh run's switch evidence on InfiniBand: the PMA counters of a
// snapshot's switch-to-switch ports (mesh/switch_counters), through the
// MAD engine (congestion's PmaCounterSource), whether or not the sweep read
// them. The CLI gives it rank 0's umad port; the tests a fake fabric.

#include "discover/mad_engine.h"
#include "mesh/switch_counters.h"
#include "model/fabric.h"

namespace fabscope::perf {

/// One reading of every switch-to-switch port of `f`: the ports that
/// answered, those that did not, and "interrupted" when `engine.stop` cut it
/// short.
SwitchCounterRead read_switch_link_counters(MadTransport& transport, const Clock& clock,
                                            const Fabric& f, const EngineOptions& engine);

}  // namespace fabscope::perf
