// The libibverbs UdPort: one UD QP, one CQ with a completion channel (an
// agent that waits sleeps in poll(2)), receives kept posted, an address
// handle per destination. Each received datagram is preceded in its buffer
// by the 40 bytes of the GRH (or, on RoCEv2 over IPv4, the IPv4 header in
// their last 20), which the payload's offset skips.
//
// A send that completes in error takes a UD QP to SQE (or, on Soft-RoCE
// when the egress qdisc drops a packet, ERR): every later send and receive
// is flushed and the agent goes dark. The port brings the QP back (SQE ->
// RTS; ERR -> RESET -> INIT -> RTR -> RTS, receives posted again) and
// counts it: the lost datagram is a lost probe, not a dead agent.

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>

#include "rdma/ud_port.h"
#include "rdma/verbs.h"
#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

constexpr size_t kGrh = 40;
constexpr size_t kSlot = 128;  // a GRH and the largest payload, rounded

struct AhDeleter {
    void operator()(ibv_ah* a) const { ibv_destroy_ah(a); }
};
struct ChannelDeleter {
    void operator()(ibv_comp_channel* c) const { ibv_destroy_comp_channel(c); }
};
using AhPtr = std::unique_ptr<ibv_ah, AhDeleter>;
using ChannelPtr = std::unique_ptr<ibv_comp_channel, ChannelDeleter>;

struct Destination {
    AhPtr ah;
    uint32_t qpn = 0;
};

class UdVerbsPort final : public UdPort {
  public:
    UdVerbsPort(Device dev, UdPortConfig cfg) : dev_(std::move(dev)), cfg_(std::move(cfg)) {}
    // The QP before the CQ and the CQ before its channel: members are
    // destroyed in reverse order of declaration.
    ~UdVerbsPort() override {
        dests_.clear();
        qp_.reset();
        if (unacked_) ibv_ack_cq_events(cq_.get(), unacked_);
        cq_.reset();
        channel_.reset();
    }
    UdVerbsPort(const UdVerbsPort&) = delete;
    UdVerbsPort& operator=(const UdVerbsPort&) = delete;

    Status open();
    UdAddress address() const override {
        return {qp_->qp_num, dev_.port_attr().lid, gid_.gid, dev_.roce()};
    }
    Result<int> add_destination(const UdAddress& to) override;
    void remove_destination(int handle) override { dests_.erase(handle); }
    bool send(int handle, const uint8_t* bytes, size_t size) override;
    Result<std::vector<UdDatagram>> receive(std::chrono::milliseconds wait) override;
    UdPortCounts counts() const override { return counts_; }

  private:
    /// RESET (from ERR) -> INIT -> RTR -> RTS, receives posted before RTR.
    Status bring_up(bool from_error);
    /// After a send error: the QP back to RTS.
    Status recover();
    Error fail(const std::string& what, int err) const {
        return make_error(fmt::format("{} on {} port {} failed: {}", what, dev_.name(), dev_.port(),
                                      std::strerror(err)),
                          kExitCannotRun);
    }
    bool post_receive(uint32_t slot);
    /// Takes what the CQ holds into `out`; false when polling failed.
    bool drain(std::vector<UdDatagram>& out);

    Device dev_;
    UdPortConfig cfg_;
    GidChoice gid_;
    PdPtr pd_;
    ChannelPtr channel_;
    CqPtr cq_;
    QpPtr qp_;
    PageBuffer buffer_;  // recv_depth receive slots, then send_depth send slots
    MrPtr mr_;
    std::map<int, Destination> dests_;
    int next_handle_ = 1;
    uint32_t next_send_ = 0;
    uint32_t sends_out_ = 0;  // posted, not yet completed
    unsigned unacked_ = 0;
    bool armed_ = false;
    bool broken_ = false;  // a completion in error: recover() before going on
    UdPortCounts counts_;
};

