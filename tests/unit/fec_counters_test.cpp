// PortExtendedSpeedsCounters (0x1F) in both layouts, the PMA ClassPortInfo
// CapabilityMask and PortInfoExtended's FEC mode, decoded from bytes laid
// out by hand after the IBA's tables (synthetic: the simulator does not
// answer 0x1F, and the lab has no RS-FEC port). Offsets are of the
// attribute's data: PortSelect 1, CounterSelect 8-15, SyncHeaderErrorCounter
// 16, UnknownBlockCounter 18; the original layout's ErrorDetectionCounterLane
// n at 20+2n, FECCorrectableBlockCtrLane n at 44+4n and
// FECUncorrectableBlockCtrLane n at 92+4n; the RS-FEC layout's
// FECCorrectableSymbolCtrLane n at 44+4n, PortFECCorrectableBlockCtr 140,
// PortFECUncorrectableBlockCtr 144, PortFECCorrectedSymbolCtr 148. Then the
// raw bit error rate those counters give, its thresholds and its JSON.

#include <gtest/gtest.h>

#include <array>

#include "check/ber.h"
#include "discover/pma_decode.h"
#include "discover/smp_decode.h"
#include "model/counters_json.h"
#include "model/thresholds.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using Block = std::array<uint8_t, 192>;

void put16(Block& d, size_t at, uint16_t v) {
    d[at] = static_cast<uint8_t>(v >> 8U);
    d[at + 1] = static_cast<uint8_t>(v & 0xFFU);
}

void put32(Block& d, size_t at, uint32_t v) {
    for (size_t i = 0; i < 4; ++i) d[at + i] = static_cast<uint8_t>(v >> (24U - (8U * i)));
}

/// The original layout: the sync-header and unknown-block counters, error
/// detection per lane (ignored: no port total), FEC blocks per lane.
Block original_block() {
    Block d{};
    d[1] = 3;
    put16(d, 16, 0x0102);
    put16(d, 18, 7);
    for (size_t lane = 0; lane < 12; ++lane) put16(d, 20 + (2 * lane), 0xEEEE);
    put32(d, 44, 1000);      // FECCorrectableBlockCtrLane0
    put32(d, 44 + 12, 234);  // lane 3
    put32(d, 92 + 4, 5);     // FECUncorrectableBlockCtrLane1
    put32(d, 92 + 44, 6);    // lane 11
    return d;
}

/// The RS-FEC layout: per-lane corrected symbols and the port's totals.
Block rs_fec_block() {
    Block d{};
    d[1] = 3;
    put16(d, 16, 2);
    put16(d, 18, 0xFFFF);
    for (size_t lane = 0; lane < 4; ++lane) put32(d, 44 + (4 * lane), 100 * (lane + 1));
    put32(d, 140, 123456);
    put32(d, 144, 9);
    put32(d, 148, 0xFFFFFFF0);
    return d;
}

/// A reply's counters as merged in `layout`.
PortCounters merged(const Block& d, FecLayout layout) {
    PortCounters pc;
    merge_ext_speeds_counters(pc, PmaData(d.data(), 192), layout);
    return pc;
}

TEST(FecCounters, TheOriginalLayoutSumsTheLanesBlockCounters) {
    const Block d = original_block();
    const PortCounters pc = merged(d, FecLayout::Original);
    EXPECT_EQ(pc.fec, FecLayout::Original);
    EXPECT_EQ(pc.get(Counter::SyncHeaderErrorCounter), 0x0102u);
    EXPECT_EQ(pc.get(Counter::UnknownBlockCounter), 7u);
    EXPECT_EQ(pc.get(Counter::PortFECCorrectableBlockCtr), 1234u);
    EXPECT_EQ(pc.get(Counter::PortFECUncorrectableBlockCtr), 11u);
    EXPECT_FALSE(pc.get(Counter::PortFECCorrectedSymbolCtr));  // RS-FEC only
}

TEST(FecCounters, TheOriginalLayoutsSumStopsWhereA32BitCounterStops) {
    Block d{};
    for (size_t lane = 0; lane < 12; ++lane) put32(d, 44 + (4 * lane), 0xFFFFFFFF);
    const PortCounters pc = merged(d, FecLayout::Original);
    EXPECT_EQ(pc.get(Counter::PortFECCorrectableBlockCtr), 0xFFFFFFFFu);
}

