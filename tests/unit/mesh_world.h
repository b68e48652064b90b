#pragma once
// The round logic of `mesh run` (mesh/run) with one thread per rank: an
// in-process MeshComm (messages in a shared post office, waits with the same
// deadlines) and a device whose flows run at a rate chosen per pair, so a
// slow host, a slow cable, a rank that dies and an interrupt can be staged.

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fake_mesh_comm.h"
#include "mesh/ring_run.h"
#include "mesh/run.h"

namespace fabscope::perf::mesh_test {

/// Rate of a flow from src to dst (LIDs: the ranks, unless World::lids) whose
/// QP sends with this flow label.
using Rate = std::function<double(int src, int dst, uint32_t label)>;

/// Endpoints that know which rank they belong to (address 10.0.0.rank+1 in
/// the GID; the LID is `lid`, the rank unless told) and "move" data at
/// rate(LID, destination LID, label) GB/s-ish for one simulated second.
class RateDevice final : public VerbsDevice {
  public:
    RateDevice(int rank, uint16_t lid, Rate rate, bool lossy = false, uint64_t port_guid = 0)
        : rank_(rank), lid_(lid), rate_(std::move(rate)), lossy_(lossy), port_guid_(port_guid) {}
    std::string name() const override { return "fake" + std::to_string(rank_); }
    int port() const override { return 1; }
    DeviceLimits limits() const override { return {}; }
    /// A lossy device retransmits: 50 more each time it is read.
    CounterMap read_counters() const override {
        if (!lossy_) return {{"completer_retry_err", 7}};
        reads_ += 50;
        return {{"completer_retry_err", reads_}};
    }
    Result<std::unique_ptr<TestEndpoint>> create_endpoint(
        const EndpointConfig& cfg) const override {
        return std::unique_ptr<TestEndpoint>(
            std::make_unique<Ep>(rank_, lid_, rate_, cfg.flow_label, port_guid_));
    }

  private:
    class Ep final : public TestEndpoint {
      public:
        Ep(int rank, uint16_t lid, Rate rate, uint32_t label, uint64_t port_guid)
            : rank_(rank),
              lid_(lid),
              rate_(std::move(rate)),
              label_(label),
              port_guid_(port_guid) {}
        EndpointInfo info() const override {
            EndpointInfo i;
            i.lid = lid_;
            i.gid = {0, 0, 0,    0,    0,  0, 0, 0,
                     0, 0, 0xff, 0xff, 10, 0, 0, static_cast<uint8_t>(rank_ + 1)};
            i.flow_label = label_;
            if (port_guid_ != 0) {
                // InfiniBand: GID 0 is the subnet prefix and the port GUID.
                i.roce = false;
                i.gid = {0xfe, 0x80, 0, 0, 0, 0, 0, 0};
                for (size_t b = 0; b < 8; ++b)
                    i.gid[8 + b] = static_cast<uint8_t>(port_guid_ >> (56 - 8 * b));
            }
            return i;
        }
        Status connect(const EndpointInfo& r) override {
            remote_ = r.lid;
            return Ok{};
        }
        bool post_receives(uint32_t, uint32_t) override { return true; }
        BandwidthOutcome run_bandwidth(const TestSpec&, const KeepGoing& k) override {
            BandwidthOutcome out;
            out.error = k();
            if (!out.error.empty()) return out;
            double bytes_per_window = 1e7 * rate_(lid_, remote_, label_);
            for (uint64_t w = 1; w <= 10; ++w)
                out.meter.add(w * 100000000, static_cast<uint64_t>(bytes_per_window));
            out.meter.finish(1000000000);
            out.messages = 100;
            return out;
        }
        BandwidthOutcome receive_sends(const TestSpec&, const KeepGoing&) override { return {}; }
        LatencyOutcome run_latency(const TestSpec&, const KeepGoing&) override { return {}; }
        std::string answer_latency(const TestSpec&, const KeepGoing&) override { return ""; }
        /// Each step at rate(LID, the next rank's LID, label) GB/s; the
        /// all-reduce at this edge's pace (rank 0 takes the slowest rank's).
        RingOutcome run_ring(TestEndpoint&, const RingSteps& s, const KeepGoing& k) override {
            RingOutcome out;
            out.error = k();
            if (!out.error.empty()) return out;
            const double edge_us = s.chunk / (rate_(lid_, remote_, label_) * 1e3);
            out.edge_us.assign(static_cast<size_t>(s.iterations) * s.steps, edge_us);
            out.iteration_us.assign(s.iterations, edge_us * s.steps * 1.05);
            return out;
        }