Status UdVerbsPort::open() {
    auto gid = dev_.pick_gid(cfg_.gid_index);
    if (!gid) return gid.error();
    gid_ = *gid;
    const auto max_wr = static_cast<uint32_t>(std::max(1, dev_.attr().max_qp_wr));
    cfg_.send_depth = std::clamp<uint32_t>(cfg_.send_depth, 1, max_wr);
    cfg_.recv_depth = std::clamp<uint32_t>(cfg_.recv_depth, 1, max_wr);
    pd_.reset(ibv_alloc_pd(dev_.context()));
    if (!pd_) return fail("allocating a protection domain", errno);
    channel_.reset(ibv_create_comp_channel(dev_.context()));
    if (!channel_) return fail("creating a completion channel", errno);
    const int cqe = static_cast<int>(
        std::min<uint64_t>(uint64_t{cfg_.send_depth} + cfg_.recv_depth,
                           static_cast<uint64_t>(std::max(1, dev_.attr().max_cqe))));
    cq_.reset(ibv_create_cq(dev_.context(), cqe, nullptr, channel_.get(), 0));
    if (!cq_) return fail("creating a completion queue", errno);
    const size_t bytes = page_round((size_t{cfg_.recv_depth} + cfg_.send_depth) * kSlot);
    buffer_ = page_buffer(bytes);
    if (!buffer_) return fail(fmt::format("allocating {} bytes", bytes), ENOMEM);
    mr_.reset(
        ibv_reg_mr(pd_.get(), buffer_.get(), bytes, static_cast<int>(IBV_ACCESS_LOCAL_WRITE)));
    if (!mr_) return fail(fmt::format("registering {} bytes", bytes), errno);

    ibv_qp_init_attr init{};
    init.send_cq = cq_.get();
    init.recv_cq = cq_.get();
    init.qp_type = IBV_QPT_UD;
    init.cap.max_send_wr = cfg_.send_depth;
    init.cap.max_recv_wr = cfg_.recv_depth;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    qp_.reset(ibv_create_qp(pd_.get(), &init));
    if (!qp_) return fail("creating a UD queue pair", errno);

    return bring_up(false);
}

