#include "reports/result_file.h"

#include "model/json_io.h"
#include "util/input_file.h"
#include "util/json_shape.h"

namespace fabscope {

Result<ResultFile> read_result_file(const std::string& path) {
    auto text = read_text_file(path, json_io::kMaxJsonBytes);
    if (!text) return text.error();
    ResultFile out;
    if (looks_like_nccl_tests(*text)) {
        auto b = parse_nccl_tests(*text, path);
        if (!b) return b.error();
        out.nccl_tests = std::move(b).value();
        return out;
    }
    auto doc = json_io::parse_json_text(*text, path == "-" ? "<stdin>" : path);
    if (!doc) return doc.error();
    out.doc = std::move(doc).value();
    return out;
}

}  // namespace fabscope
