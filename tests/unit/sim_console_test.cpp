#include "lab/sim_console.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

TEST(SimConsole, ParsesAttachedClients) {
    // As ibsim 0.10 prints it.
    const char* text =
        "Client 0: pid 4756 connected at \"h0001\" port 0x100001, lid 1, qp 0 SM\n"
        "Client 1: pid 4811 connected at \"h0001\" port 0x100001, lid 1, qp 0\n";
    auto c = parse_attached(text);
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].number, 0);
    EXPECT_EQ(c[0].pid, 4756);
    EXPECT_EQ(c[1].number, 1);
    EXPECT_EQ(c[1].pid, 4811);
    EXPECT_EQ(c[1].attached_at, "h0001");
    EXPECT_TRUE(parse_attached("").empty());
}

TEST(SimConsole, ReadsAPortStateFromADump) {
    // As ibsim 0.10 answers `Dump "leaf02"`, port 2 unlinked, port 3 linked
    // but not yet made Active by the SM.
    const char* text =
        "# Net status - Wed Dec  2 14:17:21 2026\n\n"
        "Switch 2 \"leaf02\"\tnodeguid 200001\tsysimgguid 200001\n"
        "#\tlinearcap 30720 FDBtop 5 portchange 1\n"
        "#\tForwarding table 0-5: [0]FF [1]2 [2]2 [3]0 [4]2 [5]1\n"
        "200001\t[0]\t\"Sma Port\"[0]\t lid 3 lmc 0 smlid 1  4x  2.5G Active/LinkUp\n"
        "200001\t[1]\t\"h0002\"[1]\t  4x 50G Active/LinkUp\n"
        "200001\t[2]\t\t\t  4x 50G Down/Polling\n"
        "200001\t[3]\t\"spine01\"[2]\t  4x 50G Initialize/LinkUp \n"
        "200001\t[4]\t\"spine02\"[2]\t  4x 50G Active/LinkUp\t# err_rate 50\n"
        "#  dumped 1 nodes\n";
    EXPECT_EQ(dumped_port_state(text, 0), "Active");
    EXPECT_EQ(dumped_port_state(text, 1), "Active");
    EXPECT_EQ(dumped_port_state(text, 2), "Down");
    EXPECT_EQ(dumped_port_state(text, 3), "Initialize");
    EXPECT_EQ(dumped_port_state(text, 4), "Active");
    EXPECT_EQ(dumped_port_state(text, 5), std::nullopt);
    EXPECT_EQ(dumped_port_state("# nodeid \"nosuch\" not found\n", 1), std::nullopt);
    EXPECT_EQ(dumped_port_state("200001\t[1]\t\"h0002\"[1]\t  4x 50G\n", 1), std::nullopt);
}

}  // namespace
}  // namespace fabscope
