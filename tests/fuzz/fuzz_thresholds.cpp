// libFuzzer: the thresholds parser must answer every input with thresholds or an error.
#include <cstddef>
#include <cstdint>
#include <string>

#include "model/thresholds.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string text(reinterpret_cast<const char*>(data), size);
    (void)fabscope::parse_thresholds(text, "fuzz.yaml");
    return 0;
}
