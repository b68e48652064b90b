#pragma once
// One port's PMA counter reading, the one place it is asked for and merged:
// PortCounters, PortCountersExtended and, when asked, PortVLXmitWaitCounters,
// queued on a MAD engine and collected as they arrive (in any order). The
// merge has one rule: the extended answer's 64-bit data and packet counters
// win over the 32-bit ones, and an extended answer without its PortCounters
// is no reading. PortRcvErrorDetails and PortXmitDiscardDetails break
// PortRcvErrors and PortXmitDiscards down by cause; they are asked for only
// when PortCounters shows the total above zero (a healthy port costs no MAD
// more), as a follow-up of the PortCounters answer. PortExtendedSpeedsCounters
// is asked where the plan names its layout. The sweep's counters pass and the PMA counter
// source (congestion/pma_counter_source) both read through it.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "discover/mad_engine.h"
#include "discover/mad_format.h"
#include "model/counters.h"
#include "util/boxed.h"

namespace fabscope {

/// What a reading asks for besides PortCounters.
struct PmaReadPlan {
    bool extended = true;  ///< PortCountersExtended (64-bit data and packet counters)
    bool per_vl = false;   ///< PortVLXmitWaitCounters (optional in the IBA: may be refused)
    /// PortRcvErrorDetails / PortXmitDiscardDetails where their total is above zero
    /// (optional in the IBA: a refusal leaves them out).
    bool details = true;
    /// PortExtendedSpeedsCounters in this layout (None: not asked). A port
    /// answers it in one layout; a sweep learns which (discover/fec_probe.h)
    /// and later readings ask in the layout the sweep found.
    FecLayout fec = FecLayout::None;
};

struct PmaReading {
    // Boxed: a sweep holds one reading a port, most of them two replies.
    Boxed<MadBytes> base;             ///< the PortCounters reply
    Boxed<MadBytes> extended;         ///< the PortCountersExtended reply
    Boxed<MadBytes> vl_xmit_wait;     ///< the PortVLXmitWaitCounters reply
    Boxed<MadBytes> rcv_details;      ///< the PortRcvErrorDetails reply
    Boxed<MadBytes> xmit_details;     ///< the PortXmitDiscardDetails reply
    Boxed<MadBytes> ext_speeds;       ///< the PortExtendedSpeedsCounters reply
    FecLayout fec = FecLayout::None;  ///< the layout ext_speeds is in
    /// Per-VL counters were asked for and the port did not give them (an
    /// error status or no answer): "per-VL not supported", not an error.
    bool per_vl_unsupported = false;
    int64_t read_at_ms = 0;  ///< when PortCounters answered (Unix ms)

    /// The merged counters; nothing without a PortCounters answer.
    std::optional<PortCounters> counters() const;
    /// PortVLXmitWait per VL; nothing unless the port answered it.
    std::optional<VlXmitWait> vl_waits() const;
};

/// Queues the Gets of one reading of port `port` at `lid` on `engine`.
/// `into` is filled as the answers arrive and must live until engine.run()
/// returns. A failed PortCounters Get goes to `on_failure` (not a cancelled
/// one: a stopped run is no failure); the other Gets only leave their part out.
void submit_pma_reading(MadEngine& engine, Lid lid, uint8_t port, const PmaReadPlan& plan,
                        PmaReading& into, std::function<void(const MadResult&)> on_failure,
                        const std::vector<std::string>& also_depends_on = {});

}  // namespace fabscope