TEST(FecCounters, TheRsFecLayoutReadsThePortTotals) {
    const Block d = rs_fec_block();
    const PortCounters pc = merged(d, FecLayout::RsFec);
    EXPECT_EQ(pc.fec, FecLayout::RsFec);
    EXPECT_EQ(pc.get(Counter::SyncHeaderErrorCounter), 2u);
    EXPECT_EQ(pc.get(Counter::UnknownBlockCounter), 0xFFFFu);
    EXPECT_EQ(pc.get(Counter::PortFECCorrectableBlockCtr), 123456u);
    EXPECT_EQ(pc.get(Counter::PortFECUncorrectableBlockCtr), 9u);
    EXPECT_EQ(pc.get(Counter::PortFECCorrectedSymbolCtr), 0xFFFFFFF0u);
    // The same bytes read as the original layout are other counters: the
    // layout matters, which is why it is chosen as perfquery chooses it.
    const PortCounters wrong = merged(d, FecLayout::Original);
    EXPECT_NE(wrong.get(Counter::PortFECCorrectableBlockCtr), 123456u);
}

TEST(FecCounters, NoLayoutMergesNothing) {
    const Block d = rs_fec_block();
    const PortCounters pc = merged(d, FecLayout::None);
    EXPECT_EQ(pc.fec, FecLayout::None);
    EXPECT_FALSE(pc.get(Counter::SyncHeaderErrorCounter));
}

TEST(FecCounters, ClassPortInfoAndPortInfoExtendedSayWhichLayout) {
    Block cpi{};
    put16(cpi, 2, 0x1300);  // what ibsim's PMA answers: no RS-FEC counters
    EXPECT_EQ(pma_class_capability_mask(PmaData(cpi.data(), 192)) & kPmaCapRsFecCounters, 0);
    put16(cpi, 2, 0x5300);
    EXPECT_NE(pma_class_capability_mask(PmaData(cpi.data(), 192)) & kPmaCapRsFecCounters, 0);

    // PortInfoExtended: CapMask (32 bits, IsFECModeSupported = bit 0) at
    // byte 0, FECModeActive (16 bits) at byte 4.
    std::array<uint8_t, 64> pie{};
    pie[3] = 1;
    for (uint8_t mode : {0, 1, 2, 3, 4}) {
        pie[5] = mode;
        EXPECT_EQ(port_info_ext_rs_fec_active(SmpData(pie)), mode == 2 || mode == 4)
            << "FECModeActive " << int{mode};
    }
    pie[3] = 0;  // FEC modes not supported: FECModeActive means nothing
    pie[5] = 2;
    EXPECT_FALSE(port_info_ext_rs_fec_active(SmpData(pie)));
}

TEST(FecCounters, TheLayoutAndTheCountersGoThroughJson) {
    const Block d = rs_fec_block();
    const PortCounters pc = merged(d, FecLayout::RsFec);
    const auto j = counters_to_json(pc);
    EXPECT_EQ(j.at("fec"), "rs-fec");
    EXPECT_EQ(j.at("PortFECCorrectedSymbolCtr"), 0xFFFFFFF0u);
    const PortCounters back = counters_from_json(j);
    EXPECT_EQ(back.fec, FecLayout::RsFec);
    EXPECT_EQ(back.get(Counter::PortFECUncorrectableBlockCtr), 9u);
    EXPECT_FALSE(counters_to_json(PortCounters{}).contains("fec"));
    nlohmann::json bad = j;
    bad["fec"] = "reed-solomon";
    EXPECT_THROW(counters_from_json(bad), nlohmann::json::exception);
    bad = j;
    bad["SyncHeaderErrorCounter"] = 65536;  // a 16-bit counter
    EXPECT_THROW(counters_from_json(bad), nlohmann::json::exception);
}

/// Two readings of one 4X HDR port `seconds` apart, its corrected symbols
/// rising by `corrected`.
struct RawRig {
    Fabric fabric;
    CounterReadings before;
    CounterReadings after;
    PortRef ref;

    RawRig(uint64_t corrected, double seconds) {
        fabric = *Fabric::build(testing::leaf_spine_nodes({.spines = 1, .leaves = 1}));
        const Node* leaf = fabric.find("leaf01");
        ref = PortRef{leaf->guid, 1};
        PortCounters b;
        b.fec = FecLayout::RsFec;
        b.set(Counter::SymbolErrorCounter, 0);
        b.set(Counter::PortFECCorrectedSymbolCtr, 1000);
        b.read_at_ms = 1'000'000;
        PortCounters a = b;
        a.set(Counter::PortFECCorrectedSymbolCtr, 1000 + corrected);
        a.read_at_ms = b.read_at_ms + static_cast<int64_t>(seconds * 1000);
        before[ref] = b;
        after[ref] = a;
    }
};

