// Below the counters: PortRcvErrorDetails / PortXmitDiscardDetails decoded
// from bytes laid out by hand after the IBA's tables (synthetic: the lab test
// reads the simulator's and compares with perfquery -E/-D), their thresholds
// and meanings, and the bit error rate with its confidence.

#include <gtest/gtest.h>

#include <array>

#include "check/ber.h"
#include "check/counter_checks.h"
#include "discover/pma_decode.h"
#include "model/thresholds.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

/// A PMA data block with 16-bit big-endian counters from byte 4 on, the
/// layout both detail attributes share (IBA vol. 1, PortRcvErrorDetails and
/// PortXmitDiscardDetails: PortSelect at byte 1, CounterSelect at 2-3).
std::array<uint8_t, 192> details_block(uint8_t port, std::initializer_list<uint16_t> counters) {
    std::array<uint8_t, 192> d{};
    d[1] = port;
    size_t at = 4;
    for (uint16_t v : counters) {
        d[at++] = static_cast<uint8_t>(v >> 8);
        d[at++] = static_cast<uint8_t>(v & 0xFF);
    }
    return d;
}

TEST(ErrorDetails, DecodedFromTheIbaLayout) {
    PortCounters pc;
    const auto rcv = details_block(5, {0x0102, 2, 3, 4, 5, 0xFFFF});
    merge_rcv_error_details(pc, PmaData(rcv.data(), 192));
    EXPECT_EQ(pc.get(Counter::PortLocalPhysicalErrors), 0x0102u);
    EXPECT_EQ(pc.get(Counter::PortMalformedPktErrors), 2u);
    EXPECT_EQ(pc.get(Counter::PortBufferOverrunErrors), 3u);
    EXPECT_EQ(pc.get(Counter::PortDLIDMappingErrors), 4u);
    EXPECT_EQ(pc.get(Counter::PortVLMappingErrors), 5u);
    EXPECT_EQ(pc.get(Counter::PortLoopingErrors), 0xFFFFu);
    EXPECT_FALSE(pc.get(Counter::PortInactiveDiscards));
    const auto xmit = details_block(5, {6, 7, 8, 9});
    merge_xmit_discard_details(pc, PmaData(xmit.data(), 192));
    EXPECT_EQ(pc.get(Counter::PortInactiveDiscards), 6u);
    EXPECT_EQ(pc.get(Counter::PortNeighborMTUDiscards), 7u);
    EXPECT_EQ(pc.get(Counter::PortSwLifetimeLimitDiscards), 8u);
    EXPECT_EQ(pc.get(Counter::PortSwHOQLifetimeLimitDiscards), 9u);
    EXPECT_EQ(counter_max(Counter::PortLoopingErrors, true), 0xFFFFu);
    EXPECT_EQ(detail_of(Counter::PortLoopingErrors), Counter::PortRcvErrors);
    EXPECT_EQ(detail_of(Counter::PortNeighborMTUDiscards), Counter::PortXmitDiscards);
    EXPECT_FALSE(detail_of(Counter::PortRcvErrors));
    EXPECT_EQ(parse_counter("PortSwHOQLifetimeLimitDiscards"),
              Counter::PortSwHOQLifetimeLimitDiscards);
}

PortCounters detail_reading(int64_t at_ms,
                            std::initializer_list<std::pair<Counter, uint64_t>> values) {
    PortCounters pc;
    pc.read_at_ms = at_ms;
    for (auto [c, v] : values) pc.set(c, v);
    return pc;
}

TEST(ErrorDetails, ADetailNotAskedBecauseItsTotalWasZeroCountsAsZero) {
    const PortCounters before = detail_reading(0, {{Counter::PortRcvErrors, 0}});
    const PortCounters after =
        detail_reading(10000, {{Counter::PortRcvErrors, 12}, {Counter::PortLoopingErrors, 12}});
    auto rise = counter_rise(before, after, Counter::PortLoopingErrors);
    ASSERT_TRUE(rise);
    EXPECT_EQ(rise->delta, 12u);
    // Not asked while the total was above zero (a refusing PMA): unknown.
    const PortCounters refused = detail_reading(0, {{Counter::PortRcvErrors, 3}});
    EXPECT_FALSE(counter_rise(refused, after, Counter::PortLoopingErrors));
}

TEST(ErrorDetails, EachCauseHasItsThresholdAndSaysWhatItPointsAt) {
    Fabric f = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    const PortRef port{f.find("leaf01")->guid, 3};
    CounterReadings before{
        {port, detail_reading(0, {{Counter::PortRcvErrors, 0}, {Counter::PortXmitDiscards, 0}})}};
    CounterReadings after{{port, detail_reading(10000, {{Counter::PortRcvErrors, 1},
                                                        {Counter::PortLoopingErrors, 1},
                                                        {Counter::PortXmitDiscards, 2},
                                                        {Counter::PortNeighborMTUDiscards, 2}})}};
    auto fs = check_counter_rates(f, before, after, default_thresholds());
    std::map<std::string, Finding> by_counter;
    for (const Finding& x : fs) by_counter[x.evidence["counter"].get<std::string>()] = x;
    // One looping packet is an error: a routing loop is never normal.
    ASSERT_TRUE(by_counter.count("PortLoopingErrors"));
    EXPECT_EQ(by_counter["PortLoopingErrors"].severity, Severity::Error);
    EXPECT_NE(by_counter["PortLoopingErrors"].summary.find("a loop in the forwarding tables"),
              std::string::npos)
        << by_counter["PortLoopingErrors"].summary;
    ASSERT_TRUE(by_counter.count("PortNeighborMTUDiscards"));
    EXPECT_NE(by_counter["PortNeighborMTUDiscards"].summary.find("MTU mismatch"),
              std::string::npos);
    // PortXmitDiscards' own limit is 100 per hour: 2 in 10 s is 720 per hour.
    EXPECT_TRUE(by_counter.count("PortXmitDiscards"));
    // The totals keep the text they had.
    EXPECT_EQ(by_counter["PortRcvErrors"].summary.find(": packets"), std::string::npos);
}

