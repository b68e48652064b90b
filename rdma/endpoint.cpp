#include "rdma/endpoint.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <random>

#include "rdma/caps.h"
#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

ibv_mtu mtu_enum(int bytes) {
    if (bytes >= 4096) return IBV_MTU_4096;
    if (bytes >= 2048) return IBV_MTU_2048;
    if (bytes >= 1024) return IBV_MTU_1024;
    if (bytes >= 512) return IBV_MTU_512;
    return IBV_MTU_256;
}

Error verbs_error(const std::string& what, const Device& d, int err) {
    return make_error(
        fmt::format("{} on {} port {} failed: {}", what, d.name(), d.port(), std::strerror(err)),
        kExitCannotRun);
}

}  // namespace

Result<Endpoint> Endpoint::create(const Device& dev, const EndpointConfig& cfg) {
    Endpoint e;
    e.dev_ = &dev;
    e.cfg_ = cfg;
    auto gid = dev.pick_gid(cfg.gid_index);
    if (!gid) return gid.error();
    e.gid_ = *gid;
    e.pd_.reset(ibv_alloc_pd(dev.context()));
    if (!e.pd_) return verbs_error("allocating a protection domain", dev, errno);
    // In 64 bits: depths near 2^32 must not wrap into a small CQ.
    int cqe = static_cast<int>(std::min<uint64_t>(
        cq_entries(cfg), static_cast<uint64_t>(std::max(1, dev.attr().max_cqe))));
    e.cq_.reset(ibv_create_cq(dev.context(), cqe, nullptr, nullptr, 0));
    if (!e.cq_) return verbs_error("creating a completion queue", dev, errno);
    // Both halves: one the peer reaches, one we send from.
    const size_t bytes = page_round(cfg.buffer_size) * 2;
    e.buffer_ = page_buffer(bytes);
    if (!e.buffer_) return verbs_error(fmt::format("allocating {} bytes", bytes), dev, ENOMEM);
    e.mr_.reset(
        ibv_reg_mr(e.pd_.get(), e.buffer_.get(), bytes,
                   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
    if (!e.mr_) return verbs_error(fmt::format("registering {} bytes", bytes), dev, errno);

    ibv_qp_init_attr init{};
    init.send_cq = e.cq_.get();
    init.recv_cq = e.cq_.get();
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr =
        std::min<uint32_t>(cfg.send_depth, static_cast<uint32_t>(dev.attr().max_qp_wr));
    init.cap.max_recv_wr = std::min<uint32_t>(std::max<uint32_t>(cfg.recv_depth, 1),
                                              static_cast<uint32_t>(dev.attr().max_qp_wr));
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = cfg.max_inline;
    e.qp_.reset(ibv_create_qp(e.pd_.get(), &init));
    if (!e.qp_ && cfg.max_inline) {
        // The device allows less inline data than asked: go without.
        init.cap.max_inline_data = 0;
        e.qp_.reset(ibv_create_qp(e.pd_.get(), &init));
    }
    if (!e.qp_) return verbs_error("creating an RC queue pair", dev, errno);
    e.max_inline_ = init.cap.max_inline_data;
    e.psn_ = std::random_device{}() & 0xFFFFFF;

    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = static_cast<uint8_t>(dev.port());
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    if (int rc =
            ibv_modify_qp(e.qp_.get(), &a,
                          IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS)) {
        return verbs_error("moving the queue pair to INIT", dev, rc);
    }
    return e;
}

EndpointInfo Endpoint::info() const {
    EndpointInfo i;
    i.qpn = qp_->qp_num;
    i.psn = psn_;
    i.lid = dev_->port_attr().lid;
    i.gid = gid_.gid;
    i.addr = reinterpret_cast<uint64_t>(buffer_.get());
    i.rkey = mr_->rkey;
    i.size = cfg_.buffer_size;
    i.mtu = mtu_bytes(dev_->port_attr().active_mtu);
    if (cfg_.mtu_cap > 0) i.mtu = std::min(i.mtu, cfg_.mtu_cap);
    i.roce = dev_->roce();
    i.flow_label = cfg_.flow_label & 0xFFFFFU;
    return i;
}

Status Endpoint::connect(const EndpointInfo& r) {
    remote_ = r;
    const Device& dev = *dev_;
    uint8_t rd_atomic = static_cast<uint8_t>(std::clamp(dev.attr().max_qp_rd_atom, 1, 16));
    ibv_qp_attr a{};
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = mtu_enum(std::min(r.mtu, info().mtu));
    a.dest_qp_num = r.qpn;
    a.rq_psn = r.psn;
    a.max_dest_rd_atomic = rd_atomic;
    a.min_rnr_timer = 12;
    a.ah_attr.port_num = static_cast<uint8_t>(dev.port());
    a.ah_attr.dlid = r.lid;
    if (dev.roce()) {
        a.ah_attr.is_global = 1;
        std::memcpy(a.ah_attr.grh.dgid.raw, r.gid.data(), r.gid.size());
        a.ah_attr.grh.sgid_index = static_cast<uint8_t>(gid_.index);
        a.ah_attr.grh.hop_limit = 64;
        a.ah_attr.grh.traffic_class = cfg_.traffic_class;
        a.ah_attr.grh.flow_label = cfg_.flow_label & 0xFFFFFU;
    }
    if (int rc =
            ibv_modify_qp(qp_.get(), &a,
                          IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                              IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER)) {
        return verbs_error("moving the queue pair to RTR (ready to receive)", dev, rc);
    }
    ibv_qp_attr s{};
    s.qp_state = IBV_QPS_RTS;
    s.timeout = 14;   // 4.096 us * 2^14 = 67 ms per try
    s.retry_cnt = 7;  // then the QP errors out: a dead peer surfaces in about half a second
    s.rnr_retry = 7;
    s.sq_psn = psn_;
    s.max_rd_atomic = rd_atomic;
    if (int rc = ibv_modify_qp(qp_.get(), &s,
                               IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                   IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC)) {
        return verbs_error("moving the queue pair to RTS (ready to send)", dev, rc);
    }
    return Ok{};
}

}  // namespace fabscope::perf
