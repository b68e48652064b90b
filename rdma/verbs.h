#pragma once
// libibverbs resources owned by RAII types, and choosing the device, port
// and GID a test runs on (RoCEv2 picked automatically, overridable).

#include <infiniband/verbs.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rdma/endpoint_info.h"
#include "util/result.h"

namespace fabscope::perf {

struct ContextDeleter {
    void operator()(ibv_context* c) const { ibv_close_device(c); }
};
struct PdDeleter {
    void operator()(ibv_pd* p) const { ibv_dealloc_pd(p); }
};
struct CqDeleter {
    void operator()(ibv_cq* c) const { ibv_destroy_cq(c); }
};
struct QpDeleter {
    void operator()(ibv_qp* q) const { ibv_destroy_qp(q); }
};
struct MrDeleter {
    void operator()(ibv_mr* m) const { ibv_dereg_mr(m); }
};
using ContextPtr = std::unique_ptr<ibv_context, ContextDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using QpPtr = std::unique_ptr<ibv_qp, QpDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;

/// Memory to register: page-aligned, as perftest's, so that a message starts
/// on a page and no MTU-sized packet of it straddles two (an unaligned buffer
/// split every fourth 1 KiB packet's copy in two, on both sides).
struct PageFree {
    void operator()(uint8_t* p) const;
};
using PageBuffer = std::unique_ptr<uint8_t[], PageFree>;
/// The page size, and `bytes` rounded up to it.
size_t page_size();
size_t page_round(size_t bytes);
/// `bytes` (rounded up to whole pages) zeroed; null when memory is short.
PageBuffer page_buffer(size_t bytes);

struct GidChoice {
    int index = 0;
    Gid gid{};
    std::string type;  ///< "RoCE v2", "RoCE v1", "IB"
};

/// Names of the RDMA devices this process can see.
std::vector<std::string> device_names();

/// An opened device port.
class Device {
  public:
    /// Opens `name` ("" = the first device) and port `port` (0 = the first
    /// active one). `name` may also be the network interface a RoCE port
    /// runs over ("eth2", as `rdma link` shows it): the device whose GIDs
    /// name it, and that port unless `port` says otherwise. Errors carry
    /// kExitCannotRun and say what to try.
    static Result<Device> open(const std::string& name, int port);

    ibv_context* context() const { return ctx_.get(); }
    const std::string& name() const { return name_; }
    int port() const { return port_; }
    const ibv_port_attr& port_attr() const { return port_attr_; }
    const ibv_device_attr& attr() const { return attr_; }
    bool roce() const { return port_attr_.link_layer == IBV_LINK_LAYER_ETHERNET; }

    /// The GID to use: `index` if given, else on RoCE the first RoCE v2 GID
    /// of an IPv4 address (then any RoCE v2, then anything); on InfiniBand 0.
    Result<GidChoice> pick_gid(std::optional<int> index) const;

  private:
    ContextPtr ctx_;
    std::string name_;
    int port_ = 1;
    ibv_port_attr port_attr_{};
    ibv_device_attr attr_{};
};

/// "1024" for IBV_MTU_1024.
int mtu_bytes(ibv_mtu m);

}  // namespace fabscope::perf
