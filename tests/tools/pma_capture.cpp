// pma_capture: dumps raw replies for decoder fixtures, with libibmad:
//   pma_capture LID PORT   -> "# PortCounters PORT" and "# PortCountersExtended PORT", 192 bytes
//   each pma_capture LID lft B  -> "# LinearForwardingTable B", 64 bytes
// Run it in the lab: fabscope lab exec -- pma_capture 6 5

#include <infiniband/mad.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

void dump(const char* what, int mod, const uint8_t* d, int n) {
    std::printf("# %s %d\n", what, mod);
    for (int i = 0; i < n; ++i) std::printf("%02x%s", d[i], (i % 16 == 15) ? "\n" : " ");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: pma_capture LID PORT | pma_capture LID lft BLOCK\n");
        return 2;
    }
    int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS, IB_PERFORMANCE_CLASS};
    ibmad_port* port = mad_rpc_open_port(nullptr, 0, classes, 3);
    if (!port) return 3;
    ib_portid_t id{};
    ib_portid_set(&id, std::atoi(argv[1]), 0, 0);
    uint8_t buf[IB_MAD_SIZE] = {};
    int rc = 0;
    if (argc == 4 && std::strcmp(argv[2], "lft") == 0) {
        int block = std::atoi(argv[3]);
        if (smp_query_via(buf, &id, IB_ATTR_LINEARFORWTBL, static_cast<unsigned>(block), 0, port)) {
            dump("LinearForwardingTable", block, buf, 64);
        } else {
            rc = 1;
        }
    } else {
        int p = std::atoi(argv[2]);
        if (pma_query_via(buf, &id, p, 0, IB_GSI_PORT_COUNTERS, port)) {
            dump("PortCounters", p, buf, 192);
        } else {
            rc = 1;
        }
        std::memset(buf, 0, sizeof buf);
        if (pma_query_via(buf, &id, p, 0, IB_GSI_PORT_COUNTERS_EXT, port)) {
            dump("PortCountersExtended", p, buf, 192);
        } else {
            rc = 1;
        }
    }
    mad_rpc_close_port(port);
    return rc;
}
