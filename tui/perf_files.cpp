#include "tui/perf_files.h"

#include <sys/stat.h>

#include <new>

#include "model/json_io.h"
#include "reports/result_file.h"
#include "tui/tui_data.h"

namespace fabscope::tui {
namespace {

int64_t mtime(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0
               ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec
               : 0;
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
            auto file = read_result_file(path);
            if (!file) return file.error();
            if (file->nccl_tests) {
                out.collectives.push_back(std::move(*file->nccl_tests));
                continue;
            }
            const nlohmann::json& doc = file->doc;
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
    for (size_t i = 0; i < paths_.size(); ++i) changed = changed || mtime(paths_[i]) != mtimes_[i];
    if (!changed) return;
    auto all = load_all();
    if (all) b.set_perf(std::move(all).value());
}

}  // namespace fabscope::tui
