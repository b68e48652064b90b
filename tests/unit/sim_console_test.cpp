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

}  // namespace
}  // namespace fabscope
