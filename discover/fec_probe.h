#pragma once
// PortExtendedSpeedsCounters (PMA attribute 0x1F) in the sweep: which ports
// answer it, in which layout, at the cost of one Get a PMA model where they
// do not.
//
// Round one goes with the counters: one 0x1F Get a PMA model (vendor,
// device, revision), to the first port of a node of the model that
// advertises extended speeds (PortInfo CapabilityMask bit 14) and runs no SM
// (through ibsim's umad2sim an SM receives what the simulator does not
// implement, and dies of it). A model whose probe is refused or unanswered
// is "not supported": asked of one port a model (with the engine's retries),
// never a finding, and (ibsim sends such a Get straight back) no deadline
// waited.
//
// Round two, for the models whose probe answered: 0x1F of every other such
// port, the model's PMA ClassPortInfo, and, where it says
// IsPMRSFECCountersSupported, PortInfoExtended (SMP 0x33) of the ports whose
// CapabilityMask2 says they have it. The layout is chosen as perfquery
// chooses it: RS-FEC where ClassPortInfo has the bit and PortInfoExtended's
// FECModeActive is RS-FEC, the original layout where either says otherwise
// (or the port has no PortInfoExtended); where an answer that decides went
// missing the reply is left out rather than read in a guessed layout.

#include <map>
#include <optional>
#include <set>

#include "discover/pma_reading.h"
#include "discover/sweep_context.h"

namespace fabscope {

class FecProbe {
  public:
    explicit FecProbe(SweepContext& ctx) : ctx_(ctx) {}

    /// Round one: notes the port and, if it is its model's first one on a
    /// node without an SM, queues the model's probe into `into.ext_speeds`.
    void offer(const SweptNode& n, uint8_t port, Lid lid, PmaReading& into);
    /// Round two, after the first engine run: queues the rest. False if
    /// nothing was queued (no model answered).
    bool submit_rest(std::map<PortRef, PmaReading>& readings);
    /// After the second run: each reading's layout, so PmaReading::counters() decodes it.
    void decide_layouts(std::map<PortRef, PmaReading>& readings) const;

  private:
    /// PortInfoExtended of the model's ports that have it (from ClassPortInfo's answer).
    void ask_fec_modes(const PmaModel& model);
    /// RS-FEC or original as perfquery decides; None where what decides went unanswered.
    FecLayout layout_of(PortRef ref) const;

    struct Candidate {
        PortRef ref;
        Lid lid = 0;
    };

    SweepContext& ctx_;
    std::map<PmaModel, PortRef> probe_of_;  ///< the port each model's probe went to
    std::map<PmaModel, std::vector<Candidate>>
        rest_;                                ///< eligible ports (the probe's from round two)
    std::map<PmaModel, uint16_t> class_cap_;  ///< ClassPortInfo CapabilityMask answered
    std::set<PortRef> fec_mode_read_;         ///< PortInfoExtended answered
    std::set<PortRef> rs_fec_active_;         ///< PortInfoExtended: RS-FEC running
};

}  // namespace fabscope