      private:
        int rank_;
        uint16_t lid_;
        int remote_ = -1;
        Rate rate_;
        uint32_t label_;
        uint64_t port_guid_;
    };
    int rank_;
    uint16_t lid_;
    Rate rate_;
    bool lossy_;
    uint64_t port_guid_;
    mutable uint64_t reads_ = 0;
};

struct World {
    int size = 6;
    int per_host = 1;  ///< local ranks per host
    std::function<double(int, int)> rate = [](int, int) { return 1.0; };
    Rate steered;                  ///< when set, instead of rate
    std::map<int, int> die_after;  ///< rank -> broadcasts
    std::set<int> no_device;
    std::set<int> lossy;  ///< ranks whose devices count retransmissions
    /// Rank r's port LID (InfiniBand: its host's LID in a snapshot); when
    /// unset the rank, and rates are asked by rank.
    std::vector<uint16_t> lids;
    /// Rank r's port GUID (InfiniBand: its GID 0 carries it); unset: RoCE.
    std::vector<uint64_t> port_guids;
    /// Rank r's host name; unset: every rank is this machine's.
    std::vector<std::string> hosts;
    MeshRunOptions options;
    /// When set, the ranks run a ring all-reduce (mesh/ring_run) instead.
    std::optional<RingTest> ring;
    int stop_root_after_round = -1;

    std::vector<MeshRunOutcome> outcomes;
    std::vector<bool> died;
    double seconds = 0;

    void run() {
        options.step_timeout = std::chrono::milliseconds(300);
        options.spec.duration = std::chrono::milliseconds(10);
        options.spec.warmup_time = std::chrono::milliseconds(0);
        fake::PostOffice po;
        outcomes.assign(size, {});
        died.assign(size, false);
        std::vector<std::unique_ptr<StopToken>> stops;
        stops.reserve(static_cast<size_t>(size));
        for (int r = 0; r < size; ++r) stops.push_back(std::make_unique<StopToken>());
        auto t0 = MeshClock::now();
        std::vector<std::thread> threads;
        threads.reserve(static_cast<size_t>(size));
        for (int r = 0; r < size; ++r) {
            threads.emplace_back([&, r] {
                fake::FakeComm comm(po, r, size, r % per_host);
                if (die_after.count(r)) comm.die_after_broadcasts = die_after[r];
                MeshRunOptions o = options;
                if (!hosts.empty()) o.host = hosts.at(static_cast<size_t>(r));
                if (r == 0 && stop_root_after_round >= 0) {
                    o.on_progress = [&](const MeshRunData& d) {
                        if (static_cast<int>(d.rounds_done) >= stop_root_after_round)
                            stops[0]->request_stop(2);
                    };
                }
                auto open = [&, r](const std::string&,
                                   int) -> Result<std::unique_ptr<VerbsDevice>> {
                    if (no_device.count(r)) return make_error("no RDMA device found", 3);
                    Rate by = steered ? steered
                                      : Rate([this](int s, int t, uint32_t) { return rate(s, t); });
                    return std::unique_ptr<VerbsDevice>(std::make_unique<RateDevice>(
                        r, lid_of(r), by, lossy.count(r) > 0,
                        port_guids.empty() ? 0 : port_guids.at(static_cast<size_t>(r))));
                };
                try {
                    if (ring) o.ring = *ring;
                    outcomes[r] = ring ? run_ring(comm, open, o, *stops[r])
                                       : run_mesh(comm, open, o, *stops[r]);
                } catch (const fake::Died&) {
                    died[r] = true;
                }
            });
        }
        for (auto& t : threads) t.join();
        seconds = std::chrono::duration<double>(MeshClock::now() - t0).count();
    }
    const MeshRunData& data() const { return outcomes[0].data; }
    uint16_t lid_of(int rank) const {
        return lids.empty() ? static_cast<uint16_t>(rank) : lids.at(static_cast<size_t>(rank));
    }
};

}  // namespace fabscope::perf::mesh_test
