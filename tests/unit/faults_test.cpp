#include "lab/faults.h"

#include <gtest/gtest.h>

namespace fabscope {
namespace {

std::vector<std::string> cmds(std::vector<std::string> words) {
    auto f = parse_fault(words);
    EXPECT_TRUE(f) << (f ? "" : f.error().message);
    return f ? console_commands(*f) : std::vector<std::string>{};
}

TEST(Faults, PortTargets) {
    auto t = parse_port_target("leaf01[5]");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->node, "leaf01");
    EXPECT_EQ(t->port, 5);
    t = parse_port_target("h0003:1");
    ASSERT_TRUE(t);
    EXPECT_EQ(t->node, "h0003");
    EXPECT_FALSE(parse_port_target("leaf01"));
    EXPECT_FALSE(parse_port_target("leaf01[x]"));
    EXPECT_FALSE(parse_port_target("leaf01[300]"));
}

TEST(Faults, ConsoleCommands) {
    EXPECT_EQ(cmds({"link-down", "leaf01[5]"}), std::vector<std::string>{"Unlink \"leaf01\"[5]"});
    EXPECT_EQ(cmds({"link-up", "leaf01[5]"}), std::vector<std::string>{"ReLink \"leaf01\"[5]"});
    EXPECT_EQ(cmds({"counter", "leaf04[5]", "SymbolErrorCounter=5000",
                    "PortCountersExtended.PortXmitData=9"}),
              (std::vector<std::string>{
                  "PerformanceSet \"leaf04\"[5] PortCounters.SymbolErrorCounter=5000",
                  "PerformanceSet \"leaf04\"[5] PortCountersExtended.PortXmitData=9"}));
    EXPECT_EQ(cmds({"mad-drop", "spine01[3]", "100"}),
              std::vector<std::string>{"Error \"spine01\"[3] 100"});
    EXPECT_EQ(cmds({"mad-drop", "spine01[3]", "50", "PortInfo"}),
              std::vector<std::string>{"Error \"spine01\"[3] 50 21"});
    EXPECT_EQ(cmds({"console", "Dump", "\"leaf01\""}), std::vector<std::string>{"Dump \"leaf01\""});
    EXPECT_TRUE(
        cmds({"width", "leaf01[5]", "1x"}).empty());  // done by a PortInfo Set, not the console
}

TEST(Faults, BadWordsGiveUsage) {
    for (auto words :
         std::vector<std::vector<std::string>>{{},
                                               {"explode", "leaf01[1]"},
                                               {"width", "leaf01[5]"},
                                               {"width", "leaf01[5]", "3x"},
                                               {"speed", "leaf01[5]", "ndr"},
                                               {"counter", "leaf01[5]", "NoSuchCounter=1"},
                                               {"counter", "leaf01[5]", "SymbolErrorCounter=-1"},
                                               {"counter", "leaf01[5]", "SymbolErrorCounter"},
                                               {"mad-drop", "leaf01[5]", "101"},
                                               {"mad-drop", "leaf01[5]", "5", "Bogus"}}) {
        auto f = parse_fault(words);
        EXPECT_FALSE(f);
        if (!f) {
            EXPECT_EQ(f.error().code, 2);
            // One line: the whole fault table once came with it.
            EXPECT_EQ(f.error().message.find('\n'), std::string::npos) << f.error().message;
        }
    }
}

TEST(Faults, SwapRefusesOneCablesEndsAndPortsAlreadySwapped) {
    PortTarget a{"leaf01", 5}, pa{"spine01", 1}, b{"leaf02", 5}, pb{"spine01", 2};
    EXPECT_TRUE(check_swap({}, a, pa, b, pb));
    // Both ends of one cable.
    auto r = check_swap({}, a, pa, pa, a);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, 2);
    EXPECT_NE(r.error().message.find("two ends of one cable"), std::string::npos);
    // The same swap again, or one touching a cable an earlier swap moved.
    std::vector<CableSwap> done{{"leaf01[5]", "leaf02[5]"}};
    EXPECT_FALSE(check_swap(done, a, pa, b, pb));
    EXPECT_FALSE(check_swap(done, b, pb, a, pa));
    EXPECT_FALSE(check_swap(done, PortTarget{"leaf03", 5}, PortTarget{"spine02", 3}, pa, a));
    EXPECT_TRUE(check_swap(done, PortTarget{"leaf03", 5}, PortTarget{"spine02", 3},
                           PortTarget{"leaf04", 5}, PortTarget{"spine02", 4}));
    auto f = parse_fault({"restore-cabling"});
    ASSERT_TRUE(f);
    EXPECT_EQ(f->kind, Fault::Kind::RestoreCabling);
    EXPECT_FALSE(parse_fault({"restore-cabling", "leaf01[5]"}));
}

}  // namespace
}  // namespace fabscope
