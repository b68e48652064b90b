#include "discover/live_session.h"

#include <cstdio>

#include "util/stderr_capture.h"

namespace fabscope {

Result<LiveSession> LiveSession::open(const LiveOptions& options) {
    std::string chatter;
    Result<LocalPort> local = make_error("");
    Result<std::unique_ptr<UmadTransport>> transport = make_error("");
    {
        StderrCapture capture;  // the simulator's preload library chats on stderr
        local = resolve_local_port(options.ca, options.ca_port);
        if (local) transport = UmadTransport::open(*local);
        chatter = capture.finish();
    }
    if (options.verbose && !chatter.empty()) std::fputs(chatter.c_str(), stderr);
    if (!local) return local.error();
    if (!transport) return transport.error();
    LiveSession s;
    s.local_ = *local;
    s.transport_ = std::move(transport).value();
    s.options_ = options.sweep;
    s.node_names_ = options.node_names;
    return s;
}

Result<SweepOutput> LiveSession::sweep(const StopToken* stop) {
    SweepOptions o = options_;
    o.engine.stop = stop;
    auto out = sweep_fabric(*transport_, clock_, local_, o);
    if (out && node_names_) {
        out->snapshot.fabric = apply_node_names(out->snapshot.fabric, *node_names_);
    }
    return out;
}

EngineOptions LiveSession::engine_options(const StopToken* stop) const {
    EngineOptions o = options_.engine;
    o.stop = stop;
    return o;
}

}  // namespace fabscope
