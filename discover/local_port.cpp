#include "discover/local_port.h"

#include <endian.h>
#include <fmt/format.h>
#include <infiniband/umad.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/exit_status.h"

namespace fabscope {
namespace {

constexpr const char* kNoDeviceHint =
    "is an InfiniBand HCA present and its driver loaded (ls /sys/class/infiniband)? "
    "To rehearse on the simulated fabric: `fabscope lab up`, then run the command under "
    "`fabscope lab exec [--name NAME] -- fabscope ...`";

struct CaGuard {
    umad_ca_t ca{};
    bool held = false;
    ~CaGuard() {
        if (held) umad_release_ca(&ca);
    }
};

// The CAs that are there. With no device at all, libibumad still lists a
// default name ("mthca0") that nobody has: only names it can read count.
std::vector<std::string> ca_names() {
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN] = {};
    int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    std::vector<std::string> out;
    out.reserve(n > 0 ? static_cast<size_t>(n) : 0);
    for (int i = 0; i < n; ++i) {
        umad_ca_t ca{};
        if (umad_get_ca(names[i], &ca) < 0) continue;
        umad_release_ca(&ca);
        out.emplace_back(names[i]);
    }
    return out;
}

bool is_infiniband(const umad_port_t* p) {
    return p && std::strcmp(p->link_layer, "Ethernet") != 0;
}

LocalPort from_umad(const umad_port_t* p) {
    LocalPort lp;
    lp.ca = p->ca_name;
    lp.port = p->portnum;
    lp.lid = static_cast<Lid>(p->base_lid);
    lp.sm_lid = static_cast<Lid>(p->sm_lid);
    lp.state = static_cast<int>(p->state);
    lp.phys_state = static_cast<int>(p->phys_state);
    lp.port_guid = be64toh(p->port_guid);
    lp.subnet_prefix = be64toh(p->gid_prefix);
    return lp;
}

Result<LocalPort> pick_port(const std::string& ca, int port) {
    CaGuard g;
    if (int rc = umad_get_ca(ca.c_str(), &g.ca); rc < 0) {
        return make_error(fmt::format("cannot read CA {}: {}", ca, std::strerror(-rc)),
                          kExitCannotRun);
    }
    g.held = true;
    if (port > 0) {
        if (port > g.ca.numports || !g.ca.ports[port]) {
            return make_error(fmt::format("CA {} has no port {} (it has {} port{})", ca, port,
                                          g.ca.numports, g.ca.numports == 1 ? "" : "s"),
                              kExitCannotRun);
        }
        if (!is_infiniband(g.ca.ports[port])) {
            return make_error(
                fmt::format("{} port {} is {} (RoCE), not InfiniBand: SMP discovery needs an "
                            "InfiniBand port",
                            ca, port, g.ca.ports[port]->link_layer),
                kExitCannotRun);
        }
        return from_umad(g.ca.ports[port]);
    }
    const umad_port_t* first = nullptr;
    for (int i = 1; i <= g.ca.numports && i < UMAD_CA_MAX_PORTS; ++i) {
        const umad_port_t* p = g.ca.ports[i];
        if (!is_infiniband(p)) continue;
        if (!first) first = p;
        if (p->state == 4) return from_umad(p);
    }
    if (first) return from_umad(first);
    return make_error(fmt::format("CA {} has no InfiniBand port", ca), kExitCannotRun);
}

}  // namespace

Result<LocalPort> resolve_local_port(const std::string& ca, int port) {
    if (umad_init() < 0) {
        return make_error(fmt::format("cannot initialise libibumad; {}", kNoDeviceHint),
                          kExitCannotRun);
    }
    std::vector<std::string> names = ca_names();
    if (names.empty()) {
        return make_error(
            fmt::format("no InfiniBand device found{}; {}",
                        ca.empty() ? "" : fmt::format(" (-C {} asked for)", ca), kNoDeviceHint),
            kExitCannotRun);
    }
    Result<LocalPort> chosen = make_error("", kExitCannotRun);
    if (!ca.empty()) {
        bool known = false;
        for (const auto& n : names) known = known || n == ca;
        if (!known) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            return make_error(fmt::format("no CA named {} (found: {}); pick one with -C", ca, list),
                              kExitCannotRun);
        }
        chosen = pick_port(ca, port);
    } else {
        // Like the diags: the first CA with an active InfiniBand port.
        for (const auto& n : names) {
            chosen = pick_port(n, port);
            if (chosen && chosen->state == 4) break;
        }
    }
    if (!chosen) return chosen;
    LocalPort lp = *chosen;
    // Directed-route SMPs need only a physical link; no SM is required.
    if (lp.phys_state != 5) {
        return make_error(
            fmt::format("{} port {} has no physical link (state {}, physical state {}): check "
                        "the cable, or pick another port with -C/-P",
                        lp.ca, lp.port, lp.state, lp.phys_state),
            kExitCannotRun);
    }
    int fd = umad_open_port(lp.ca.c_str(), lp.port);
    if (fd < 0) {
        int err = -fd;
        if (err == EACCES || err == EPERM) {
            return make_error(
                fmt::format("permission denied opening the umad device of {} port {}: run as "
                            "root, or give your user read/write access to /dev/infiniband/umad* "
                            "(e.g. a udev rule for group rdma)",
                            lp.ca, lp.port),
                kExitCannotRun);
        }
        return make_error(fmt::format("cannot open the umad device of {} port {}: {}", lp.ca,
                                      lp.port, std::strerror(err)),
                          kExitCannotRun);
    }
    umad_close_port(fd);
    return lp;
}

Result<std::vector<LocalPort>> list_local_ports() {
    if (umad_init() < 0) {
        return make_error(fmt::format("cannot initialise libibumad; {}", kNoDeviceHint),
                          kExitCannotRun);
    }
    std::vector<std::string> names = ca_names();
    if (names.empty())
        return make_error(fmt::format("no InfiniBand device found; {}", kNoDeviceHint),
                          kExitCannotRun);
    std::vector<LocalPort> out;
    std::string down;
    for (const auto& name : names) {
        CaGuard g;
        if (umad_get_ca(name.c_str(), &g.ca) < 0) continue;
        g.held = true;
        for (int i = 1; i <= g.ca.numports && i < UMAD_CA_MAX_PORTS; ++i) {
            const umad_port_t* p = g.ca.ports[i];
            if (!is_infiniband(p)) continue;
            if (p->phys_state == 5) {
                out.push_back(from_umad(p));
            } else {
                down += fmt::format("{}{} port {}", down.empty() ? "" : ", ", name, i);
            }
        }
    }
    if (out.empty()) {
        return make_error(
            fmt::format("no local InfiniBand port has a physical link{}{}: check the cables",
                        down.empty() ? "" : ": ", down),
            kExitCannotRun);
    }
    return out;
}

}  // namespace fabscope
