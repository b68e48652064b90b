// The counters behind a suspect (mesh/evidence): sums over flows, what
// counts as an event, and counters from peers that are not counters.

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "mesh/evidence.h"

namespace fabscope::perf {
namespace {

MeshRunData two_flows(nlohmann::json a, nlohmann::json b) {
    MeshRunData d;
    d.flows.push_back({.src = 0, .dst = 1, .measured = true, .ok = true});
    d.flows.push_back({.src = 1, .dst = 0, .measured = true, .ok = true});
    d.flows[0].counters = std::move(a);
    d.flows[1].counters = std::move(b);
    return d;
}

TEST(MeshEvidence, SumsTheAskedEndOverTheFlows) {
    auto d = two_flows({{"local", {{"completer_retry_err", 3}, {"sent_pkts", 100}}},
                        {"remote", {{"duplicate_request", 40}}}},
                       {{"local", {{"completer_retry_err", 2}}}});
    FlowCounters both = sum_flow_counters(d, {0, 1}, FlowEnd::Both);
    EXPECT_EQ(both.flows, 2u);
    EXPECT_EQ(both.counted, 2u);
    EXPECT_EQ(
        both.sum,
        (CounterMap{{"completer_retry_err", 5}, {"duplicate_request", 40}, {"sent_pkts", 100}}));
    FlowCounters rx = sum_flow_counters(d, {0, 1}, FlowEnd::Receiver);
    EXPECT_EQ(rx.counted, 1u);  // the second flow's receiver said nothing
    EXPECT_EQ(rx.sum, (CounterMap{{"duplicate_request", 40}}));
    EXPECT_EQ(sum_flow_counters(d, {}, FlowEnd::Both).flows, 0u);
    EXPECT_EQ(sum_flow_counters(d, {7}, FlowEnd::Both).flows, 0u);  // no such flow
}

TEST(MeshEvidence, WhatAPeerSentThatIsNoCounterIsNotCounted) {
    const uint64_t big = std::numeric_limits<uint64_t>::max() - 1;
    auto d = two_flows({{"local",
                         {{"neg", -5},
                          {"float", 1.5},
                          {"text", "12"},
                          {"list", {1, 2}},
                          {std::string(65, 'x'), 9},
                          {"port_xmit_wait", big}}}},
                       {{"local", {{"port_xmit_wait", 7}}}, {"remote", "not an object"}});
    FlowCounters c = sum_flow_counters(d, {0, 1}, FlowEnd::Both);
    EXPECT_EQ(c.sum, (CounterMap{{"port_xmit_wait", std::numeric_limits<uint64_t>::max()}}));
    // At most kMaxCounterNames names.
    nlohmann::json many = nlohmann::json::object();
    for (size_t i = 0; i < kMaxCounterNames + 10; ++i) many[std::to_string(i)] = 1;
    auto m = two_flows({{"local", many}}, nlohmann::json::array());
    FlowCounters capped = sum_flow_counters(m, {0, 1}, FlowEnd::Both);
    EXPECT_EQ(capped.sum.size(), kMaxCounterNames);
    EXPECT_EQ(capped.counted, 1u);
}

TEST(MeshEvidence, EventsAreErrorsWaitsAndMarksNotTraffic) {
    for (const char* e :
         {"symbol_error", "port_rcv_errors", "port_xmit_wait", "link_downed", "rcvd_seq_err",
          "duplicate_request", "np_ecn_marked_roce_packets", "np_cnp_sent", "local_ack_timeout_err",
          "port_xmit_discards", "excessive_buffer_overrun_errors", "rnr_nak_retry_err"})
        EXPECT_TRUE(is_event_counter(e)) << e;
    for (const char* t :
         {"port_xmit_data", "port_rcv_packets", "unicast_xmit_packets", "sent_pkts", "rcvd_pkts",
          "rx_write_requests", "rdma_sends", "lifespan", "ack_deferred"})
        EXPECT_FALSE(is_event_counter(t)) << t;
}

TEST(MeshEvidence, TheLineNamesTheLargestEventsFirst) {
    CounterMap m{{"a_err", 1}, {"b_err", 30}, {"c_err", 20},
                 {"d_err", 5}, {"e_err", 2},  {"sent_pkts", 1000}};
    EXPECT_EQ(event_counters_line(m), "b_err +30, c_err +20, d_err +5, e_err +2 and 1 more");
    EXPECT_EQ(event_counters_line({{"sent_pkts", 5}}), "");
}

}  // namespace
}  // namespace fabscope::perf