Status UdVerbsPort::bring_up(bool from_error) {
    if (from_error) {
        ibv_qp_attr z{};
        z.qp_state = IBV_QPS_RESET;
        if (int rc = ibv_modify_qp(qp_.get(), &z, IBV_QP_STATE))
            return fail("resetting the UD queue pair", rc);
        sends_out_ = 0;
    }
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<uint8_t>(dev_.port());
    a.qkey = cfg_.qkey;
    if (int rc = ibv_modify_qp(qp_.get(), &a,
                               IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
        return fail("moving the UD queue pair to INIT", rc);
    for (uint32_t i = 0; i < cfg_.recv_depth; ++i) {
        if (!post_receive(i)) return fail("posting receives", errno);
    }
    ibv_qp_attr r{};
    r.qp_state = IBV_QPS_RTR;
    if (int rc = ibv_modify_qp(qp_.get(), &r, IBV_QP_STATE))
        return fail("moving the UD queue pair to RTR", rc);
    ibv_qp_attr s{};
    s.qp_state = IBV_QPS_RTS;
    s.sq_psn = 0;
    if (int rc = ibv_modify_qp(qp_.get(), &s, IBV_QP_STATE | IBV_QP_SQ_PSN))
        return fail("moving the UD queue pair to RTS", rc);
    return Ok{};
}

Status UdVerbsPort::recover() {
    broken_ = false;
    ibv_qp_attr attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(qp_.get(), &attr, IBV_QP_STATE, &init))
        return fail("querying the UD queue pair", rc);
    if (attr.qp_state == IBV_QPS_RTS) return Ok{};
    ++counts_.recoveries;
    if (attr.qp_state == IBV_QPS_SQE) {
        ibv_qp_attr s{};
        s.qp_state = IBV_QPS_RTS;
        if (int rc = ibv_modify_qp(qp_.get(), &s, IBV_QP_STATE))
            return fail("moving the UD queue pair from SQE back to RTS", rc);
        return Ok{};
    }
    // ERR: what is still queued is flushed by the reset; receives are posted anew.
    std::vector<UdDatagram> flushed;
    (void)drain(flushed);
    broken_ = false;
    return bring_up(true);
}

bool UdVerbsPort::post_receive(uint32_t slot) {
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(buffer_.get() + size_t{slot} * kSlot);
    sge.length = kSlot;
    sge.lkey = mr_->lkey;
    ibv_recv_wr wr{};
    wr.wr_id = slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    return ibv_post_recv(qp_.get(), &wr, &bad) == 0;
}

Result<int> UdVerbsPort::add_destination(const UdAddress& to) {
    ibv_ah_attr attr{};
    attr.dlid = to.lid;
    attr.port_num = static_cast<uint8_t>(dev_.port());
    if (dev_.roce()) {
        attr.is_global = 1;
        std::memcpy(attr.grh.dgid.raw, to.gid.data(), to.gid.size());
        attr.grh.sgid_index = static_cast<uint8_t>(gid_.index);
        attr.grh.hop_limit = 64;
    }
    AhPtr ah(ibv_create_ah(pd_.get(), &attr));
    if (!ah) {
        return fail(
            fmt::format("creating an address handle to {} (QP {})", format_gid(to.gid), to.qpn),
            errno);
    }
    const int h = next_handle_++;
    dests_[h] = Destination{std::move(ah), to.qpn};
    return h;
}

bool UdVerbsPort::send(int handle, const uint8_t* bytes, size_t size) {
    auto it = dests_.find(handle);
    if (it == dests_.end() || size > kMaxUdPayload || sends_out_ >= cfg_.send_depth) return false;
    const uint32_t slot = cfg_.recv_depth + (next_send_++ % cfg_.send_depth);
    uint8_t* at = buffer_.get() + size_t{slot} * kSlot;
    std::memcpy(at, bytes, size);
    ibv_sge sge{};
    sge.addr = reinterpret_cast<uint64_t>(at);
    sge.length = static_cast<uint32_t>(size);
    sge.lkey = mr_->lkey;
    ibv_send_wr wr{};
    wr.wr_id = slot;
    wr.sg_list = &sge;
    wr.num_sge = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.wr.ud.ah = it->second.ah.get();
    wr.wr.ud.remote_qpn = it->second.qpn;
    wr.wr.ud.remote_qkey = cfg_.qkey;
    ibv_send_wr* bad = nullptr;
    if (ibv_post_send(qp_.get(), &wr, &bad) != 0) return false;
    ++sends_out_;
    return true;
}

bool UdVerbsPort::drain(std::vector<UdDatagram>& out) {
    std::array<ibv_wc, 32> wcs{};
    for (;;) {
        const int n = ibv_poll_cq(cq_.get(), static_cast<int>(wcs.size()), wcs.data());
        if (n < 0) return false;
        for (int i = 0; i < n; ++i) {
            const ibv_wc& wc = wcs[static_cast<size_t>(i)];
            if (wc.opcode & IBV_WC_RECV) {
                const auto slot = static_cast<uint32_t>(wc.wr_id);
                if (wc.status == IBV_WC_SUCCESS && wc.byte_len > kGrh) {
                    UdDatagram d;
                    d.src_qpn = wc.src_qp;
                    d.size = std::min<size_t>(wc.byte_len - kGrh, kMaxUdPayload);
                    std::memcpy(d.bytes.data(), buffer_.get() + size_t{slot} * kSlot + kGrh,
                                d.size);
                    out.push_back(d);
                }
                if (wc.status == IBV_WC_WR_FLUSH_ERR) {
                    broken_ = true;  // the QP is in error: posted again by recover()
                    continue;
                }
                // A receive that fails here fails again: the QP is gone.
                if (!post_receive(slot)) return false;
            } else {
                if (sends_out_ > 0) --sends_out_;  // a send done (or failed: its probe is lost)
                if (wc.status != IBV_WC_SUCCESS) {
                    ++counts_.send_errors;
                    counts_.last_error = ibv_wc_status_str(wc.status);
                    broken_ = true;
                }
            }
        }
        if (n < static_cast<int>(wcs.size())) return true;
    }
}

Result<std::vector<UdDatagram>> UdVerbsPort::receive(std::chrono::milliseconds wait) {
    std::vector<UdDatagram> out;
    if (!drain(out)) return fail("polling the completion queue", errno);
    if (broken_) {
        if (auto st = recover(); !st) return st.error();
    }
    if (!out.empty() || wait.count() <= 0) return out;
    // Nothing yet: arm the CQ, look once more (a completion may have come
    // between the poll and the arming), then sleep on the channel.
    if (!armed_) {
        if (int rc = ibv_req_notify_cq(cq_.get(), 0))
            return fail("arming the completion queue", rc);
        armed_ = true;
    }
    if (!drain(out)) return fail("polling the completion queue", errno);
    if (!out.empty()) return out;
    pollfd p{channel_->fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(wait.count()));
    if (rc < 0 && errno != EINTR) return fail("waiting for completions", errno);
    if (rc > 0) {
        ibv_cq* cq = nullptr;
        void* ctx = nullptr;
        if (ibv_get_cq_event(channel_.get(), &cq, &ctx) == 0) {
            ++unacked_;
            armed_ = false;
            if (unacked_ >= 64) {
                ibv_ack_cq_events(cq_.get(), unacked_);
                unacked_ = 0;
            }
        }
        if (!drain(out)) return fail("polling the completion queue", errno);
    }
    return out;
}

}  // namespace

Result<std::unique_ptr<UdPort>> open_ud_port(const UdPortConfig& cfg) {
    auto dev = Device::open(cfg.device, cfg.port);
    if (!dev) return dev.error();
    auto port = std::make_unique<UdVerbsPort>(std::move(*dev), cfg);
    if (auto st = port->open(); !st) return st.error();
    return std::unique_ptr<UdPort>(std::move(port));
}

}  // namespace fabscope::perf
