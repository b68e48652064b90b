#pragma once
// One side of a test: a reliable-connected QP with its PD, CQ and a
// registered buffer, and what the other side needs to know to reach it.

#include <nlohmann/json.hpp>

#include "perf/verbs.h"
#include "util/result.h"

namespace fabscope::perf {

/// What one side tells the other through the rendezvous.
struct EndpointInfo {
    uint32_t qpn = 0;
    uint32_t psn = 0;
    uint16_t lid = 0;
    Gid gid{};
    uint64_t addr = 0;  ///< the buffer the peer writes into and reads from
    uint32_t rkey = 0;
    uint32_t size = 0;  ///< of that buffer
    int mtu = 1024;     ///< active MTU of the port, bytes
    bool roce = true;
};

nlohmann::json info_to_json(const EndpointInfo& e);
/// Throws nlohmann errors on a bad document.
EndpointInfo info_from_json(const nlohmann::json& j);

struct EndpointConfig {
    uint32_t buffer_size = 65536;  ///< the remotely accessible half; as much again for sending
    uint32_t send_depth = 128;
    uint32_t recv_depth = 0;  ///< receives posted for SEND tests
    uint32_t max_inline = 0;  ///< wanted; the device may allow less
    std::optional<int> gid_index;
    uint8_t traffic_class = 0;  ///< RoCE: the low two bits are ECN (2 = ECT(0))
    int mtu_cap = 0;            ///< path MTU at most this (bytes); 0: the port's active MTU
};

class Endpoint {
  public:
    static Result<Endpoint> create(const Device& dev, const EndpointConfig& cfg);

    EndpointInfo info() const;
    /// INIT -> RTR -> RTS towards `remote`.
    Status connect(const EndpointInfo& remote);

    ibv_qp* qp() const { return qp_.get(); }
    ibv_cq* cq() const { return cq_.get(); }
    /// The half the peer writes into (and reads from).
    uint8_t* remote_area() { return buffer_.data(); }
    /// The half this side sends from.
    uint8_t* local_area() { return buffer_.data() + cfg_.buffer_size; }
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
    std::vector<uint8_t> buffer_;
    MrPtr mr_;
    GidChoice gid_;
    uint32_t psn_ = 0;
    uint32_t max_inline_ = 0;
    EndpointInfo remote_;
};

}  // namespace fabscope::perf
