// PMA and forwarding-table decoders on replies captured from the lab
// (tests/fixtures/smp/README.md says how, and what perfquery and ibroute printed).

#include "discover/pma_decode.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include "discover/smp_decode.h"

namespace fabscope {
namespace {

std::map<std::string, std::vector<uint8_t>> load(const std::string& name) {
    std::ifstream in(std::string(FIXTURES_DIR) + "/smp/" + name + ".hex");
    EXPECT_TRUE(in) << name;
    std::map<std::string, std::vector<uint8_t>> out;
    std::string line;
    std::string current;
    while (std::getline(in, line)) {
        if (line.rfind("# ", 0) == 0) {
            current = line.substr(2, line.rfind(' ') - 2);
            continue;
        }
        std::istringstream ls(line);
        std::string byte;
        while (ls >> byte)
            out[current].push_back(static_cast<uint8_t>(std::stoul(byte, nullptr, 16)));
    }
    return out;
}

TEST(PmaDecode, PortCountersAsPerfqueryPrintedThem) {
    auto f = load("leaf04-port5-counters");
    ASSERT_EQ(f["PortCounters"].size(), 192u);
    PortCounters pc = decode_port_counters(PmaData(f["PortCounters"].data(), 192));
    EXPECT_EQ(pma_port_select(PmaData(f["PortCounters"].data(), 192)), 5);
    EXPECT_EQ(pc.get(Counter::SymbolErrorCounter), 5000u);
    EXPECT_EQ(pc.get(Counter::LinkErrorRecoveryCounter), 12u);
    EXPECT_EQ(pc.get(Counter::LinkDownedCounter), 3u);
    EXPECT_EQ(pc.get(Counter::PortRcvErrors), 77u);
    EXPECT_EQ(pc.get(Counter::PortRcvRemotePhysicalErrors), 0u);
    EXPECT_EQ(pc.get(Counter::PortXmitDiscards), 1234u);
    EXPECT_EQ(pc.get(Counter::LocalLinkIntegrityErrors), 2u);
    EXPECT_EQ(pc.get(Counter::ExcessiveBufferOverrunErrors), 5u);
    EXPECT_EQ(pc.get(Counter::VL15Dropped), 9u);
    EXPECT_EQ(pc.get(Counter::PortXmitWait), 4000000u);
    EXPECT_FALSE(pc.extended);
    // The simulator keeps PortCounters' 32-bit PortXmitData apart from the
    // extended one that the fault set: it only counts the simulated MADs.
    EXPECT_EQ(pc.get(Counter::PortXmitData), 0x6198u);

    ASSERT_EQ(f["PortCountersExtended"].size(), 192u);
    merge_port_counters_extended(pc, PmaData(f["PortCountersExtended"].data(), 192));
    EXPECT_TRUE(pc.extended);
    EXPECT_GE(*pc.get(Counter::PortXmitData), 123456789012u);
    EXPECT_LE(*pc.get(Counter::PortXmitData), 123456789372u);
    EXPECT_GT(*pc.get(Counter::PortRcvPkts), 0u);
    EXPECT_EQ(pc.get(Counter::PortUnicastXmitPkts), 0u);
    EXPECT_EQ(pc.get(Counter::SymbolErrorCounter), 5000u);  // untouched by the merge
}

TEST(SmpDecode, LinearForwardingTableBlock) {
    auto f = load("leaf01-lft-block0");
    const auto& b = f["LinearForwardingTable"];
    ASSERT_EQ(b.size(), 64u);
    // As ibroute -n printed it.
    std::vector<uint8_t> want{0xFF, 1, 0, 5, 5, 2, 5, 5, 3, 6, 4};
    for (size_t lid = 1; lid < want.size(); ++lid) EXPECT_EQ(b[lid], want[lid]) << "LID " << lid;
    for (size_t lid = 11; lid <= 22; ++lid) EXPECT_EQ(b[lid], lid % 2 ? 5 : 6) << "LID " << lid;
    EXPECT_EQ(b[23], 0xFF);  // beyond LinearFDBTop
}

TEST(Counters, NamesAndWidths) {
    EXPECT_EQ(parse_counter("PortXmitWait"), Counter::PortXmitWait);
    EXPECT_FALSE(parse_counter("Bogus"));
    EXPECT_EQ(counter_bits(Counter::SymbolErrorCounter, true), 16);
    EXPECT_EQ(counter_bits(Counter::LinkDownedCounter, false), 8);
    EXPECT_EQ(counter_bits(Counter::LocalLinkIntegrityErrors, false), 4);
    EXPECT_EQ(counter_bits(Counter::PortXmitData, false), 32);
    EXPECT_EQ(counter_bits(Counter::PortXmitData, true), 64);
    EXPECT_TRUE(is_error_counter(Counter::PortRcvErrors));
    EXPECT_FALSE(is_error_counter(Counter::PortXmitWait));
}

}  // namespace
}  // namespace fabscope
