// libFuzzer: the snapshot reader must answer every input with a snapshot or an error,
// and a snapshot it accepts must survive writing and reading again.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "check/link_checks.h"
#include "model/json_io.h"
#include "model/snapshot.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto j = fabscope::json_io::parse_json_text(text, "fuzz.json");
    if (!j) return 0;
    auto s = fabscope::snapshot_from_json(*j);
    if (!s) return 0;
    auto tiers = fabscope::classify_tiers(s->fabric);
    (void)fabscope::check_links(s->fabric, tiers);
    std::ostringstream out;
    fabscope::write_snapshot(out, *s, nlohmann::json::object());
    auto again = fabscope::json_io::parse_json_text(out.str(), "again");
    if (!again || !fabscope::snapshot_from_json(*again)) __builtin_trap();
    return 0;
}
