// libFuzzer: the perf report reader (`tui --perf`, `perf compare`) must answer
// every input with a report or an error, never a crash (a report nested
// 100,000 deep overflowed the stack), and a report it accepts must survive
// writing and reading again.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/json_io.h"
#include "pairtest/results/report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto j = fabscope::json_io::parse_json_text(text, "fuzz.json");
    if (!j) return 0;
    auto r = fabscope::perf::perf_report_from_json(*j);
    if (!r) return 0;
    auto out = fabscope::perf::perf_report_to_json(r->meta, r->results, {});
    auto again = fabscope::json_io::parse_json_text(out.dump(), "again");
    if (!again || !fabscope::perf::perf_report_from_json(*again)) __builtin_trap();
    return 0;
}
