// A ring all-reduce's steps on two connected endpoints: the one to the next
// rank sends, the one from the previous rank receives. A step is what the
// collective libraries do per chunk: WRITE it to the next rank (with an
// immediate, so the next rank learns it arrived without polling memory), and
// go on once this WRITE is acknowledged and the previous rank's has arrived.
// The WRITE's own time, post to completion, is the edge's; the step's time
// is the ring's pace, set by its slowest edge.

#include <arpa/inet.h>
#include <fmt/format.h>
#include <sched.h>

#include <array>
#include <chrono>
#include <cstring>

#include "rdma/data_path.h"
#include "rdma/pacer.h"

namespace fabscope::perf {
namespace {

using Steady = std::chrono::steady_clock;

/// Empty polls before a waiting rank starts yielding its CPU (a few
/// microseconds on a NIC; nothing next to a step's time).
constexpr uint32_t kSpinsBeforeYield = 256;

double us_since(Steady::time_point t0) {
    return std::chrono::duration<double, std::micro>(Steady::now() - t0).count();
}

/// Where the steps stand: this step's WRITE done, and how many of the
/// previous rank's have arrived (it may be a step ahead).
struct StepWait {
    bool sent = false;
    uint32_t arrived = 0;
    double edge_us = 0;
};

/// Reaps `ep`'s completion queue into `w`; an error text, or "".
std::string reap(Endpoint& ep, bool receive_side, StepWait& w, Steady::time_point posted) {
    std::array<ibv_wc, 8> wcs{};
    const int n = ibv_poll_cq(ep.cq(), static_cast<int>(wcs.size()), wcs.data());
    if (n < 0) return "polling the completion queue failed";
    for (int i = 0; i < n; ++i) {
        const ibv_wc& wc = wcs[static_cast<size_t>(i)];
        if (wc.status != IBV_WC_SUCCESS) {
            return fmt::format("a work request {} the {} rank failed: {} (vendor error {:#x})",
                               receive_side ? "from" : "to", receive_side ? "previous" : "next",
                               ibv_wc_status_str(wc.status), wc.vendor_err);
        }
        if (!receive_side) {
            w.sent = true;
            w.edge_us = us_since(posted);
            continue;
        }
        // RC delivers in order: the previous rank's steps arrive one by one.
        const uint32_t imm = ntohl(wc.imm_data);
        if (!(wc.wc_flags & IBV_WC_WITH_IMM) || imm != w.arrived) {
            return fmt::format("the previous rank's step {} arrived when step {} was due", imm,
                               w.arrived);
        }
        ++w.arrived;
        if (!post_receives(ep, 1, 1)) return "posting a receive failed";
    }
    return "";
}

std::string stalled(const StepWait& w, uint32_t seq, std::chrono::milliseconds stall) {
    return fmt::format("the ring stalled at step {}: {} within {} ms", seq + 1,
                       !w.sent ? "the next rank did not acknowledge this rank's WRITE"
                               : "nothing came from the previous rank",
                       stall.count());
}

bool post_step(Endpoint& next, uint32_t chunk, uint32_t seq, std::string& error) {
    ibv_sge sge{reinterpret_cast<uint64_t>(next.local_area()), chunk, next.lkey()};
    ibv_send_wr wr{};
    wr.wr_id = seq;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.imm_data = htonl(seq);
    wr.wr.rdma.remote_addr = next.remote().addr;
    wr.wr.rdma.rkey = next.remote().rkey;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(next.qp(), &wr, &bad); rc != 0) {
        error = fmt::format("posting a WRITE to the next rank failed: {}", std::strerror(rc));
        return false;
    }
    return true;
}

}  // namespace

RingOutcome run_ring(Endpoint& to_next, Endpoint& from_prev, const RingSteps& s,
                     const KeepGoing& keep_going) {
    RingOutcome out;
    if (s.chunk > to_next.size() || s.chunk > to_next.remote().size) {
        out.error = fmt::format("a step of {} bytes is larger than the buffers ({} bytes)", s.chunk,
                                to_next.size());
        return out;
    }
    out.iteration_us.reserve(s.iterations);
    out.edge_us.reserve(static_cast<size_t>(s.iterations) * s.steps);
    Pacer pacer;
    uint32_t seq = 0;  // the steps of this call, counted as the immediates count them
    StepWait w;
    for (uint32_t it = 0; it < s.warmup + s.iterations; ++it) {
        const bool measured = it >= s.warmup;
        const Steady::time_point started = Steady::now();
        for (uint32_t step = 0; step < s.steps; ++step, ++seq) {
            const Steady::time_point posted = Steady::now();
            if (!post_step(to_next, s.chunk, seq, out.error)) return out;
            w.sent = false;
            uint32_t idle = 0;
            while (!w.sent || w.arrived <= seq) {
                const bool was_sent = w.sent;
                const uint32_t was_arrived = w.arrived;
                std::string e;
                if (!w.sent) e = reap(to_next, false, w, posted);
                if (e.empty() && w.arrived <= seq) e = reap(from_prev, true, w, posted);
                if (e.empty() && pacer.due()) {
                    e = keep_going();
                    if (e.empty() && Steady::now() - posted > s.stall) e = stalled(w, seq, s.stall);
                }
                if (!e.empty()) {
                    out.error = e;
                    return out;
                }
                // Where ranks share CPUs (several on a host, a VM), a rank that
                // spins takes the CPU from the work it waits for: after a while
                // of nothing, it gives the CPU up between polls.
                if (w.sent != was_sent || w.arrived != was_arrived)
                    idle = 0;
                else if (++idle > kSpinsBeforeYield)
                    sched_yield();
            }
            if (measured) out.edge_us.push_back(w.edge_us);
        }
        if (measured) out.iteration_us.push_back(us_since(started));
    }
    return out;
}

}  // namespace fabscope::perf
