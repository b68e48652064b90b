#pragma once
// Port counters as the PMA reports them (PortCounters, and the 64-bit
// PortCountersExtended where the port has it), with the IBA names that
// perfquery and ibqueryerrors print, and each counter's width so that
// wrap-around and saturation can be told apart later.

#include <array>
#include <bitset>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fabscope {

enum class Counter : uint8_t {
    SymbolErrorCounter,
    LinkErrorRecoveryCounter,
    LinkDownedCounter,
    PortRcvErrors,
    PortRcvRemotePhysicalErrors,
    PortRcvSwitchRelayErrors,
    PortXmitDiscards,
    PortXmitConstraintErrors,
    PortRcvConstraintErrors,
    LocalLinkIntegrityErrors,
    ExcessiveBufferOverrunErrors,
    VL15Dropped,
    PortXmitWait,
    PortXmitData,  ///< in units of 4 octets, as the PMA counts
    PortRcvData,
    PortXmitPkts,
    PortRcvPkts,
    PortUnicastXmitPkts,  ///< extended only
    PortUnicastRcvPkts,
    PortMulticastXmitPkts,
    PortMulticastRcvPkts,
    // PortRcvErrorDetails (0x15): what PortRcvErrors counted, by cause.
    PortLocalPhysicalErrors,
    PortMalformedPktErrors,
    PortBufferOverrunErrors,
    PortDLIDMappingErrors,
    PortVLMappingErrors,
    PortLoopingErrors,
    // PortXmitDiscardDetails (0x16): what PortXmitDiscards counted, by cause.
    PortInactiveDiscards,
    PortNeighborMTUDiscards,
    PortSwLifetimeLimitDiscards,
    PortSwHOQLifetimeLimitDiscards,
    // PortExtendedSpeedsCounters (0x1F), of ports running an extended speed
    // (FDR and later) whose PMA answers it: the physical coding layer and
    // the forward error correction under SymbolErrorCounter.
    SyncHeaderErrorCounter,
    UnknownBlockCounter,
    PortFECCorrectableBlockCtr,    ///< blocks FEC repaired (the RS-FEC layout's, or every lane's)
    PortFECUncorrectableBlockCtr,  ///< blocks FEC could not repair: data lost
    PortFECCorrectedSymbolCtr,     ///< symbols RS-FEC repaired (RS-FEC layout only): raw BER
};
inline constexpr int kCounterCount = 36;

std::string_view name(Counter c);
std::optional<Counter> parse_counter(std::string_view s);
/// Width in bits of the counter as read: the PortCounters width, or 64 for
/// the data counters when they came from PortCountersExtended.
int counter_bits(Counter c, bool extended);
/// The largest value the counter holds at that width (where a PortCounters counter stops).
uint64_t counter_max(Counter c, bool extended);
/// Counters of PortExtendedSpeedsCounters (attribute 0x1F).
bool is_fec_counter(Counter c);
/// Error counters (as opposed to data and packet counters).
bool is_error_counter(Counter c);
/// The PortCounters total a detail counter is part of (PortRcvErrors for
/// PortRcvErrorDetails, PortXmitDiscards for PortXmitDiscardDetails); nothing
/// for the others.
std::optional<Counter> detail_of(Counter c);
/// What a rise of the counter usually means, for people ("a packet sent back
/// where it came from: a routing loop"); empty where the name says it all.
std::string_view counter_meaning(Counter c);

/// Which layout a port's PortExtendedSpeedsCounters reply has: the
/// original one (per-lane error detection and FEC block counters, FDR and
/// EDR's Fire-code FEC) or the RS-FEC one (per-lane corrected symbols and
/// port totals), chosen as perfquery chooses it: the PMA's ClassPortInfo
/// says IsPMRSFECCountersSupported and PortInfoExtended's FECModeActive is
/// RS-FEC.
enum class FecLayout : uint8_t { None, Original, RsFec };
std::string_view name(FecLayout l);
std::optional<FecLayout> parse_fec_layout(std::string_view s);

struct PortCounters {
    /// values[c] means something only where read[c] is set (a sweep has
    /// tens of thousands of these: no optional per counter).
    std::array<uint64_t, kCounterCount> values{};
    std::bitset<kCounterCount> read;
    bool extended = false;  ///< data counters are the 64-bit extended ones
    /// The port answered PortExtendedSpeedsCounters in this layout (None:
    /// not asked, or not answered: "not supported", never a finding).
    FecLayout fec = FecLayout::None;
    int64_t read_at_ms = 0;  ///< Unix time of the read, milliseconds

    std::optional<uint64_t> get(Counter c) const {
        const auto i = static_cast<size_t>(c);
        return read[i] ? std::optional<uint64_t>(values[i]) : std::nullopt;
    }
    void set(Counter c, uint64_t v) {
        const auto i = static_cast<size_t>(c);
        values[i] = v;
        read.set(i);
    }
};

/// How much a counter rose between two readings of a port. A value below the
/// earlier one means the counter was cleared in between: then the later value
/// is all that is known (a lower bound).
struct CounterRise {
    uint64_t before = 0;
    uint64_t after = 0;
    uint64_t delta = 0;
    bool cleared = false;
};
/// Nothing if either reading lacks the counter. A detail counter a reading
/// did not ask for because its total (detail_of) stood at zero counts as zero.
std::optional<CounterRise> counter_rise(const PortCounters& before, const PortCounters& after,
                                        Counter c);
/// The same rule for any two readings of one counter (sysfs, per-VL counters).
CounterRise counter_rise(uint64_t before, uint64_t after);

/// Virtual lanes a PMA reports per-VL counters for (PortVLXmitWaitCounters, attribute 0x1C).
inline constexpr int kVlCount = 16;
/// PortVLXmitWait of VL0..VL15 (16-bit counters: they stop at 65535).
using VlXmitWait = std::array<uint64_t, kVlCount>;

}  // namespace fabscope
