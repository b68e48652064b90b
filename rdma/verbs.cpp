#include "rdma/verbs.h"

#include <fmt/format.h>
#include <net/if.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "util/exit_status.h"

namespace fabscope::perf {
namespace {

struct DeviceList {
    ibv_device** list = nullptr;
    int n = 0;
    DeviceList() { list = ibv_get_device_list(&n); }  // not in the initialiser list: n is set first
    ~DeviceList() {
        if (list) ibv_free_device_list(list);
    }
    DeviceList(const DeviceList&) = delete;
    DeviceList& operator=(const DeviceList&) = delete;
};

constexpr const char* kNoDevice =
    "no RDMA device found: is the driver loaded (mlx5_ib, rdma_rxe for Soft-RoCE)? `ibv_devices` "
    "lists what "
    "libibverbs sees";

bool ipv4_mapped(const Gid& g) {
    for (int i = 0; i < 10; ++i) {
        if (g[static_cast<size_t>(i)] != 0) return false;
    }
    return g[10] == 0xff && g[11] == 0xff;
}

/// The port of `dev` that runs over the network interface `netdev` (RoCE:
/// its GIDs name the interface's index), or 0.
int port_over(ibv_device* dev, const std::string& netdev) {
    const ContextPtr ctx(ibv_open_device(dev));
    ibv_device_attr attr{};
    if (!ctx || ibv_query_device(ctx.get(), &attr) != 0) return 0;
    for (uint32_t port = 1; port <= attr.phys_port_cnt; ++port) {
        ibv_port_attr pa{};
        if (ibv_query_port(ctx.get(), static_cast<uint8_t>(port), &pa) != 0) continue;
        for (int i = 0; i < pa.gid_tbl_len; ++i) {
            ibv_gid_entry e{};
            if (ibv_query_gid_ex(ctx.get(), port, static_cast<uint32_t>(i), &e, 0) != 0 ||
                e.ndev_ifindex == 0)
                continue;
            std::array<char, IF_NAMESIZE> ifname{};
            if (if_indextoname(e.ndev_ifindex, ifname.data()) && netdev == ifname.data())
                return static_cast<int>(port);
        }
    }
    return 0;
}

}  // namespace

void PageFree::operator()(uint8_t* p) const {
    std::free(p);
}

size_t page_size() {
    static const size_t page = [] {
        long n = ::sysconf(_SC_PAGESIZE);
        return n > 0 ? static_cast<size_t>(n) : size_t{4096};
    }();
    return page;
}

size_t page_round(size_t bytes) {
    size_t page = page_size();
    return (std::max<size_t>(bytes, 1) + page - 1) / page * page;
}

PageBuffer page_buffer(size_t bytes) {
    size_t n = page_round(bytes);
    auto* p = static_cast<uint8_t*>(std::aligned_alloc(page_size(), n));
    if (p) std::memset(p, 0, n);
    return PageBuffer(p);
}

std::vector<std::string> device_names() {
    DeviceList d;
    std::vector<std::string> out;
    out.reserve(static_cast<size_t>(std::max(0, d.n)));
    for (int i = 0; i < d.n; ++i) out.emplace_back(ibv_get_device_name(d.list[i]));
    return out;
}

int mtu_bytes(ibv_mtu m) {
    return 128 << static_cast<int>(m);
}

Result<Device> Device::open(const std::string& name, int port) {
    DeviceList list;
    if (!list.list || list.n == 0) return make_error(kNoDevice, kExitCannotRun);
    ibv_device* dev = nullptr;
    std::string known;
    for (int i = 0; i < list.n; ++i) {
        const char* n = ibv_get_device_name(list.list[i]);
        known += fmt::format("{}{}", known.empty() ? "" : ", ", n);
        if (name.empty() ? !dev : name == n) dev = list.list[i];
    }
    int netdev_port = 0;  // `name` is the network interface a RoCE port runs over
    for (int i = 0; !dev && !name.empty() && i < list.n; ++i) {
        netdev_port = port_over(list.list[i], name);
        if (netdev_port) dev = list.list[i];
    }
    if (!dev) {
        return make_error(fmt::format("no RDMA device named {}, nor one over a network interface "
                                      "of that name (found: {}); pick one with -d",
                                      name, known),
                          kExitCannotRun);
    }
    Device d;
    d.name_ = ibv_get_device_name(dev);
    d.ctx_.reset(ibv_open_device(dev));
    if (!d.ctx_) {
        int err = errno;
        return make_error(
            fmt::format("cannot open RDMA device {}: {}{}", d.name_, std::strerror(err),
                        err == EACCES || err == EPERM
                            ? " (run as root, or give your user access to /dev/infiniband/uverbs*)"
                            : ""),
            kExitCannotRun);
    }
    if (ibv_query_device(d.ctx_.get(), &d.attr_) != 0) {
        return make_error(
            fmt::format("cannot query RDMA device {}: {}", d.name_, std::strerror(errno)),
            kExitCannotRun);
    }
    int first_active = 0;
    for (int p = 1; p <= d.attr_.phys_port_cnt; ++p) {
        ibv_port_attr a{};
        if (ibv_query_port(d.ctx_.get(), static_cast<uint8_t>(p), &a) == 0 &&
            a.state == IBV_PORT_ACTIVE) {
            if (!first_active) first_active = p;
        }
    }
    d.port_ = port ? port : netdev_port ? netdev_port : (first_active ? first_active : 1);
    if (d.port_ < 1 || d.port_ > d.attr_.phys_port_cnt) {
        return make_error(
            fmt::format("{} has no port {} (it has {})", d.name_, d.port_, d.attr_.phys_port_cnt),
            kExitCannotRun);
    }
    if (ibv_query_port(d.ctx_.get(), static_cast<uint8_t>(d.port_), &d.port_attr_) != 0) {
        return make_error(
            fmt::format("cannot query {} port {}: {}", d.name_, d.port_, std::strerror(errno)),
            kExitCannotRun);
    }
    if (d.port_attr_.state != IBV_PORT_ACTIVE) {
        return make_error(
            fmt::format("{} port {} is not active (state {}): check the link (`ibv_devinfo -d {}`)",
                        d.name_, d.port_, ibv_port_state_str(d.port_attr_.state), d.name_),
            kExitCannotRun);
    }
    return d;
}

Result<GidChoice> Device::pick_gid(std::optional<int> index) const {
    std::vector<ibv_gid_entry> table(
        static_cast<size_t>(std::max(1, port_attr_.gid_tbl_len)) *
        static_cast<size_t>(std::max<uint8_t>(1, attr_.phys_port_cnt)));
    ssize_t n = ibv_query_gid_table(ctx_.get(), table.data(), table.size(), 0);
    if (n < 0)
        return make_error(fmt::format("cannot read the GID table of {}: {}", name_,
                                      std::strerror(static_cast<int>(-n))),
                          kExitCannotRun);
    auto type_name = [](uint32_t t) {
        return t == IBV_GID_TYPE_ROCE_V2 ? "RoCE v2" : t == IBV_GID_TYPE_ROCE_V1 ? "RoCE v1" : "IB";
    };
    const ibv_gid_entry* best = nullptr;
    int rank = -1;
    for (ssize_t i = 0; i < n; ++i) {
        const ibv_gid_entry& e = table[static_cast<size_t>(i)];
        if (e.port_num != static_cast<uint32_t>(port_)) continue;
        Gid g{};
        std::memcpy(g.data(), e.gid.raw, g.size());
        if (index) {
            if (static_cast<int>(e.gid_index) == *index) {
                best = &e;
                break;
            }
            continue;
        }
        int r = !roce() ? (e.gid_index == 0 ? 3 : 0)
                        : (e.gid_type == IBV_GID_TYPE_ROCE_V2 ? (ipv4_mapped(g) ? 3 : 2) : 1);
        if (r > rank) {
            rank = r;
            best = &e;
        }
    }
    if (!best) {
        return make_error(
            index ? fmt::format("{} port {} has no GID at index {} (`show_gids` lists them)", name_,
                                port_, *index)
                  : fmt::format(
                        "{} port {} has no usable GID: on RoCE, is an IP address configured on its "
                        "netdev?",
                        name_, port_),
            kExitCannotRun);
    }
    GidChoice c;
    c.index = static_cast<int>(best->gid_index);
    std::memcpy(c.gid.data(), best->gid.raw, c.gid.size());
    c.type = type_name(best->gid_type);
    return c;
}

}  // namespace fabscope::perf
