#include "model/json_io.h"
#include "rdma/ud_port.h"

namespace fabscope::perf {

nlohmann::json ud_address_to_json(const UdAddress& a) {
    return {{"qpn", a.qpn}, {"lid", a.lid}, {"gid", format_gid(a.gid)}, {"roce", a.roce}};
}

UdAddress ud_address_from_json(const nlohmann::json& j) {
    UdAddress a;
    a.qpn = json_io::get_uint<uint32_t>(j, "qpn");
    if (a.qpn == 0 || a.qpn > 0xFFFFFF)
        json_io::fail(j.at("qpn"), "is not a QP number (1 .. 2^24-1)");
    a.lid = json_io::get_uint<uint16_t>(j, "lid");
    a.gid = gid_from_json(j, "gid");
    a.roce = json_io::get_bool(j, "roce", true);
    return a;
}

}  // namespace fabscope::perf
