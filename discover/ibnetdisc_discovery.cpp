#include "discover/ibnetdisc_discovery.h"

#include <fmt/format.h>
#include <infiniband/ibnetdisc.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "discover/node_assembly.h"
#include "discover/smp_decode.h"
#include "util/exit_status.h"
#include "util/input_file.h"
#include "util/stderr_capture.h"
#include "util/time_util.h"
#include "util/version.h"

namespace fabscope {
namespace {

struct FabricDeleter {
    void operator()(ibnd_fabric_t* f) const { ibnd_destroy_fabric(f); }
};
using FabricPtr = std::unique_ptr<ibnd_fabric_t, FabricDeleter>;

SmpData data_of(const uint8_t (&a)[IB_SMP_DATA_SIZE]) {
    return SmpData(a, kSmpDataSize);
}

Node convert_node(const ibnd_node_t* in) {
    SmpReplies r;
    if (auto info = decode_node_info(data_of(in->info))) r.info = *info;
    // The library's own fields are what it matched the node by.
    r.info.node_guid = in->guid;
    r.info.type = static_cast<NodeType>(in->type);
    r.info.num_ports = static_cast<uint8_t>(in->numports);
    r.description = decode_node_description(
        SmpData(reinterpret_cast<const uint8_t*>(in->nodedesc), kSmpDataSize));
    r.enhanced_port0 = in->smaenhsp0 != 0;
    for (int i = 0; i <= in->numports; ++i) {
        const ibnd_port_t* p = in->ports[i];
        if (!p) continue;
        auto num = static_cast<uint8_t>(i);
        r.port_info[num] = raw_smp(data_of(p->info));
        r.port_guids[num] = p->guid;
    }
    Node n = assemble_node(r);
    for (Port& port : n.ports) {
        const ibnd_port_t* p = in->ports[port.num];
        if (p->remoteport && p->remoteport->node) {
            port.peer =
                PortRef{p->remoteport->node->guid, static_cast<uint8_t>(p->remoteport->portnum)};
        }
    }
    return n;
}

Result<Fabric> convert_fabric(const ibnd_fabric_t* f) {
    std::vector<Node> nodes;
    for (const ibnd_node_t* n = f->nodes; n; n = n->next) nodes.push_back(convert_node(n));
    return Fabric::build(std::move(nodes));
}

std::string last_line(const std::string& text) {
    std::string t = text;
    while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
    auto pos = t.rfind('\n');
    return pos == std::string::npos ? t : t.substr(pos + 1);
}

}  // namespace

Result<Snapshot> import_ibnetdiscover_cache(const std::string& path) {
    // Check the header ourselves: libibnetdisc only prints a warning on a bad file.
    if (auto regular = check_regular_input(path); !regular) return regular.error();
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return make_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)),
                          kExitUsage);
    uint8_t header[8] = {};
    in.read(reinterpret_cast<char*>(header), sizeof header);
    const uint32_t magic =
        static_cast<uint32_t>(header[0]) | static_cast<uint32_t>(header[1]) << 8 |
        static_cast<uint32_t>(header[2]) << 16 | static_cast<uint32_t>(header[3]) << 24;
    if (in.gcount() < static_cast<std::streamsize>(sizeof header) || magic != 0x8FE7832BU) {
        return make_error(
            fmt::format("{}: not an ibnetdiscover cache file (written by `ibnetdiscover --cache "
                        "FILE`); for a fabscope snapshot use --load",
                        path),
            kExitUsage);
    }
    in.close();

    Stopwatch sw;
    FabricPtr fabric;
    std::string chatter;
    {
        StderrCapture capture;
        fabric.reset(ibnd_load_fabric(path.c_str(), 0));
        chatter = capture.finish();
    }
    if (!fabric) {
        std::string why = last_line(chatter);
        return make_error(
            fmt::format("{}: cannot read the ibnetdiscover cache{}{} (truncated, or from an "
                        "incompatible version?)",
                        path, why.empty() ? "" : ": ", why),
            kExitUsage);
    }
    auto model = convert_fabric(fabric.get());
    if (!model) return make_error(fmt::format("{}: {}", path, model.error().message), kExitUsage);
    SnapshotSource src;
    src.method = "ibnetdiscover-cache";
    src.input_file = path;
    src.tool_version = version();
    src.started = iso8601_now();
    src.duration_s = sw.seconds();
    return Snapshot{std::move(src), std::move(model).value()};
}

}  // namespace fabscope
