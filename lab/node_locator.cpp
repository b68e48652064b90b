#include "lab/node_locator.h"

#include <infiniband/ibnetdisc.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

#include "model/fabric.h"
#include "util/exit_status.h"
#include "util/stderr_capture.h"

namespace fabscope {

int run_locate(const std::string& node_id, bool verbose) {
    std::unique_ptr<StderrCapture> quiet;
    if (!verbose) quiet = std::make_unique<StderrCapture>();
    ibnd_config_t cfg{};
    ibnd_fabric_t* f = ibnd_discover_fabric(nullptr, 0, nullptr, &cfg);
    if (quiet) quiet->finish();
    if (!f) {
        std::fprintf(stderr, "fabscope: cannot discover the lab fabric to find %s\n",
                     node_id.c_str());
        return kExitCannotRun;
    }
    int rc = kExitUsage;
    for (ibnd_node_t* n = f->nodes; n; n = n->next) {
        std::string desc(n->nodedesc, strnlen(n->nodedesc, sizeof n->nodedesc));
        if (desc != node_id && desc.rfind(node_id + " ", 0) != 0) continue;
        uint16_t lid = n->type == IB_NODE_SWITCH ? n->smalid : 0;
        for (int p = 1; lid == 0 && p <= n->numports; ++p) {
            if (n->ports[p]) lid = n->ports[p]->base_lid;
        }
        nlohmann::json j{{"guid", format_guid(n->guid)}, {"lid", lid}, {"description", desc}};
        std::printf("%s\n", j.dump().c_str());
        rc = kExitClean;
        break;
    }
    if (rc != kExitClean)
        std::fprintf(stderr, "fabscope: no node %s in the lab fabric\n", node_id.c_str());
    ibnd_destroy_fabric(f);
    return rc;
}

}  // namespace fabscope
