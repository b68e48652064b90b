// Directed routes as the lab's relay matches them against silent nodes.

#include "lab/dr_path.h"

#include <gtest/gtest.h>

#include <array>
#include <set>

namespace fabscope {
namespace {

// A 256-byte directed-route SMP with this initial path.
std::array<uint8_t, 256> smp(std::initializer_list<uint8_t> ports, uint8_t hop_count = 0) {
    std::array<uint8_t, 256> m{};
    m[1] = 0x81;
    m[DrPath::kHopCount] = hop_count ? hop_count : static_cast<uint8_t>(ports.size());
    size_t i = DrPath::kInitialPath + 1;
    for (uint8_t p : ports) m[i++] = p;
    return m;
}

TEST(DrPath, ReadsTheHopsOfTheInitialPath) {
    auto m = smp({1, 5, 3});
    DrPath p = DrPath::of_smp(m.data());
    EXPECT_EQ(p.hops, 3);
    EXPECT_EQ(p.port[0], 1);
    EXPECT_EQ(p.port[1], 5);
    EXPECT_EQ(p.port[2], 3);
    EXPECT_EQ(p.port[3], 0);
}

TEST(DrPath, AHopCountOver63IsCutTo63) {
    auto m = smp({1, 2}, 200);
    EXPECT_EQ(DrPath::of_smp(m.data()).hops, 63);
}

TEST(DrPath, APathLeadsThroughEveryPrefixOfItselfAndNothingElse) {
    auto m = smp({1, 5, 3});
    DrPath deep = DrPath::of_smp(m.data());
    auto a = smp({1, 5});
    auto b = smp({1, 6});
    auto c = smp({1, 5, 3, 2});
    auto local = smp({});
    EXPECT_TRUE(deep.starts_with(DrPath::of_smp(a.data())));
    EXPECT_TRUE(deep.starts_with(deep));
    EXPECT_TRUE(deep.starts_with(DrPath::of_smp(local.data())));
    EXPECT_FALSE(deep.starts_with(DrPath::of_smp(b.data())));
    EXPECT_FALSE(deep.starts_with(DrPath::of_smp(c.data())));
}

TEST(DrPath, PathsThatDifferOnlyInLengthAreDifferentSetEntries) {
    // {1} and {1, 0}: the same bytes in port[], told apart by the hop count.
    auto one = smp({1});
    auto two = smp({1, 0});
    std::set<DrPath> paths{DrPath::of_smp(one.data()), DrPath::of_smp(two.data()),
                           DrPath::of_smp(one.data())};
    EXPECT_EQ(paths.size(), 2u);
}

}  // namespace
}  // namespace fabscope
