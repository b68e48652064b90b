#pragma once
// One side of a test: a reliable-connected QP with its PD, CQ and a
// registered buffer, and what the other side needs to know to reach it.

#include "rdma/endpoint_info.h"
#include "rdma/verbs.h"
#include "util/result.h"

namespace fabscope::perf {

class Endpoint {
  public:
    static Result<Endpoint> create(const Device& dev, const EndpointConfig& cfg);

    EndpointInfo info() const;
    /// INIT -> RTR -> RTS towards `remote`.
    Status connect(const EndpointInfo& remote);

    ibv_qp* qp() const { return qp_.get(); }
    ibv_cq* cq() const { return cq_.get(); }
    /// The half the peer writes into (and reads from).
    uint8_t* remote_area() { return buffer_.get(); }
    /// The half this side sends from, on a page of its own.
    uint8_t* local_area() { return buffer_.get() + page_round(cfg_.buffer_size); }
    uint32_t lkey() const { return mr_->lkey; }
    uint32_t size() const { return cfg_.buffer_size; }
    uint32_t max_inline() const { return max_inline_; }
    const EndpointInfo& remote() const { return remote_; }
    const GidChoice& gid() const { return gid_; }

  private:
    const Device* dev_ = nullptr;
    EndpointConfig cfg_;
    PdPtr pd_;
    CqPtr cq_;
    QpPtr qp_;
    PageBuffer buffer_;  // both halves, each page_round(cfg_.buffer_size)
    MrPtr mr_;
    GidChoice gid_;
    uint32_t psn_ = 0;
    uint32_t max_inline_ = 0;
    EndpointInfo remote_;
};

}  // namespace fabscope::perf
