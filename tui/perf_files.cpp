#include "tui/perf_files.h"

#include <sys/stat.h>

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

Result<std::vector<perf::PerfReport>> PerfFiles::load_all() {
    std::vector<perf::PerfReport> out;
    for (size_t i = 0; i < paths_.size(); ++i) {
        mtimes_[i] = mtime(paths_[i]);
        auto r = perf::load_perf_report(paths_[i]);
        if (!r) return r.error();
        out.push_back(std::move(r).value());
    }
    return out;
}

void PerfFiles::reload_if_changed(DataBuilder& b) {
    bool changed = false;
    for (size_t i = 0; i < paths_.size(); ++i) changed = changed || mtime(paths_[i]) != mtimes_[i];
    if (!changed) return;
    auto all = load_all();
    if (all) b.set_perf(std::move(all).value(), paths_);
}

}  // namespace fabscope::tui
