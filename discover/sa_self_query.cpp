#include "discover/sa_self_query.h"

#include <fmt/format.h>

#include "discover/mad_engine.h"
#include "discover/umad_transport.h"

namespace fabscope {

std::string_view name(SaSelfResult::Outcome o) {
    switch (o) {
        case SaSelfResult::Outcome::Ok: return "ok";
        case SaSelfResult::Outcome::NoAnswer: return "no_answer";
        case SaSelfResult::Outcome::Error: return "error";
        case SaSelfResult::Outcome::CannotRun: return "cannot_run";
    }
    return "error";
}

SaSelfResult query_self_path(MadTransport& transport, const Clock& clock,
                             const SaSelfTarget& target, const SaSelfOptions& options) {
    SaSelfResult out;
    auto started = clock.now();
    EngineOptions eo;
    eo.window = 1;
    eo.timeout = options.timeout;
    eo.retries = options.retries;
    eo.backoff = 1.0;  // health's time budget is fixed: every attempt waits the same
    MadEngine engine(transport, clock, eo);
    MadResult got;
    engine.submit(sa::path_request(target.sm_lid, target.gid, target.gid),
                  [&got](const MadResult& r) { got = r; });
    engine.run();
    out.attempts = got.attempts;
    out.elapsed_ms = std::chrono::duration<double, std::milli>(clock.now() - started).count();
    std::string sa = fmt::format("SA at SM LID {}", target.sm_lid);
    switch (got.outcome) {
        case MadResult::Outcome::Ok: break;
        case MadResult::Outcome::BadStatus:
            out.outcome = SaSelfResult::Outcome::Error;
            out.detail = fmt::format("{} refused the PathRecord query: {}", sa,
                                     sa::sa_status_name(got.mad_status));
            return out;
        case MadResult::Outcome::SendFailed:
            out.outcome = SaSelfResult::Outcome::CannotRun;
            out.detail = got.detail;
            return out;
        default:
            out.outcome = SaSelfResult::Outcome::NoAnswer;
            out.detail =
                fmt::format("no answer from the {} within {} ms ({} attempt{})", sa,
                            options.timeout.count(), got.attempts, got.attempts == 1 ? "" : "s");
            return out;
    }
    auto rec = sa::decode_path_reply(got.reply);
    if (!rec) {
        out.outcome = SaSelfResult::Outcome::Error;
        out.detail = fmt::format("{} answered a bad PathRecord: {}", sa, rec.error().message);
        return out;
    }
    if (rec->sgid != target.gid || rec->dgid != target.gid) {
        out.outcome = SaSelfResult::Outcome::Error;
        out.detail =
            fmt::format("{} answered the path {} -> {}, not this port's GID {}", sa,
                        sa::gid_text(rec->sgid), sa::gid_text(rec->dgid), sa::gid_text(target.gid));
        return out;
    }
    if (target.lid != 0 && (rec->slid != target.lid || rec->dlid != target.lid)) {
        out.outcome = SaSelfResult::Outcome::Error;
        out.detail = fmt::format("{} answered a path from LID {} to LID {}; the port's LID is {}",
                                 sa, rec->slid, rec->dlid, target.lid);
        return out;
    }
    out.outcome = SaSelfResult::Outcome::Ok;
    out.record = *rec;
    return out;
}

SaSelfResult query_self_path_umad(const SaSelfTarget& target, const SaSelfOptions& options) {
    LocalPort lp;
    lp.ca = target.ca;
    lp.port = target.port;
    auto t = UmadTransport::open(lp);
    if (!t) {
        SaSelfResult out;
        out.outcome = SaSelfResult::Outcome::CannotRun;
        out.detail = t.error().message;
        return out;
    }
    return query_self_path(**t, system_clock(), target, options);
}

}  // namespace fabscope
