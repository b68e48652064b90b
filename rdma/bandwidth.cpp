#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>

#include "rdma/data_path.h"
#include "rdma/pacer.h"

namespace fabscope::perf {
namespace {

using Steady = std::chrono::steady_clock;

uint64_t ns_since(Steady::time_point t0) {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Steady::now() - t0).count());
}

std::string wc_error(const ibv_wc& wc) {
    return fmt::format(
        "a work request failed: {} (vendor error {:#x}): the peer or the path to it failed",
        ibv_wc_status_str(wc.status), wc.vendor_err);
}

constexpr uint64_t kRecvTag = ~uint64_t{0};  // wr_id of receives

/// Polls the completion queue once and hands each successful completion to
/// `on_wc`; false, with out.error, when the poll or a completion failed.
template <typename OnCompletion>
bool poll_once(Endpoint& ep, std::array<ibv_wc, 32>& wcs, BandwidthOutcome& out,
               OnCompletion&& on_wc) {
    const int n = ibv_poll_cq(ep.cq(), static_cast<int>(wcs.size()), wcs.data());
    if (n < 0) {
        out.error = "polling the completion queue failed";
        return false;
    }
    for (int i = 0; i < n; ++i) {
        const ibv_wc& wc = wcs[static_cast<size_t>(i)];
        if (wc.status != IBV_WC_SUCCESS) {
            out.error = wc_error(wc);
            return false;
        }
        on_wc(wc);
    }
    return true;
}

}  // namespace

uint32_t inline_limit(const Endpoint& ep, const TestSpec& spec) {
    uint32_t want = spec.inline_max ? spec.inline_max : 236;
    return spec.op == Op::Read ? 0 : std::min(want, ep.max_inline());
}

bool post_receives(Endpoint& ep, uint32_t n, uint32_t size) {
    for (uint32_t i = 0; i < n; ++i) {
        ibv_sge sge{reinterpret_cast<uint64_t>(ep.remote_area()), size, ep.lkey()};
        ibv_recv_wr wr{};
        wr.wr_id = kRecvTag;
        wr.sg_list = &sge;
        wr.num_sge = 1;
        ibv_recv_wr* bad = nullptr;
        if (ibv_post_recv(ep.qp(), &wr, &bad) != 0) return false;
    }
    return true;
}

BandwidthOutcome run_bandwidth(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going) {
    BandwidthOutcome out;
    out.meter = BandwidthMeter(static_cast<uint64_t>(spec.window.count()) * 1000000ULL);
    const uint32_t depth = std::max<uint32_t>(1, spec.tx_depth);
    const uint32_t moderation = std::min(std::max<uint32_t>(1, spec.cq_moderation), depth);
    const bool use_inline = spec.size <= inline_limit(ep, spec);
    const uint64_t total = spec.iterations ? spec.iterations + spec.warmup : 0;
    const auto duration_ns = static_cast<uint64_t>(spec.duration.count()) * 1000000ULL;

    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(spec.op == Op::Read ? ep.remote_area() : ep.local_area());
    sge.length = spec.size;
    sge.lkey = ep.lkey();
    ibv_send_wr wr{};
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = spec.op == Op::Write  ? IBV_WR_RDMA_WRITE
                : spec.op == Op::Read ? IBV_WR_RDMA_READ
                                      : IBV_WR_SEND;
    wr.wr.rdma.remote_addr = ep.remote().addr;
    wr.wr.rdma.rkey = ep.remote().rkey;

    uint64_t posted = 0;
    uint64_t completed = 0;
    uint64_t since_signal = 0;
    bool measuring = false;
    bool stop_posting = false;
    Steady::time_point t0 = Steady::now();
    const Steady::time_point started = t0;
    uint64_t measured_from = 0;  // messages completed when measuring began
    // Duration mode: the deadline is seen at a completion, where the clock is
    // read anyway, never per post (perftest's loop reads no clock at all).
    bool time_is_up = false;
    std::array<ibv_wc, 32> wcs{};
    Pacer pacer;

    for (;;) {
        // Keep `depth` in flight; signal one completion per `moderation`, and
        // the last one: an unsignalled tail would never be seen complete.
        while (!stop_posting && posted - completed < depth && (total == 0 || posted < total)) {
            ++since_signal;
            bool last = total ? posted + 1 == total : time_is_up;
            if (last) stop_posting = true;
            wr.wr_id = since_signal;
            wr.send_flags = (since_signal == moderation || last ? IBV_SEND_SIGNALED : 0) |
                            (use_inline ? IBV_SEND_INLINE : 0);
            ibv_send_wr* bad = nullptr;
            if (int rc = ibv_post_send(ep.qp(), &wr, &bad); rc != 0) {
                out.error = fmt::format("posting a work request failed: {}", std::strerror(rc));
                return out;
            }
            ++posted;
            if (wr.send_flags & IBV_SEND_SIGNALED) since_signal = 0;
        }
        const bool polled = poll_once(ep, wcs, out, [&](const ibv_wc& wc) {
            if (wc.wr_id == kRecvTag) {  // bidirectional SEND: what the peer sent us
                out.received_bytes += wc.byte_len;
                post_receives(ep, 1, spec.size);
                return;
            }
            completed +=
                wc.wr_id;  // a signalled completion stands for the messages since the last one
            if (!measuring && completed >= spec.warmup &&
                (total || Steady::now() - started >= spec.warmup_time)) {
                measuring = true;
                t0 = Steady::now();
                measured_from = completed;
            } else if (measuring) {
                uint64_t at = ns_since(t0);
                out.meter.add(at, wc.wr_id * spec.size);
                if (at >= duration_ns) time_is_up = true;  // one signalled post more, then drain
            }
        });
        if (!polled) return out;
        if (stop_posting && completed >= posted) break;
        if (total && completed >= total) break;
        // Every iteration asks; every 10 ms the peer and the deadline are checked.
        if (pacer.due()) {
            if (std::string why = keep_going(); !why.empty()) {
                out.error = why;
                return out;
            }
        }
    }
    out.meter.finish(ns_since(t0));
    out.messages = completed - measured_from;
    return out;
}

BandwidthOutcome receive_sends(Endpoint& ep, const TestSpec& spec, const KeepGoing& keep_going) {
    BandwidthOutcome out;
    std::array<ibv_wc, 32> wcs{};
    Pacer pacer;
    for (;;) {
        const bool polled = poll_once(ep, wcs, out, [&](const ibv_wc& wc) {
            if (wc.wr_id == kRecvTag) {
                out.received_bytes += wc.byte_len;
                ++out.messages;
                post_receives(ep, 1, spec.size);
            }
        });
        if (!polled) return out;
        // Whether or not the poll was empty: a peer that keeps sending must
        // not keep this loop past its deadline.
        if (pacer.due()) {
            if (std::string why = keep_going(); !why.empty()) {
                out.error = why;  // "done" from the peer arrives this way too
                return out;
            }
        }
    }
}

}  // namespace fabscope::perf
