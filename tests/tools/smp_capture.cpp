// smp_capture: dumps the raw 64-byte SMP data libibnetdisc received for one
// node, as hex lines, to make decoder fixtures from the lab:
//   fabscope lab exec -- smp_capture leaf02 > tests/fixtures/smp/leaf02.hex
// Each block is preceded by "# <attribute> <modifier>".

#include <infiniband/ibnetdisc.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

void dump(const char* what, int mod, const uint8_t* d) {
    std::printf("# %s %d\n", what, mod);
    for (int i = 0; i < 64; ++i) std::printf("%02x%s", d[i], (i % 16 == 15) ? "\n" : " ");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: smp_capture NODE-DESCRIPTION-PREFIX\n");
        return 2;
    }
    std::string want = argv[1];
    ibnd_config_t cfg{};
    ibnd_fabric_t* f = ibnd_discover_fabric(nullptr, 0, nullptr, &cfg);
    if (!f) return 3;
    for (ibnd_node_t* n = f->nodes; n; n = n->next) {
        std::string desc(n->nodedesc, strnlen(n->nodedesc, sizeof n->nodedesc));
        if (desc != want && desc.rfind(want + " ", 0) != 0) continue;
        dump("NodeInfo", 0, n->info);
        dump("NodeDescription", 0, reinterpret_cast<const uint8_t*>(n->nodedesc));
        if (n->type == IB_NODE_SWITCH) dump("SwitchInfo", 0, n->switchinfo);
        for (int p = 0; p <= n->numports; ++p) {
            if (n->ports[p]) dump("PortInfo", p, n->ports[p]->info);
        }
        ibnd_destroy_fabric(f);
        return 0;
    }
    ibnd_destroy_fabric(f);
    std::fprintf(stderr, "no node %s\n", want.c_str());
    return 1;
}
