#include "discover/mad_engine.h"

#include <gtest/gtest.h>

#include "fake_fabric.h"
#include "test_fabrics.h"

namespace fabscope {
namespace {

using namespace std::chrono_literals;

struct EngineRig {
    Fabric fabric = testing::leaf_spine({.spines = 2, .leaves = 2, .hosts_per_leaf = 2});
    testing::FakeClock clock;
    testing::FakeFabric fake{fabric, fabric.nodes().front().guid, 1, clock};
};

mad::Request node_info(std::vector<uint8_t> path) {
    return mad::Request{mad::kClassSmpDirected, mad::kAttrNodeInfo, 0,
                        mad::Address{std::move(path), 0}, 0};
}

TEST(MadEngine, BusyIsAskedAgainUntilTheDeadlines) {
    EngineRig rig;
    rig.fake.behaviour(rig.fabric.find("leaf01")->guid).status = 0x0001;  // busy, forever
    MadEngine engine(rig.fake, rig.clock,
                     EngineOptions{.window = 4, .timeout = 100ms, .retries = 2, .backoff = 2.0});
    MadResult got;
    engine.submit(node_info({1}), [&](const MadResult& r) { got = r; });
    engine.run();
    EXPECT_EQ(got.outcome, MadResult::Outcome::Timeout);
    EXPECT_EQ(got.attempts, 3);
    EXPECT_EQ(rig.clock.now() - Clock::time_point{}, 700ms);  // 100 + 200 + 400
}

TEST(MadEngine, BadStatusIsNotRetried) {
    EngineRig rig;
    rig.fake.behaviour(rig.fabric.find("leaf01")->guid).status = 0x001C;
    MadEngine engine(rig.fake, rig.clock, EngineOptions{});
    MadResult got;
    engine.submit(node_info({1}), [&](const MadResult& r) { got = r; });
    engine.run();
    EXPECT_EQ(got.outcome, MadResult::Outcome::BadStatus);
    EXPECT_EQ(got.mad_status, 0x001C);
    EXPECT_EQ(got.attempts, 1);
    EXPECT_EQ(got.detail, "invalid attribute or modifier");
}

TEST(MadEngine, AnOptionalGetTheSimulatorReturnsCostsNoDeadline) {
    // ibsim returns a PMA Get it does not implement at once, with transport
    // status 110: tried again and given up on without waiting for a deadline,
    // and no timeout of the fabric.
    EngineRig rig;
    const Node* leaf = rig.fabric.find("leaf01");
    rig.fake.pma_returned.insert(leaf->guid);
    MadEngine engine(rig.fake, rig.clock,
                     EngineOptions{.window = 4, .timeout = 100ms, .retries = 2, .backoff = 2.0});
    MadResult got;
    engine.submit_optional(
        mad::Request{mad::kClassPerf, mad::kAttrPortSamplesControl, 0, {{}, leaf->lid()}, 1},
        [&](const MadResult& r) { got = r; });
    engine.run();
    EXPECT_EQ(got.outcome, MadResult::Outcome::Timeout);
    EXPECT_TRUE(got.lost);
    EXPECT_EQ(got.attempts, 3);
    EXPECT_LT(rig.clock.now() - Clock::time_point{}, 100ms);
    EXPECT_EQ(engine.stats().timeouts, 0u);
    EXPECT_EQ(engine.stats().optional_unanswered, 1u);
    // What it does implement it answers as before.
    engine.submit(mad::Request{mad::kClassPerf, mad::kAttrPortCounters, 0, {{}, leaf->lid()}, 1},
                  [&](const MadResult& r) { got = r; });
    engine.run();
    EXPECT_TRUE(got.ok()) << got.detail;
}

TEST(MadEngine, AnOptionalAttributeLeftUnansweredIsNoTimeout) {
    EngineRig rig;
    for (const Node& n : rig.fabric.nodes()) rig.fake.vl_xmit_wait_ignored.insert(n.guid);
    MadEngine engine(rig.fake, rig.clock, EngineOptions{.timeout = 50ms});
    int refused = 0;
    int asked = 0;
    for (const Node& n : rig.fabric.nodes()) {
        if (n.lid() == 0) continue;
        ++asked;
        engine.submit_optional(mad::Request{mad::kClassPerf,
                                            mad::kAttrPortVLXmitWaitCounters,
                                            0,
                                            {{}, n.lid()},
                                            n.ports.back().num},
                               [&](const MadResult& r) { refused += !r.ok(); });
    }
    engine.run();
    ASSERT_GT(asked, 0);
    EXPECT_EQ(refused, asked);
    EXPECT_EQ(engine.stats().timeouts, 0u);
    EXPECT_EQ(engine.stats().optional_unanswered, static_cast<uint64_t>(asked));
}

TEST(MadEngine, ADeadPathFailsEverythingBehindItWithoutSending) {
    EngineRig rig;
    rig.fake.behaviour(rig.fabric.find("leaf01")->guid).silent = true;
    MadEngine engine(rig.fake, rig.clock,
                     EngineOptions{.window = 1, .timeout = 50ms, .retries = 0});
    std::vector<MadResult::Outcome> outcomes;
    auto record = [&](const MadResult& r) { outcomes.push_back(r.outcome); };
    engine.submit(node_info({1}), record);
    for (uint8_t p = 3; p <= 4; ++p) engine.submit(node_info({1, p}), record);  // behind leaf01
    engine.submit(node_info({}), record);  // the local host: fine
    engine.run();
    EXPECT_EQ(outcomes, (std::vector<MadResult::Outcome>{
                            MadResult::Outcome::Timeout, MadResult::Outcome::Unreachable,
                            MadResult::Outcome::Unreachable, MadResult::Outcome::Ok}));
    EXPECT_EQ(engine.stats().sent, 2u);
    EXPECT_TRUE(engine.is_dead("dr:1"));
}

TEST(MadEngine, FailureBudgetAllowsSomeFailuresBeforeGivingUp) {
    EngineRig rig;
    rig.fake.behaviour(rig.fabric.find("leaf01")->guid).silent = true;
    MadEngine engine(
        rig.fake, rig.clock,
        EngineOptions{.window = 1, .timeout = 50ms, .retries = 0, .failure_budget = 2});
    int timeouts = 0;
    for (int i = 0; i < 4; ++i) {
        engine.submit(node_info({1}), [&](const MadResult& r) {
            timeouts += r.outcome == MadResult::Outcome::Timeout;
        });
    }
    engine.run();
    EXPECT_EQ(timeouts, 2);
    EXPECT_EQ(engine.stats().unreachable, 2u);
}

TEST(MadEngine, ChainDepthIsTheLongestDependency) {
    EngineRig rig;
    MadEngine engine(rig.fake, rig.clock, EngineOptions{});
    engine.submit(node_info({}), [&](const MadResult&) {
        engine.submit(node_info({1}), [&](const MadResult&) {
            engine.submit(node_info({1, 3}), [](const MadResult&) {});
        });
        engine.submit(node_info({1}), [](const MadResult&) {});
    });
    engine.run();
    EXPECT_EQ(engine.stats().max_chain, 3);
    EXPECT_EQ(engine.stats().sent, 4u);
}

TEST(MadEngine, AFeederIsAskedAsTheQueueDrainsAndTheRunEndsWhenItHasNothingMore) {
    EngineRig rig;
    MadEngine engine(rig.fake, rig.clock, EngineOptions{.window = 8});
    int queued = 0;
    int answered = 0;
    int most_waiting = 0;
    int deferred_depth = 0;
    std::vector<int> later;  // found in callbacks, fed afterwards (as the topology walk does)
    auto feed = [&] {
        most_waiting = std::max(most_waiting, queued - answered);
        if (queued < 2000) {
            ++queued;
            engine.submit(node_info({1}), [&](const MadResult&) {
                ++answered;
                if (answered == 2000) later.push_back(engine.chain_depth());
            });
            return true;
        }
        if (later.empty()) return false;
        MadEngine::ChainOf after(engine, later.back());
        later.pop_back();
        engine.submit(node_info({1, 3}),
                      [&](const MadResult&) { deferred_depth = engine.chain_depth(); });
        return true;
    };
    engine.run(feed, 32);
    EXPECT_EQ(answered, 2000);
    EXPECT_EQ(deferred_depth, 2);  // fed after its answer, counted as waiting for it
    EXPECT_EQ(engine.stats().max_chain, 2);
    EXPECT_EQ(engine.stats().sent, 2001u);
    // At most the low water mark queued beside the window in flight, not 2,000.
    EXPECT_LE(most_waiting, 32 + 8);
}

TEST(MadEngine, AStopSendsNothingNewLetsInFlightFinishAndCancelsTheRest) {
    EngineRig rig;
    rig.fake.behaviour(rig.fabric.find("spine01")->guid).silent = true;  // in flight at the stop
    StopToken stop;
    MadEngine engine(rig.fake, rig.clock,
                     EngineOptions{.window = 2, .timeout = 100ms, .retries = 3, .stop = &stop});
    std::vector<MadResult::Outcome> outcomes;
    auto record = [&](const MadResult& r) { outcomes.push_back(r.outcome); };
    engine.submit(node_info({}), [&](const MadResult& r) {
        record(r);
        stop.request_stop();  // Ctrl-C while {2} waits for its answer
    });
    engine.submit(node_info({1, 3}), record);  // the silent spine01: no retry after the stop
    for (uint8_t p : {1, 2, 4}) engine.submit(node_info({1, p}), record);
    engine.submit(node_info({1}), record);
    engine.run();
    using O = MadResult::Outcome;
    EXPECT_EQ(outcomes, (std::vector<O>{O::Ok, O::Cancelled, O::Cancelled, O::Cancelled,
                                        O::Cancelled, O::Cancelled}));
    EXPECT_EQ(engine.stats().sent, 2u);  // nothing after the stop, and no retry
    EXPECT_TRUE(engine.cancelled());
    // The silent one had its first deadline, no more.
    EXPECT_EQ(rig.clock.now() - Clock::time_point{}, 100ms);
}

TEST(MadFormat, EncodesDirectedRouteAndPmaGets) {
    mad::Request r{mad::kClassSmpDirected, mad::kAttrPortInfo, 5, mad::Address{{1, 7, 3}, 0}, 0};
    MadBytes m = mad::encode_get(r, 0x1122334455667788ULL);
    EXPECT_EQ(m[0], 1);
    EXPECT_EQ(m[1], 0x81);
    EXPECT_EQ(m[3], 0x01);
    EXPECT_EQ(m[6], 0);  // hop pointer
    EXPECT_EQ(m[7], 3);  // hop count
    EXPECT_EQ(m[8], 0x11);
    EXPECT_EQ(m[15], 0x88);
    EXPECT_EQ(m[17], 0x15);
    EXPECT_EQ(m[23], 5);
    EXPECT_EQ(m[32], 0xFF);  // DrSLID permissive
    EXPECT_EQ(m[35], 0xFF);  // DrDLID permissive
    EXPECT_EQ((std::vector<uint8_t>{m[129], m[130], m[131]}), (std::vector<uint8_t>{1, 7, 3}));
    mad::Header h = mad::decode_header(m);
    EXPECT_EQ(h.tid, 0x1122334455667788ULL);
    EXPECT_EQ(h.attr_mod, 5u);

    mad::Request pma{mad::kClassPerf, mad::kAttrPortCountersExtended, 0, mad::Address{{}, 17}, 9};
    MadBytes p = mad::encode_get(pma, 1);
    EXPECT_EQ(p[1], 0x04);
    EXPECT_EQ(p[17], 0x1D);
    EXPECT_EQ(p[65], 9);  // PortSelect
    EXPECT_EQ(mad::Address({}, 17).str(), "LID 17");
    EXPECT_EQ(mad::Address({1, 7}, 0).str(), "DR 0,1,7");

    MadBytes resp = mad::make_response(m, std::vector<uint8_t>(64, 0xAB), 0);
    mad::Header rh = mad::decode_header(resp);
    EXPECT_EQ(rh.method, 0x81);
    EXPECT_EQ(rh.status, 0);  // the D bit is not status
    EXPECT_EQ(resp[4] & 0x80, 0x80);
    EXPECT_EQ(mad::smp_data(resp)[0], 0xAB);
}

}  // namespace
}  // namespace fabscope
