#include "tui/agent_fetch.h"

#include <fmt/format.h>
#include <httplib.h>

#include "util/exit_status.h"

namespace fabscope::tui {

bool is_agent_url(const std::string& path) {
    return path.rfind("http://", 0) == 0;
}

Result<std::string> fetch_agent(const std::string& url) {
    const size_t slash = url.find('/', 7);
    const std::string base = url.substr(0, slash);
    const std::string path = slash == std::string::npos ? "/probe.json" : url.substr(slash);
    httplib::Client cli(base);
    cli.set_connection_timeout(1, 0);
    cli.set_read_timeout(2, 0);
    cli.set_write_timeout(1, 0);
    std::string body;
    bool too_big = false;
    auto res = cli.Get(path, [&](const char* data, size_t len) {
        if (body.size() + len > kMaxAgentBody) {
            too_big = true;
            return false;
        }
        body.append(data, len);
        return true;
    });
    if (too_big) return make_error(fmt::format("{}: the answer is larger than 8 MiB", url));
    if (!res) {
        return make_error(
            fmt::format("{}: no answer ({}): is `fabscope probe --listen` serving there?", url,
                        httplib::to_string(res.error())),
            kExitCannotRun);
    }
    if (res->status != 200)
        return make_error(fmt::format("{}: HTTP {}", url, res->status), kExitCannotRun);
    return body;
}

}  // namespace fabscope::tui
