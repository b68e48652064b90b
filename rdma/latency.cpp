#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstring>

#include "rdma/data_path.h"
#include "rdma/pacer.h"

namespace fabscope::perf {
namespace {

using Steady = std::chrono::steady_clock;

constexpr uint64_t kLatencyRecvTag = ~uint64_t{0};

// The byte a ping carries: never 0 (what the buffer starts with), never the previous one.
uint8_t mark(uint64_t i) {
    return static_cast<uint8_t>(i % 255 + 1);
}

double us_between(Steady::time_point a, Steady::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
}

class Poller {
  public:
    Poller(Endpoint& ep, const KeepGoing& keep_going) : ep_(ep), keep_going_(keep_going) {}

    /// Reaps completions; returns an error text, or "" (and counts receives).
    std::string reap() {
        std::array<ibv_wc, 16> wcs{};
        int n = ibv_poll_cq(ep_.cq(), static_cast<int>(wcs.size()), wcs.data());
        if (n < 0) return "polling the completion queue failed";
        for (int i = 0; i < n; ++i) {
            const ibv_wc& wc = wcs[static_cast<size_t>(i)];
            if (wc.status != IBV_WC_SUCCESS) {
                return fmt::format("a work request failed: {}: the peer or the path to it failed",
                                   ibv_wc_status_str(wc.status));
            }
            if (wc.wr_id == kLatencyRecvTag)
                ++received_;
            else
                ++sent_;
        }
        return "";
    }
    /// Every so often between spins: is the peer there, is there time left?
    std::string check() { return pacer_.due() ? keep_going_() : ""; }
    uint64_t received_ = 0;
    uint64_t sent_ = 0;

  private:
    Endpoint& ep_;
    const KeepGoing& keep_going_;
    Pacer pacer_;
};

bool post_one(Endpoint& ep, const TestSpec& spec, ibv_wr_opcode op, bool use_inline,
              std::string* error) {
    ibv_sge sge{};
    sge.addr =
        reinterpret_cast<uint64_t>(op == IBV_WR_RDMA_READ ? ep.remote_area() : ep.local_area());
    sge.length = spec.size;
    sge.lkey = ep.lkey();
    ibv_send_wr wr{};
    wr.wr_id = 1;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = op;
    wr.send_flags = IBV_SEND_SIGNALED | (use_inline ? IBV_SEND_INLINE : 0);
    wr.wr.rdma.remote_addr = ep.remote().addr;
    wr.wr.rdma.rkey = ep.remote().rkey;
    ibv_send_wr* bad = nullptr;
    if (int rc = ibv_post_send(ep.qp(), &wr, &bad); rc != 0) {
        *error = fmt::format("posting a work request failed: {}", std::strerror(rc));
        return false;
    }
    return true;
}

// Waits until the last byte of the area the peer writes into shows `want`.
bool wait_mark(Endpoint& ep, const TestSpec& spec, uint8_t want, Poller& poller,
               std::string* error) {
    volatile uint8_t* last = ep.remote_area() + spec.size - 1;
    while (*last != want) {
        if (std::string e = poller.reap(); !e.empty()) return *error = e, false;
        if (std::string e = poller.check(); !e.empty()) return *error = e, false;
    }
    return true;
}

bool wait_receive(uint64_t want, Poller& poller, std::string* error) {
    while (poller.received_ < want) {
        if (std::string e = poller.reap(); !e.empty()) return *error = e, false;
        if (std::string e = poller.check(); !e.empty()) return *error = e, false;
    }
    return true;
}

bool wait_sent(uint64_t want, Poller& poller, std::string* error) {
    while (poller.sent_ < want) {
        if (std::string e = poller.reap(); !e.empty()) return *error = e, false;
        if (std::string e = poller.check(); !e.empty()) return *error = e, false;
    }
    return true;
}

}  // namespace

LatencyOutcome run_latency(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going) {
    LatencyOutcome out;
    Poller poller(ep, keep_going);
    const bool use_inline = spec.size <= inline_limit(ep, spec);
    const uint64_t total = (spec.iterations ? spec.iterations : 1000) + spec.warmup;
    out.samples_us.reserve(total);
    // One clock read per message, as perftest stamps each post: a sample is
    // from one post to the next. Two reads per message doubled the clock's
    // cost inside every sample where clock_gettime is a system call (the
    // Soft-RoCE VM under software emulation).
    Steady::time_point t0 = Steady::now();
    for (uint64_t i = 1; i <= total; ++i) {
        if (spec.op == Op::Read) {
            if (!post_one(ep, spec, IBV_WR_RDMA_READ, false, &out.error)) return out;
            if (!wait_sent(i, poller, &out.error)) return out;
        } else if (spec.op == Op::Write) {
            ep.local_area()[spec.size - 1] = mark(i);
            if (!post_one(ep, spec, IBV_WR_RDMA_WRITE, use_inline, &out.error)) return out;
            if (!wait_mark(ep, spec, mark(i), poller, &out.error)) return out;
        } else {
            if (!post_receives(ep, 1, spec.size))
                return out.error = "posting a receive failed", out;
            if (!post_one(ep, spec, IBV_WR_SEND, use_inline, &out.error)) return out;
            if (!wait_receive(i, poller, &out.error)) return out;
        }
        // Keep the send queue drained (WRITE and SEND completions arrive in their own time).
        if (std::string e = poller.reap(); !e.empty()) return out.error = e, out;
        Steady::time_point t1 = Steady::now();
        // One way for ping-pong, as perftest reports it; a READ is a round trip by nature.
        double us = us_between(t0, t1) / (spec.op == Op::Read ? 1.0 : 2.0);
        if (i > spec.warmup) out.samples_us.push_back(us);
        t0 = t1;
    }
    return out;
}

std::string answer_latency(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going) {
    if (spec.op == Op::Read) return "";
    Poller poller(ep, keep_going);
    const bool use_inline = spec.size <= inline_limit(ep, spec);
    const uint64_t total = (spec.iterations ? spec.iterations : 1000) + spec.warmup;
    std::string error;
    for (uint64_t i = 1; i <= total; ++i) {
        if (spec.op == Op::Write) {
            if (!wait_mark(ep, spec, mark(i), poller, &error)) return error;
            ep.local_area()[spec.size - 1] = mark(i);
            if (!post_one(ep, spec, IBV_WR_RDMA_WRITE, use_inline, &error)) return error;
        } else {
            if (!wait_receive(i, poller, &error)) return error;
            if (!post_receives(ep, 1, spec.size)) return "posting a receive failed";
            if (!post_one(ep, spec, IBV_WR_SEND, use_inline, &error)) return error;
        }
        if (std::string e = poller.reap(); !e.empty()) return e;
    }
    return "";
}

}  // namespace fabscope::perf
