// The exporter's parts that need no fabric: --listen parsing, and the
// published state a scrape reads (the last good sweep survives a failure).

#include <gtest/gtest.h>

#include "exporter/listen_address.h"
#include "exporter/metrics_state.h"
#include "test_fabrics.h"
#include "util/exit_status.h"

namespace fabscope {
namespace {

TEST(ListenAddress, AcceptsIpv4Ipv6AndLocalhost) {
    auto a = parse_listen_address("127.0.0.1:9775");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "127.0.0.1");
    EXPECT_EQ(a->port, 9775);
    a = parse_listen_address("[::1]:0");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "::1");
    EXPECT_EQ(a->port, 0);
    EXPECT_EQ(to_string(*a), "[::1]:0");
    a = parse_listen_address("localhost:80");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "127.0.0.1");
}

TEST(ListenAddress, RefusesWhatIsNoAddressAndPort) {
    for (const char* s :
         {"9775", ":9775", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:-1", "127.0.0.1:97x",
          "example.com:9775", "::1:9775", "[127.0.0.1]:1", "300.1.1.1:9775"}) {
        auto a = parse_listen_address(s);
        ASSERT_FALSE(a) << s;
        EXPECT_EQ(a.error().code, kExitUsage);
        EXPECT_NE(a.error().message.find(std::string("--listen ") + s), std::string::npos);
    }
}

TEST(MetricsState, AFailedSweepKeepsTheLastGoodOneAndCountsIt) {
    MetricsState state("0.1.0");
    EXPECT_NE(state.metrics()->find("fabscope_last_sweep_success 0\n"), std::string::npos);
    auto view = std::make_shared<SweepView>();
    view->fabric = testing::leaf_spine({});
    view->duration_s = 0.5;
    state.publish(view);
    auto first = state.metrics();
    EXPECT_NE(first->find("fabscope_last_sweep_success 1\n"), std::string::npos);
    EXPECT_NE(first->find("node=\"leaf01\""), std::string::npos);
    state.publish_failure();
    auto second = state.metrics();
    EXPECT_NE(second->find("fabscope_last_sweep_success 0\n"), std::string::npos);
    EXPECT_NE(second->find("fabscope_sweeps_total 2\n"), std::string::npos);
    EXPECT_NE(second->find("fabscope_sweep_failures_total 1\n"), std::string::npos);
    EXPECT_NE(second->find("node=\"leaf01\""), std::string::npos);
    // A scrape holds its own text: a publication does not change it under it.
    EXPECT_NE(first->find("fabscope_sweeps_total 1\n"), std::string::npos);
}

}  // namespace
}  // namespace fabscope
