#include "tui/source.h"

namespace fabscope::tui {

Result<Reading> LiveSource::read(const StopToken& stop) {
    return fabric_->sweep(stop);
}

Result<Reading> FileSource::read(const StopToken& /*stop*/) {
    if (next_ >= snaps_.size()) return make_error("tui: every snapshot has been read");
    return reading_from_file(std::move(snaps_[next_++]));
}

}  // namespace fabscope::tui
