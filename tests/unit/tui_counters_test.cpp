// The counters view puts the ports that got worse first: the highest error
// rate in the kept history, then the rate now, then the name.

#include <gtest/gtest.h>

#include <sstream>

#include "test_fabrics.h"
#include "tui/views.h"
#include "tui_scenario.h"

namespace fabscope::tui {
namespace {

std::vector<std::string> rows(const TuiData& d, CounterSort sort) {
    ViewState s;
    s.view = ViewId::Counters;
    s.counter_sort = sort;
    Canvas c(120, 40);
    draw_frame(&d, s, c, FrameInfo{});
    std::vector<std::string> out;
    std::istringstream in(c.to_text());
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return {out.begin() + 4, out.begin() + 8};  // the first rows under the heading
}

TEST(TuiCounters, ThePortThatGotWorseComesFirstThoughItStoppedRising) {
    auto nodes = testing::leaf_spine_nodes({.spines = 2, .leaves = 4, .hosts_per_leaf = 4});
    DataBuilder b(BuilderConfig{});
    b.add(testing::counted_reading(nodes, testing::kFirstReadingMs));
    // leaf03[2] gathers 1000 symbol errors between the first and second
    // readings, and none after; leaf04[5] a few, and still rising.
    auto second = nodes;
    Reading r2 = testing::counted_reading(second, testing::kFirstReadingMs + 1000);
    auto bump = [](Reading& r, Guid node, uint8_t port, uint64_t v) {
        std::vector<Node> ns = r.snapshot.fabric.nodes();
        for (Node& n : ns)
            if (n.guid == node) n.port(port)->counters->set(Counter::SymbolErrorCounter, v);
        r.snapshot.fabric = Fabric::build(std::move(ns)).value();
    };
    bump(r2, 0x2003, 2, 1000);
    bump(r2, 0x2004, 5, 2);
    b.add(r2);
    Reading r3 =
        testing::counted_reading(r2.snapshot.fabric.nodes(), testing::kFirstReadingMs + 2000);
    bump(r3, 0x2004, 5, 4);
    const auto d = b.add(r3);

    const auto errors = rows(*d, CounterSort::Errors);
    EXPECT_EQ(errors[0].rfind("leaf03[2] → h0010", 0), 0u) << errors[0];
    EXPECT_EQ(errors[1].rfind("leaf04[5] → spine01", 0), 0u) << errors[1];
    // By name, it is where its name puts it.
    const auto by_name = rows(*d, CounterSort::Name);
    EXPECT_EQ(by_name[0].rfind("h0001", 0), 0u) << by_name[0];
}

}  // namespace
}  // namespace fabscope::tui