TEST(FecCounters, ARawBerAboveTheLimitIsAFindingWithItsEvidence) {
    // 4X HDR signals 212.5 Gb/s: 10 s carry 2.125e12 bits; 1e8 corrected
    // symbols are a raw BER of 4.7e-5, above the 1e-5 warning.
    RawRig rig(100'000'000, 10);
    const auto found = check_ber(rig.fabric, rig.before, rig.after, BerLimit{});
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].kind, "raw_bit_error_rate");
    EXPECT_EQ(found[0].severity, Severity::Warning);
    EXPECT_NE(found[0].summary.find("raw (pre-FEC) bit error rate 4.7e-05"), std::string::npos)
        << found[0].summary;
    EXPECT_NE(found[0].summary.find("100000000 corrected symbols in 10.0 s at 4X HDR"),
              std::string::npos)
        << found[0].summary;
    EXPECT_EQ(found[0].evidence.at("corrected_symbols"), 100'000'000u);
    EXPECT_DOUBLE_EQ(found[0].evidence.at("limit").get<double>(), 1e-5);
    // Past raw_error (1e-4): an error.
    RawRig worse(500'000'000, 10);
    const auto error = check_ber(worse.fabric, worse.before, worse.after, BerLimit{});
    ASSERT_EQ(error.size(), 1u);
    EXPECT_EQ(error[0].severity, Severity::Error);
}

TEST(FecCounters, AHealthyRsFecLinkCorrectsWithoutAFinding) {
    // A raw BER of 1e-7 is what a good PAM4 link runs at: the FEC's work, no fault.
    RawRig rig(212'500, 10);
    EXPECT_TRUE(check_ber(rig.fabric, rig.before, rig.after, BerLimit{}).empty());
    EXPECT_NE(ber_check_detail(rig.fabric, rig.before, rig.after, BerLimit{})
                  .find("raw (pre-FEC) BER against 1e-05 on 1 port with RS-FEC counters"),
              std::string::npos);
}

TEST(FecCounters, ACorrectedSymbolCounterAtItsTopMakesTheRawBerUnknownNotClean) {
    RawRig rig(0, 10);
    rig.before[rig.ref].set(Counter::PortFECCorrectedSymbolCtr, 0xFFFFFFFF);
    rig.after[rig.ref].set(Counter::PortFECCorrectedSymbolCtr, 0xFFFFFFFF);
    EXPECT_TRUE(check_ber(rig.fabric, rig.before, rig.after, BerLimit{}).empty());
    const std::string detail = ber_check_detail(rig.fabric, rig.before, rig.after, BerLimit{});
    EXPECT_NE(detail.find("on 0 ports with RS-FEC counters (unknown on 1 whose corrected-symbol "
                          "counter stands at its maximum"),
              std::string::npos)
        << detail;
}

TEST(FecCounters, ReadingsInTwoLayoutsHaveNoRiseToTell) {
    PortCounters before;
    before.fec = FecLayout::Original;
    before.set(Counter::PortFECCorrectableBlockCtr, 5);
    PortCounters after = before;
    after.fec = FecLayout::RsFec;  // retrained into RS-FEC: the port's total, not the lanes' sum
    after.set(Counter::PortFECCorrectableBlockCtr, 900);
    EXPECT_FALSE(counter_rise(before, after, Counter::PortFECCorrectableBlockCtr));
    after.fec = FecLayout::Original;
    EXPECT_EQ(counter_rise(before, after, Counter::PortFECCorrectableBlockCtr)->delta, 895u);
    // The other counters are not the FEC's: unaffected.
    before.set(Counter::SymbolErrorCounter, 1);
    after.set(Counter::SymbolErrorCounter, 4);
    after.fec = FecLayout::RsFec;
    EXPECT_EQ(counter_rise(before, after, Counter::SymbolErrorCounter)->delta, 3u);
}

TEST(FecCounters, TheRawLimitsAndTheNewCountersAreInTheThresholdsFile) {
    auto t = parse_thresholds(
        "fabscope_thresholds: 1\n"
        "ber: {raw_warn: 1e-6, raw_error: 1e-5}\n"
        "counters:\n"
        "  PortFECUncorrectableBlockCtr: {limit: 0, per: 1h, severity: error}\n",
        "t.yaml");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_DOUBLE_EQ(t->ber.raw_warn, 1e-6);
    EXPECT_DOUBLE_EQ(t->ber.raw_error, 1e-5);
    EXPECT_EQ(t->counters.at(Counter::PortFECUncorrectableBlockCtr).severity, Severity::Error);
    auto bad = parse_thresholds("fabscope_thresholds: 1\nber: {raw_warn: 1e-4, raw_error: 1e-5}\n",
                                "t.yaml");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("raw_warn must not exceed raw_error"), std::string::npos);
    // Corrected blocks and symbols are the FEC's work, not errors: no threshold.
    auto corrected = parse_thresholds(
        "fabscope_thresholds: 1\ncounters:\n  PortFECCorrectedSymbolCtr: {limit: 1, per: 1h}\n",
        "t.yaml");
    ASSERT_FALSE(corrected);
    const Thresholds d = default_thresholds();
    EXPECT_TRUE(d.counters.count(Counter::SyncHeaderErrorCounter));
    EXPECT_TRUE(d.counters.count(Counter::UnknownBlockCounter));
    EXPECT_FALSE(d.counters.count(Counter::PortFECCorrectableBlockCtr));
}

}  // namespace
}  // namespace fabscope
