#include "tui/perf_files.h"

#include <sys/stat.h>

#include <new>

#include "model/json_io.h"
#include "reports/result_file.h"
#include "tui/agent_fetch.h"
#include "tui/tui_data.h"

namespace fabscope::tui {
namespace {

int64_t mtime(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0
               ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec
               : 0;
}

/// A probe agent's live state.
Result<ProbeDoc> load_agent(const std::string& url) {
    auto body = fetch_agent(url);
    if (!body) return body.error();
    auto doc = json_io::parse_json_text(*body, url);
    if (!doc) return doc.error();
    if (!looks_like_probe(*doc))
        return make_error(url + ": not what a fabscope probe agent serves");
    auto p = probe_doc_from_json(*doc);
    if (!p) return json_io::in_file(url, p.error());
    return p;
}

}  // namespace

PerfFiles::PerfFiles(std::vector<std::string> paths)
    : paths_(std::move(paths)), mtimes_(paths_.size(), 0) {}

Result<PerfInputs> PerfFiles::load_all() {
    PerfInputs out;
    for (size_t i = 0; i < paths_.size(); ++i) {
        const std::string& path = paths_[i];
        mtimes_[i] = mtime(path);
        try {
            if (is_agent_url(path)) {
                auto probe = load_agent(path);
                if (!probe) return probe.error();
                out.probes.push_back(std::move(*probe));
                continue;
            }
            auto file = read_result_file(path);
            if (!file) return file.error();
            if (file->nccl_tests) {
                out.collectives.push_back(std::move(*file->nccl_tests));
                continue;
            }
            const nlohmann::json& doc = file->doc;
            if (looks_like_probe(doc)) {
                auto p = probe_doc_from_json(doc);
                if (!p) return json_io::in_file(path, p.error());
                out.probes.push_back(std::move(*p));
                continue;
            }
            if (looks_like_mesh_run(doc)) {
                auto m = mesh_run_doc_from_json(doc);
                if (!m) return json_io::in_file(path, m.error());
                out.mesh.push_back(std::move(m).value());
                continue;
            }
            auto r = perf::perf_report_from_json(doc);
            if (!r) return json_io::in_file(path, r.error());
            out.reports.push_back(std::move(r).value());
            out.names.push_back(path);
        } catch (const std::bad_alloc&) {
            return out_of_memory(path);
        }
    }
    return out;
}

void PerfFiles::reload_if_changed(DataBuilder& b) {
    bool changed = false;
    // An agent is asked again at every poll; a file only when rewritten.
    for (size_t i = 0; i < paths_.size(); ++i)
        changed = changed || is_agent_url(paths_[i]) || mtime(paths_[i]) != mtimes_[i];
    if (!changed) return;
    auto all = load_all();
    if (all) b.set_perf(std::move(all).value());
}

}  // namespace fabscope::tui
