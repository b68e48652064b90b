#include "util/word_lines.h"

#include <fmt/format.h>

#include <sstream>

namespace fabscope {

Status for_each_word_line(const std::string& text, const std::string& source, size_t max_line,
                          const WordLine& fn) {
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        std::string why;
        if (line.size() > max_line) {
            why = fmt::format("line longer than {} characters", max_line);
        } else {
            if (auto hash = line.find('#'); hash != std::string::npos) line.resize(hash);
            std::istringstream words(line);
            std::vector<std::string> w;
            for (std::string t; words >> t;) w.push_back(t);
            if (w.empty()) continue;
            why = fn(n, w);
        }
        if (!why.empty()) return make_error(fmt::format("{}:{}: {}", source, n, why));
    }
    return Ok{};
}

}  // namespace fabscope
