// The ethtool statistics files (`ethtool -S` / `ethtool -a` text) and the
// per-priority view of mlx5's names.

#include "congestion/ethtool_stats.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace fabscope {
namespace {

TEST(EthtoolStats, ParsesWhatEthtoolPrints) {
    auto m = parse_ethtool_stats(
        "NIC statistics:\n     rx_prio3_pause: 12\n     tx_prio3_pause_duration: 4500\n"
        "     rx_discards_phy: 0\n",
        "eth0.stats");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->size(), 3u);
    EXPECT_EQ(m->at("rx_prio3_pause"), 12u);
    EXPECT_EQ(m->at("tx_prio3_pause_duration"), 4500u);
}

TEST(EthtoolStats, ABadLineNamesTheFileAndLine) {
    auto m = parse_ethtool_stats("NIC statistics:\n     rx_prio3_pause: -1\n", "eth0.stats");
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("eth0.stats:2:"), std::string::npos) << m.error().message;
    EXPECT_FALSE(parse_ethtool_stats("rx_pause 3\n", "f"));
    EXPECT_FALSE(
        parse_ethtool_stats(std::string(40, 'x') + ": 1\n", "f"));  // longer than ETH_GSTRING_LEN
}

TEST(EthtoolStats, PauseSettingsAsEthtoolAPrintsThem) {
    auto p = parse_ethtool_pause(
        "Pause parameters for eth0:\nAutonegotiate:\toff\nRX:\t\ton\nTX:\t\toff\n", "eth0.pause");
    ASSERT_TRUE(p) << p.error().message;
    EXPECT_FALSE(p->autoneg);
    EXPECT_TRUE(p->rx);
    EXPECT_FALSE(p->tx);
    EXPECT_FALSE(parse_ethtool_pause("RX: maybe\n", "f"));
    EXPECT_FALSE(parse_ethtool_pause("nothing here\n", "f"));
}

TEST(EthtoolStats, PriorityViewByMlx5Names) {
    CounterMap m{{"rx_prio3_pause", 7},
                 {"tx_prio3_pause_duration", 900},
                 {"rx_prio3_discards", 2},
                 {"rx_prio0_pause", 1}};
    PriorityCounters c = priority_counters(m, 3);
    EXPECT_EQ(c.rx_pause, 7u);
    EXPECT_EQ(c.tx_pause_duration, 900u);
    EXPECT_EQ(c.rx_discards, 2u);
    EXPECT_FALSE(c.tx_pause.has_value());
    EXPECT_EQ(prio_stat("tx", 5, "pause_transition"), "tx_prio5_pause_transition");
}

TEST(EthtoolStats, FixtureSourceReadsStatsAndPauseFiles) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("fabscope-ethtool-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "eth1.stats") << "NIC statistics:\n     rx_prio3_pause: 5\n";
    std::ofstream(dir / "eth1.pause") << "Autonegotiate:\ton\nRX:\ton\nTX:\ton\n";
    ManualClock clock;
    FixtureEthtoolSource src(dir.string(), clock);
    auto r = src.read("eth1");
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->stats.at("rx_prio3_pause"), 5u);
    ASSERT_TRUE(r->pause.has_value());
    EXPECT_TRUE(r->pause->tx);
    EXPECT_EQ(r->read_at_ms, clock.unix_ms());
    auto missing = src.read("eth9");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("eth9.stats"), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace fabscope
