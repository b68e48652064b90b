// Reading what `fabscope report` is given: each file's kind from its
// "format", through the reader of that kind (snapshot, perf report,
// congestion, mesh run or incast report) or the validation reader here, under the limits every
// JSON input has; nccl-tests' text by its header, through its own reader.

#include <fmt/format.h>

#include <filesystem>

#include "model/fingerprint.h"
#include "model/json_io.h"
#include "reports/report_model.h"
#include "reports/result_file.h"
#include "util/exit_status.h"
#include "util/version.h"

namespace fabscope {

Result<ValidationDoc> validation_doc_from_json(const nlohmann::json& j) {
    auto format = j.is_object() ? j.find("format") : j.end();
    if (format == j.end() || *format != "fabscope-validation")
        return make_error("not a fabscope validation report");
    auto version = j.find("version");
    if (version == j.end() || !version->is_number_integer() || *version != 1) {
        return make_error(fmt::format(
            "validation report version {} is not supported (this fabscope reads version 1)",
            version == j.end() ? std::string("(none)") : version->dump()));
    }
    return json_io::guarded([&]() -> Result<ValidationDoc> {
        ValidationDoc d;
        d.meta.command = json_io::get_string(j, "command", "validate");
        d.meta.started = json_io::get_string(j, "started", "");
        d.meta.fabric_from = json_io::get_string(j, "fabric", "");
        d.meta.snapshot = json_io::get_string(j, "snapshot", "");
        if (d.meta.snapshot.size() > 4096)
            json_io::fail(j["snapshot"], "is longer than 4096 bytes");
        d.meta.interval_s = json_io::get_double(j, "interval_s", 0);
        d.meta.plan = json_io::get_string(j, "plan", "");
        d.meta.baseline = json_io::get_string(j, "baseline", "");
        d.meta.thresholds = json_io::get_string(j, "thresholds", "");
        d.meta.duration_s = json_io::get_double(j, "duration_s", 0);
        d.meta.interrupted = json_io::get_bool(j, "interrupted", false);
        d.result = json_io::get_string(j, "result", "");
        d.nodes = json_io::get_uint<size_t>(j, "nodes", 0);
        d.links = json_io::get_uint<size_t>(j, "links", 0);
        d.fingerprint = json_io::get_string(j, "fabric_fingerprint", "");
        if (j.contains("check_list")) {
            for (const nlohmann::json& c : json_io::get_array(j, "check_list")) {
                d.checks.push_back({json_io::get_string(c, "id"), json_io::get_string(c, "name"),
                                    json_io::get_string(c, "detail", "")});
            }
        } else if (j.contains("checks")) {
            // Written before the checks had ids: each text is its own name.
            for (const nlohmann::json& c : json_io::get_array(j, "checks")) {
                if (!c.is_string()) json_io::fail(c, "must be a string");
                d.checks.push_back({"", c.get<std::string>(), ""});
            }
        }
        if (j.contains("expected_links")) {
            for (const nlohmann::json& c : json_io::get_array(j, "expected_links")) {
                if (!c.is_array() || c.size() != 2 || !c[0].is_object() || !c[1].is_object())
                    json_io::fail(c, "must be a pair of ports");
                d.expected.push_back({port_label_from_json(c[0]), port_label_from_json(c[1])});
            }
        }
        for (const nlohmann::json& x : json_io::get_array(j, "findings"))
            d.findings.push_back(report_finding_from_json(x, "validation"));
        return d;
    });
}

namespace {

/// What a snapshot found by name adds: the snapshot, or why it is not drawn.
struct NamedSnapshot {
    std::optional<Snapshot> snapshot;
    std::string input;    ///< for ReportMeta::inputs
    std::string warning;  ///< for ReportModel::warnings
};

/// The snapshot a validation names (`validate --snapshot` wrote it, or
/// `--load` read it), looked for where it was and beside the validation
/// (a ticket's files travel together): the report then draws the fabric.
/// One of another fabric state is left out, with a warning; none found is a
/// warning naming where it looked. A file there that is not a snapshot is an
/// error naming it, as any input.
Result<NamedSnapshot> find_named_snapshot(const std::string& validation_path,
                                          const ValidationDoc& v) {
    namespace fs = std::filesystem;
    const fs::path named(v.meta.snapshot);
    const fs::path beside =
        (validation_path == "-" ? fs::path() : fs::path(validation_path).parent_path()) /
        named.filename();
    NamedSnapshot out;
    for (const fs::path& p : {named, beside}) {
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) continue;
        auto s = load_snapshot(p.string());  // its errors name the file
        if (!s) {
            return make_error(fmt::format("{} (the snapshot {} names); give the snapshot it "
                                          "checked beside it, or move that file away",
                                          s.error().message, validation_path),
                              kExitUsage);
        }
        if (!v.fingerprint.empty() && v.fingerprint != fabric_fingerprint(s->fabric)) {
            out.warning = fmt::format(
                "{}, the snapshot the validation names, now holds another fabric state: not "
                "drawn; give the snapshot the validation checked",
                p.string());
            return out;
        }
        out.input = p.string() + " (snapshot, named by the validation)";
        out.snapshot = std::move(s).value();
        return out;
    }
    out.warning = fmt::format(
        "the validation names its snapshot {}, found neither there nor beside it ({}): the "
        "fabric is not drawn; give the snapshot to draw it",
        named.string(), beside.string());
    return out;
}

/// What the inputs given hold, kind by kind, before the report is built.
struct ReportInputs {
    std::optional<Snapshot> snapshot;
    std::optional<ValidationDoc> validation;
    std::vector<perf::PerfReport> perf;
    std::optional<CongestionDoc> congestion;
    RunDocs runs;
    std::string validation_path;
};

/// A second input of a kind a report takes one of.
Error second_of(const std::string& path, const char* what) {
    return make_error(
        fmt::format("{}: a second {}; a report is of one fabric (give one)", path, what),
        kExitUsage);
}

/// A document told by its shape, having no "format" a reader here knows:
/// a host's health, a mesh run report; a mesh plan or anything else is
/// refused.
Status add_by_shape(ReportInputs& in, ReportMeta& meta, const std::string& path,
                    const nlohmann::json& j) {
    auto bad = [&](const Error& e) { return json_io::in_file(path, e); };
    if (looks_like_health(j)) {
        auto c = host_cables_from_json(j);
        if (!c) return bad(c.error());
        for (const HostCables& h : in.runs.cables) {
            if (h.host == c->host)
                return make_error(fmt::format("{}: a second health document of {}", path, h.host),
                                  kExitUsage);
        }
        meta.inputs.push_back(fmt::format("{} (health of {})", path, c->host));
        in.runs.cables.push_back(std::move(c).value());
    } else if (looks_like_mesh_run(j)) {
        if (in.runs.mesh) return second_of(path, "mesh run report");
        auto c = mesh_run_doc_from_json(j);
        if (!c) return bad(c.error());
        in.runs.mesh = std::move(c).value();
        meta.inputs.push_back(path + " (mesh run report)");
    } else if (j.is_object() && j.contains("rounds") && j.contains("endpoints")) {
        return make_error(fmt::format("{}: a mesh plan is what will be tested, not a result; "
                                      "give the run's report",
                                      path),
                          kExitUsage);
    } else {
        return make_error(fmt::format("{}: not a fabscope result (a snapshot, a validation, "
                                      "perf, congestion, mesh run, incast or health report, "
                                      "told apart by their \"format\") nor nccl-tests output",
                                      path),
                          kExitUsage);
    }
    return Ok{};
}

/// A JSON document, through the reader of its "format", else by its shape.
Status add_document(ReportInputs& in, ReportMeta& meta, const std::string& path,
                    const nlohmann::json& j) {
    auto format = j.is_object() ? j.find("format") : j.end();
    std::string kind =
        format != j.end() && format->is_string() ? format->get<std::string>() : std::string();
    auto bad = [&](const Error& e) { return json_io::in_file(path, e); };
    if (kind == "fabscope-snapshot") {
        if (in.snapshot) return second_of(path, "snapshot");
        auto s = snapshot_from_json(j);
        if (!s) return bad(s.error());
        in.snapshot = std::move(s).value();
        meta.inputs.push_back(path + " (snapshot)");
    } else if (kind == "fabscope-validation") {
        if (in.validation) return second_of(path, "validation report");
        auto v = validation_doc_from_json(j);
        if (!v) return bad(v.error());
        in.validation = std::move(v).value();
        in.validation_path = path;
        meta.inputs.push_back(path + " (validation)");
    } else if (kind == "fabscope-perf") {
        auto p = perf::perf_report_from_json(j);
        if (!p) return bad(p.error());
        in.perf.push_back(std::move(p).value());
        meta.inputs.push_back(path + " (perf report)");
    } else if (kind == "fabscope-congestion") {
        if (in.congestion) return second_of(path, "congestion report");
        auto c = congestion_doc_from_json(j);
        if (!c) return bad(c.error());
        in.congestion = std::move(c).value();
        meta.inputs.push_back(path + " (congestion report)");
    } else if (kind == "fabscope-mesh-incast") {
        if (in.runs.incast) return second_of(path, "incast report");
        auto c = incast_doc_from_json(j);
        if (!c) return bad(c.error());
        in.runs.incast = std::move(c).value();
        meta.inputs.push_back(path + " (incast report)");
    } else {
        return add_by_shape(in, meta, path, j);
    }
    return Ok{};
}

/// One input file: nccl-tests' text, or a JSON document.
Status add_input(ReportInputs& in, ReportMeta& meta, const std::string& path) {
    auto file = read_result_file(path);
    if (!file) return file.error();
    // However this input ends (read, refused), its document is freed
    // without nlohmann's flattening copy (json_io::release).
    struct Release {
        nlohmann::json& doc;
        ~Release() { json_io::release(doc); }
    } release{file->doc};
    if (file->nccl_tests) {
        meta.inputs.push_back(
            fmt::format("{} (nccl-tests: {})", path, collective_title(*file->nccl_tests)));
        in.runs.collectives.push_back(std::move(*file->nccl_tests));
        return Ok{};
    }
    return add_document(in, meta, path, file->doc);
}

}  // namespace

Result<ReportModel> load_report(const std::vector<std::string>& paths, ReportMeta meta) {
    ReportInputs in;
    for (const std::string& path : paths) {
        if (auto s = add_input(in, meta, path); !s) return s.error();
    }
    NamedSnapshot found;
    if (in.validation && !in.snapshot && !in.validation->meta.snapshot.empty()) {
        auto f = find_named_snapshot(in.validation_path, *in.validation);
        if (!f) return f.error();
        found = std::move(f).value();
        in.snapshot = std::move(found.snapshot);
        if (!found.input.empty()) meta.inputs.push_back(found.input);
    }
    if (meta.tool_version.empty()) meta.tool_version = version();
    ReportModel m =
        build_report(std::move(in.snapshot), std::move(in.validation), std::move(in.perf),
                     std::move(meta), std::move(in.congestion), std::move(in.runs));
    if (!found.warning.empty()) m.warnings.push_back(found.warning);
    return m;
}

}  // namespace fabscope
