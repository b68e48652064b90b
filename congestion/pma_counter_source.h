#pragma once
// The InfiniBand PMA as a counter source: every port of a swept fabric that
// has counters (the sweep read them), read again by LID-routed PMA Gets on
// the MAD engine (discover/pma_reading: PortCounters, PortCountersExtended
// and, when asked, PortVLXmitWaitCounters), each reading stamped by the
// injected clock. A port that does not answer PortCounters is listed in
// `failed`: callers make it a finding (check_unanswered), never drop it. A
// port that answers PortCounters but not the per-VL counters is listed as
// "per-VL not supported": optional in the IBA, so no error.

#include <map>
#include <set>
#include <vector>

#include "check/counter_checks.h"
#include "congestion/counter_source.h"
#include "discover/mad_engine.h"
#include "model/fabric.h"

namespace fabscope {

struct PmaSourceOptions {
    EngineOptions engine;
    bool per_vl = false;  ///< also PortVLXmitWaitCounters (one more MAD per port)
    /// Read only these ports, whether or not the sweep read their counters
    /// (empty: every port with counters).
    std::set<PortRef> only;
};

/// One reading of every port, typed for the InfiniBand detectors.
struct PmaRead {
    CounterReadings readings;                    ///< every port that answered PortCounters
    std::map<PortRef, VlXmitWait> vl_xmit_wait;  ///< ports that answered the per-VL counters
    std::vector<PortRef> per_vl_unsupported;     ///< answered PortCounters, not the per-VL ones
    std::vector<PortRef> failed;                 ///< did not answer PortCounters
    MadStats stats;
    bool interrupted = false;  ///< options.engine.stop stopped it: some ports were not read
};

class PmaCounterSource final : public CounterSource {
  public:
    /// `transport`, `clock` and `fabric` must outlive the source.
    PmaCounterSource(MadTransport& transport, const Clock& clock, const Fabric& fabric,
                     PmaSourceOptions options)
        : transport_(transport), clock_(clock), fabric_(fabric), options_(options) {}

    PmaRead read_ports();
    /// The same reading as samples: device = the node GUID ("0x0002c903..."),
    /// values by IBA name ("PortXmitWait", and "PortVLXmitWait0".. per VL).
    std::vector<CounterSample> read() override;

  private:
    MadTransport& transport_;
    const Clock& clock_;
    const Fabric& fabric_;
    PmaSourceOptions options_;
};

/// The samples of a typed reading (what read() returns).
std::vector<CounterSample> pma_samples(const PmaRead& r);

}  // namespace fabscope
