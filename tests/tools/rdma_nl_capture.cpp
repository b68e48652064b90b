// rdma_nl_capture: dumps the raw replies of the RDMA netlink reads fabscope
// makes (one DEV_GET dump, one PORT_GET dump per device), for parser
// fixtures: one "# reply N" line and hex bytes per buffer received. Run it
// where RDMA devices are, e.g. in a Soft-RoCE host namespace of the VM lab.

#include <cstdio>

#include "host/rdma_netlink.h"

int main() {
    std::vector<std::vector<uint8_t>> raw;
    auto r = fabscope::host::read_rdma_netlink(&raw);
    if (!r) {
        std::fprintf(stderr, "rdma_nl_capture: %s\n", r.error().message.c_str());
        return 3;
    }
    for (size_t i = 0; i < raw.size(); ++i) {
        std::printf("# reply %zu\n", i);
        for (size_t j = 0; j < raw[i].size(); ++j)
            std::printf("%02x%s", raw[i][j], (j % 16 == 15 || j + 1 == raw[i].size()) ? "\n" : " ");
    }
    return 0;
}
