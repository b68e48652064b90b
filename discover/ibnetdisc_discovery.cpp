#include "discover/ibnetdisc_discovery.h"

#include <fmt/format.h>
#include <infiniband/ibnetdisc.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>

#include "discover/local_port.h"
#include "discover/smp_decode.h"
#include "util/exit_status.h"
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
    Node n;
    auto info = decode_node_info(data_of(in->info));
    n.guid = in->guid;
    n.type = static_cast<NodeType>(in->type);
    n.num_ports = static_cast<uint8_t>(in->numports);
    if (info) {
        n.system_guid = info->system_guid;
        n.vendor_id = info->vendor_id;
        n.device_id = info->device_id;
        n.revision = info->revision;
    }
    n.description = decode_node_description(
        SmpData(reinterpret_cast<const uint8_t*>(in->nodedesc), kSmpDataSize));
    n.enhanced_port0 = in->type == IB_NODE_SWITCH && in->smaenhsp0 != 0;

    // A switch reports IsExtendedSpeedsSupported in port 0's capability mask only.
    uint32_t switch_cap = 0;
    if (in->type == IB_NODE_SWITCH && in->ports[0])
        switch_cap = decode_port_capability_mask(data_of(in->ports[0]->info));

    for (int i = 0; i <= in->numports; ++i) {
        const ibnd_port_t* p = in->ports[i];
        if (!p) continue;
        uint32_t ext_mask =
            in->type == IB_NODE_SWITCH ? switch_cap : decode_port_capability_mask(data_of(p->info));
        Port port = decode_port_info(data_of(p->info), static_cast<uint8_t>(i), ext_mask);
        port.guid = p->guid;
        port.lid = p->base_lid;
        port.lmc = p->lmc;
        if (p->remoteport && p->remoteport->node) {
            port.peer =
                PortRef{p->remoteport->node->guid, static_cast<uint8_t>(p->remoteport->portnum)};
        }
        n.ports.push_back(port);
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

Result<Snapshot> discover_with_ibnetdisc(const IbnetdiscOptions& opts) {
    std::string chatter;
    Result<LocalPort> local = make_error("", kExitCannotRun);
    {
        StderrCapture capture;
        local = resolve_local_port(opts.ca, opts.ca_port);
        chatter += capture.finish();
    }
    if (opts.verbose && !chatter.empty()) std::fputs(chatter.c_str(), stderr);
    if (!local) return local.error();

    ibnd_config_t cfg{};
    cfg.max_smps = opts.max_smps;
    cfg.timeout_ms = opts.timeout_ms;
    cfg.retries = opts.retries;
    cfg.max_hops = opts.max_hops;
    cfg.debug = opts.verbose ? 1 : 0;

    SnapshotSource src;
    src.method = "ibnetdisc";
    src.ca = local->ca;
    src.ca_port = local->port;
    src.tool_version = version();
    src.started = iso8601_now();

    Stopwatch sw;
    FabricPtr fabric;
    {
        std::unique_ptr<StderrCapture> capture;
        if (!opts.verbose) capture = std::make_unique<StderrCapture>();
        std::string ca = local->ca;
        fabric.reset(ibnd_discover_fabric(ca.data(), local->port, nullptr, &cfg));
        if (capture) chatter = capture->finish();
    }
    src.duration_s = sw.seconds();
    if (!fabric) {
        std::string why = last_line(chatter);
        return make_error(
            fmt::format("discovery from {} port {} failed{}{}; run with -v for the library's "
                        "messages",
                        local->ca, local->port, why.empty() ? "" : ": ", why),
            kExitCannotRun);
    }
    src.mads_sent = fabric->total_mads_used;
    auto model = convert_fabric(fabric.get());
    if (!model) {
        return make_error(
            fmt::format("discovery from {} port {} returned an inconsistent fabric: {}", local->ca,
                        local->port, model.error().message),
            kExitCannotRun);
    }
    return Snapshot{std::move(src), std::move(model).value()};
}

Result<Snapshot> import_ibnetdiscover_cache(const std::string& path) {
    // Check the header ourselves: libibnetdisc only prints a warning on a bad file.
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
