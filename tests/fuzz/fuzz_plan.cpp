// libFuzzer: the plan parser must answer every input with a plan or an error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/plan.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    auto p = fabscope::parse_plan(text, "fuzz.yaml");
    if (p) (void)fabscope::plan_to_yaml(*p);
    return 0;
}
