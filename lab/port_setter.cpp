#include "lab/port_setter.h"

#include <fmt/format.h>
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "discover/smp_decode.h"
#include "lab/lab_attach.h"
#include "model/link_rate.h"
#include "util/exit_status.h"
#include "util/stderr_capture.h"

namespace fabscope {
namespace {

struct FabricDeleter {
    void operator()(ibnd_fabric_t* f) const { ibnd_destroy_fabric(f); }
};
struct PortDeleter {
    void operator()(ibmad_port* p) const { mad_rpc_close_port(p); }
};

bool name_matches(const ibnd_node_t* n, const std::string& id) {
    std::string desc(n->nodedesc, strnlen(n->nodedesc, sizeof n->nodedesc));
    return desc == id || desc.rfind(id + " ", 0) == 0;
}

struct Change {
    bool width = true;
    Width w = Width::X4;
    Speed s = Speed::HDR;
};

// Enabled masks the simulator maps to one active speed (its PortInfo Set
// ignores any other value, e.g. QDR alone): the speed and everything below it.
unsigned speed_enabled_mask(Speed s) {
    switch (s) {
        case Speed::SDR: return 1;
        case Speed::DDR: return 3;
        default: return 7;  // QDR and the extended speeds
    }
}
unsigned speed_ext_enabled_mask(Speed s) {
    switch (s) {
        case Speed::FDR: return 1;
        case Speed::EDR: return 3;
        case Speed::HDR: return 7;
        default: return 30;  // "extended speeds disabled" (IBA 14.2.5.6)
    }
}

void apply_change(uint8_t* info, const Change& c) {
    // State fields 0 = "no change": only the enabled masks move.
    mad_set_field(info, 0, IB_PORT_STATE_F, 0);
    mad_set_field(info, 0, IB_PORT_PHYS_STATE_F, 0);
    if (c.width) {
        mad_set_field(info, 0, IB_PORT_LINK_WIDTH_ENABLED_F, portinfo_width_bits(WidthSet{c.w}));
        return;
    }
    mad_set_field(info, 0, IB_PORT_LINK_SPEED_ENABLED_F, speed_enabled_mask(c.s));
    mad_set_field(info, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, speed_ext_enabled_mask(c.s));
}

// ibsim accepts no LinkSpeedExtEnabled that turns extended speeds off, so a
// link that runs FDR or faster never goes back to SDR..QDR.
std::string hint(const Change& c, const std::optional<Port>& now) {
    if (c.width || c.s > Speed::QDR || !now || !now->speed_active ||
        *now->speed_active <= Speed::QDR) {
        return "";
    }
    return " (the simulator cannot turn extended speeds off at run time: for SDR, DDR or QDR "
           "links start the lab with `--speed qdr` or lower)";
}

std::string first_word(const char* desc) {
    std::string d(desc, strnlen(desc, IB_SMP_DATA_SIZE));
    return d.substr(0, d.find(' '));
}

std::optional<Port> read_port(ibnd_port_t* end, ibmad_port* mad) {
    ib_portid_t pid = end->node->path_portid;
    uint8_t info[IB_SMP_DATA_SIZE] = {};
    if (!smp_query_via(info, &pid, IB_ATTR_PORT_INFO, static_cast<unsigned>(end->portnum), 0,
                       mad)) {
        return std::nullopt;
    }
    ibnd_node_t* node = end->node;
    uint32_t cap = node->type == IB_NODE_SWITCH && node->ports[0]
                       ? decode_port_capability_mask(SmpData(node->ports[0]->info, kSmpDataSize))
                       : decode_port_capability_mask(SmpData(info, kSmpDataSize));
    return decode_port_info(SmpData(info, kSmpDataSize), static_cast<uint8_t>(end->portnum), cap);
}

}  // namespace

int run_set_port(const std::vector<std::string>& words, bool verbose) {
    if (words.size() != 4) {
        std::fprintf(stderr, "fabscope: lab _set-port NODE PORT width|speed VALUE\n");
        return kExitUsage;
    }
    const std::string& id = words[0];
    int portnum = std::atoi(words[1].c_str());
    Change change;
    change.width = words[2] == "width";
    if (change.width) {
        auto w = parse_width(words[3]);
        if (!w) return kExitUsage;
        change.w = *w;
    } else {
        auto s = parse_speed(words[3]);
        if (!s) return kExitUsage;
        change.s = *s;
    }

    // This writes PortInfo: never anywhere but the lab's simulator.
    if (auto lab = attached_lab("_set-port"); !lab) {
        std::fprintf(stderr, "fabscope: %s\n", lab.error().message.c_str());
        return lab.error().code;
    }

    std::unique_ptr<StderrCapture> quiet;
    if (!verbose) quiet = std::make_unique<StderrCapture>();
    ibnd_config_t cfg{};
    std::unique_ptr<ibnd_fabric_t, FabricDeleter> fabric(
        ibnd_discover_fabric(nullptr, 0, nullptr, &cfg));
    int classes[] = {IB_SMI_CLASS, IB_SMI_DIRECT_CLASS};
    std::unique_ptr<ibmad_port, PortDeleter> port(mad_rpc_open_port(nullptr, 0, classes, 2));
    if (quiet) quiet->finish();
    if (!fabric || !port) {
        std::fprintf(stderr, "fabscope: cannot reach the lab fabric to change %s[%d]\n", id.c_str(),
                     portnum);
        return kExitCannotRun;
    }
    ibnd_node_t* node = nullptr;
    for (ibnd_node_t* n = fabric->nodes; n && !node; n = n->next) {
        if (name_matches(n, id)) node = n;
    }
    if (!node || portnum < 1 || portnum > node->numports || !node->ports[portnum]) {
        std::fprintf(stderr, "fabscope: %s[%d] not found in the discovered lab fabric\n",
                     id.c_str(), portnum);
        return kExitUsage;
    }
    ibnd_port_t* near = node->ports[portnum];
    ibnd_port_t* far = near->remoteport;
    if (!far) {
        std::fprintf(stderr, "fabscope: %s[%d] has no link to degrade (is it down?)\n", id.c_str(),
                     portnum);
        return kExitUsage;
    }
    for (ibnd_port_t* end : {near, far}) {
        ib_portid_t pid = end->node->path_portid;
        uint8_t info[IB_SMP_DATA_SIZE] = {};
        if (!smp_query_via(info, &pid, IB_ATTR_PORT_INFO, static_cast<unsigned>(end->portnum), 0,
                           port.get())) {
            std::fprintf(stderr, "fabscope: PortInfo query of %s port %d failed\n",
                         end->node->nodedesc, end->portnum);
            return kExitCannotRun;
        }
        apply_change(info, change);
        if (!smp_set_via(info, &pid, IB_ATTR_PORT_INFO, static_cast<unsigned>(end->portnum), 0,
                         port.get())) {
            std::fprintf(stderr, "fabscope: PortInfo set on %s port %d failed\n",
                         end->node->nodedesc, end->portnum);
            return kExitCannotRun;
        }
    }
    // Read back what both ends now run: the fault is there only if both say so.
    std::optional<Port> a = read_port(near, port.get());
    std::optional<Port> b = read_port(far, port.get());
    auto rate = [](const std::optional<Port>& p) {
        return fmt::format("{} {}",
                           p && p->width_active ? std::string(name(*p->width_active)) : "?",
                           p && p->speed_active ? std::string(name(*p->speed_active)) : "?");
    };
    bool done = a && b &&
                (change.width ? a->width_active == change.w && b->width_active == change.w
                              : a->speed_active == change.s && b->speed_active == change.s);
    if (!done) {
        std::fprintf(stderr,
                     "fabscope: %s[%d] <-> %s[%d]: asked for %s %s, the ports read back %s / %s: "
                     "the simulator did not apply it%s\n",
                     id.c_str(), portnum, far->node->nodedesc, far->portnum, words[2].c_str(),
                     words[3].c_str(), rate(a).c_str(), rate(b).c_str(), hint(change, a).c_str());
        return kExitCannotRun;
    }
    nlohmann::json j{
        {"width", a->width_active ? std::string(name(*a->width_active)) : ""},
        {"speed", a->speed_active ? std::string(name(*a->speed_active)) : ""},
        {"peer", fmt::format("{}[{}]", first_word(far->node->nodedesc), far->portnum)}};
    std::printf("%s\n", j.dump().c_str());
    return kExitClean;
}

}  // namespace fabscope
