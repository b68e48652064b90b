#include "host/lldp_lldpctl.h"

#include <fmt/format.h>
#include <lldpctl.h>

#include <memory>

#include "util/exit_status.h"

namespace fabscope::host {
namespace {

struct ConnFree {
    void operator()(lldpctl_conn_t* c) const { lldpctl_release(c); }
};
struct AtomUnref {
    void operator()(lldpctl_atom_t* a) const { lldpctl_atom_dec_ref(a); }
};
using Conn = std::unique_ptr<lldpctl_conn_t, ConnFree>;
using Atom = std::unique_ptr<lldpctl_atom_t, AtomUnref>;

std::string str(lldpctl_atom_t* a, lldpctl_key_t key) {
    const char* s = a ? lldpctl_atom_get_str(a, key) : nullptr;
    return s ? s : "";
}

/// Calls `each` with every atom of the list `list` (each one released after).
template <class F>
void each_atom(lldpctl_atom_t* list, F&& each) {
    if (!list) return;
    for (lldpctl_atom_iter_t* it = lldpctl_atom_iter(list); it;
         it = lldpctl_atom_iter_next(list, it)) {
        Atom value(lldpctl_atom_iter_value(list, it));
        if (value) each(value.get());
    }
}

std::vector<LldpOrgTlv> org_tlvs(lldpctl_atom_t* port) {
    std::vector<LldpOrgTlv> out;
    Atom list(lldpctl_atom_get(port, lldpctl_k_custom_tlvs));
    each_atom(list.get(), [&](lldpctl_atom_t* tlv) {
        LldpOrgTlv t;
        size_t n = 0;
        const uint8_t* oui = lldpctl_atom_get_buffer(tlv, lldpctl_k_custom_tlv_oui, &n);
        if (!oui || n != 3) return;
        t.oui = (uint32_t{oui[0]} << 16U) | (uint32_t{oui[1]} << 8U) | oui[2];
        t.subtype = static_cast<int>(lldpctl_atom_get_int(tlv, lldpctl_k_custom_tlv_oui_subtype));
        const uint8_t* info =
            lldpctl_atom_get_buffer(tlv, lldpctl_k_custom_tlv_oui_info_string, &n);
        if (info) t.info.assign(info, info + n);
        out.push_back(std::move(t));
    });
    return out;
}

LldpRaw neighbour(const std::string& interface, lldpctl_atom_t* port) {
    LldpRaw r;
    r.interface = interface;
    Atom chassis(lldpctl_atom_get(port, lldpctl_k_port_chassis));
    r.chassis_id_subtype = str(chassis.get(), lldpctl_k_chassis_id_subtype);
    r.chassis_id = str(chassis.get(), lldpctl_k_chassis_id);
    r.system_name = str(chassis.get(), lldpctl_k_chassis_name);
    r.system_description = str(chassis.get(), lldpctl_k_chassis_descr);
    r.port_id_subtype = str(port, lldpctl_k_port_id_subtype);
    r.port_id = str(port, lldpctl_k_port_id);
    r.port_description = str(port, lldpctl_k_port_descr);
    r.org_tlvs = org_tlvs(port);
    return r;
}

}  // namespace

std::string lldpd_default_socket() {
    const char* s = lldpctl_get_default_transport();
    return s ? s : "";
}

Result<std::vector<LldpRaw>> read_lldpd_neighbours(const std::string& socket) {
    std::string where = socket.empty() ? lldpd_default_socket() : socket;
    Conn conn(lldpctl_new_name(where.c_str(), nullptr, nullptr, nullptr));
    if (!conn) return make_error("lldp: out of memory opening liblldpctl", kExitCannotRun);
    Atom interfaces(lldpctl_get_interfaces(conn.get()));
    if (!interfaces) {
        return make_error(fmt::format("lldp: no lldpd answers on {}: {} (is lldpd running? "
                                      "`lldpd -u SOCKET` for another socket)",
                                      where, lldpctl_strerror(lldpctl_last_error(conn.get()))),
                          kExitCannotRun);
    }
    std::vector<LldpRaw> out;
    each_atom(interfaces.get(), [&](lldpctl_atom_t* iface) {
        std::string name = str(iface, lldpctl_k_interface_name);
        Atom port(lldpctl_get_port(iface));
        if (!port) return;
        Atom neighbours(lldpctl_atom_get(port.get(), lldpctl_k_port_neighbors));
        each_atom(neighbours.get(), [&](lldpctl_atom_t* n) { out.push_back(neighbour(name, n)); });
    });
    return out;
}

}  // namespace fabscope::host
