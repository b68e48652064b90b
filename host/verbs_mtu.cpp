#include "host/verbs_mtu.h"

#include <infiniband/verbs.h>

#include <memory>

namespace fabscope::host {
namespace {

int mtu_bytes(ibv_mtu m) {
    switch (m) {
        case IBV_MTU_256: return 256;
        case IBV_MTU_512: return 512;
        case IBV_MTU_1024: return 1024;
        case IBV_MTU_2048: return 2048;
        case IBV_MTU_4096: return 4096;
    }
    return 0;
}

}  // namespace

void fill_active_mtu(HostInventory& inv) {
    int n = 0;
    std::unique_ptr<ibv_device*, decltype(&ibv_free_device_list)> list(ibv_get_device_list(&n),
                                                                       ibv_free_device_list);
    if (!list) return;
    for (int i = 0; i < n; ++i) {
        const char* dev_name = ibv_get_device_name(list.get()[i]);
        if (!dev_name) continue;
        for (auto& d : inv.devices) {
            if (d.name != dev_name) continue;
            std::unique_ptr<ibv_context, decltype(&ibv_close_device)> ctx(
                ibv_open_device(list.get()[i]), ibv_close_device);
            if (!ctx) continue;
            for (auto& p : d.ports) {
                ibv_port_attr attr{};
                if (ibv_query_port(ctx.get(), static_cast<uint8_t>(p.port), &attr) != 0) continue;
                if (int b = mtu_bytes(attr.active_mtu)) p.active_mtu = b;
            }
        }
    }
}

}  // namespace fabscope::host
