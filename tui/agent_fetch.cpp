#include "tui/agent_fetch.h"

#include <fmt/format.h>

#include "exporter/http_get.h"
#include "util/exit_status.h"

namespace fabscope::tui {

bool is_agent_url(const std::string& path) {
    return path.rfind("http://", 0) == 0;
}

Result<std::string> fetch_agent(const std::string& url) {
    std::string with_path = url;
    if (url.find('/', 7) == std::string::npos) with_path += "/probe.json";
    HttpGetLimits limits;
    limits.max_body = kMaxAgentBody;
    auto got = http_get(with_path, limits);
    if (!got) {
        if (got.error().code == kExitUsage)
            return make_error(fmt::format("{}: {}", url, got.error().message), kExitUsage);
        return make_error(
            fmt::format("{}: no answer ({}): is `fabscope probe --listen` serving there?", url,
                        got.error().message),
            kExitCannotRun);
    }
    if (got->status != 200)
        return make_error(fmt::format("{}: HTTP {}", url, got->status), kExitCannotRun);
    return std::move(got->body);
}

}  // namespace fabscope::tui