TEST(Ber, EstimateBoundsAndTheTimeToVouch) {
    // 4X HDR signals 212.5 Gb/s: 10 s carry 2.125e12 bits.
    auto e = estimate_ber(100, 10, Width::X4, Speed::HDR, 1e-12);
    ASSERT_TRUE(e);
    EXPECT_DOUBLE_EQ(e->line_gbps, 212.5);
    EXPECT_DOUBLE_EQ(e->bits, 2.125e12);
    EXPECT_NEAR(e->ber, 100 / 2.125e12, 1e-20);
    EXPECT_LT(e->lower, e->ber);
    EXPECT_GT(e->upper, e->ber);
    EXPECT_NEAR(e->lower * e->bits, 84.0, 0.5);  // chi-square: 95 % of 100 events
    EXPECT_NEAR(e->upper * e->bits, 117.6, 0.5);
    // No error: the rule of three. 1e-12 at 4X HDR needs 14.1 s, at 4X QDR 75 s.
    EXPECT_NEAR(seconds_to_vouch(Width::X4, Speed::HDR, 1e-12), 14.1, 0.05);
    EXPECT_NEAR(seconds_to_vouch(Width::X4, Speed::QDR, 1e-12), 74.9, 0.05);
    EXPECT_NEAR(seconds_to_vouch(Width::X1, Speed::EDR, 1e-12), 116.2, 0.1);
    EXPECT_FALSE(estimate_ber(1, 0, Width::X4, Speed::HDR, 1e-12));
}

TEST(Ber, OneErrorOnAShortIntervalIsNoBadLinkButManyAre) {
    Fabric f = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    const PortRef port{f.find("leaf01")->guid, 3};
    const Port* p = f.port(port);
    ASSERT_TRUE(p->width_active && p->speed_active);
    const double rate = lanes(*p->width_active) * lane_signal_gbps(*p->speed_active) * 1e9;
    auto check = [&](uint64_t errors, int64_t ms) {
        CounterReadings before{{port, detail_reading(0, {{Counter::SymbolErrorCounter, 0}})}};
        CounterReadings after{{port, detail_reading(ms, {{Counter::SymbolErrorCounter, errors}})}};
        return check_ber(f, before, after, BerLimit{});
    };
    // One error in 1 s: its point estimate may be above 1e-12 at this rate,
    // but a single event proves little: no finding.
    ASSERT_GT(1 / rate, 1e-12);
    EXPECT_TRUE(check(1, 1000).empty());
    // Enough errors that even the lower bound is above the limit.
    const auto errors = static_cast<uint64_t>(rate * 10 * 1e-11);  // BER 1e-11 over 10 s
    auto fs = check(errors, 10000);
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].kind, "bit_error_rate");
    EXPECT_EQ(fs[0].severity, Severity::Warning);
    EXPECT_NEAR(fs[0].evidence["ber"].get<double>(), 1e-11, 5e-13);  // errors rounded down
    EXPECT_GT(fs[0].evidence["ber_lower_95"].get<double>(), 1e-12);
    EXPECT_EQ(fs[0].where.size(), 2u);
    EXPECT_NE(fs[0].summary.find("leaf01[3]"), std::string::npos) << fs[0].summary;
    // A hundred times that is an error.
    fs = check(std::min<uint64_t>(errors * 100, 65534), 10000);
    ASSERT_EQ(fs.size(), 1u);
    EXPECT_EQ(fs[0].severity, Severity::Error);
}

TEST(Ber, TheThresholdsFileSetsTheLimits) {
    auto t = parse_thresholds("fabscope_thresholds: 1\nber: {warn: 1e-14, error: 1e-12}\n", "t");
    ASSERT_TRUE(t) << t.error().message;
    EXPECT_DOUBLE_EQ(t->ber.warn, 1e-14);
    EXPECT_DOUBLE_EQ(t->ber.error, 1e-12);
    EXPECT_DOUBLE_EQ(default_thresholds().ber.warn, 1e-12);
    EXPECT_FALSE(
        parse_thresholds("fabscope_thresholds: 1\nber: {warn: 1e-9, error: 1e-12}\n", "t"));
    EXPECT_FALSE(parse_thresholds("fabscope_thresholds: 1\nber: {warn: 0}\n", "t"));
    EXPECT_FALSE(parse_thresholds("fabscope_thresholds: 1\nber: {limit: 1e-12}\n", "t"));
    auto c = parse_thresholds(
        "fabscope_thresholds: 1\ncounters:\n  PortLoopingErrors: {limit: 5, per: 1h}\n", "t");
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->counters.at(Counter::PortLoopingErrors).limit, 5u);
}

}  // namespace
}  // namespace fabscope
