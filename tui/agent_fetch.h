#pragma once
// A probe agent's /probe.json fetched live (`fabscope tui --perf
// http://HOST:9776/probe.json`): one GET with whole deadlines and a bounded
// body, so an agent that hangs or floods cannot hold the TUI's poller.

#include <string>

#include "util/result.h"

namespace fabscope::tui {

inline constexpr size_t kMaxAgentBody = size_t{8} << 20;

/// Whether `path` is an http:// URL rather than a file.
bool is_agent_url(const std::string& path);
/// The body of GET `url`; errors name the URL and say why.
Result<std::string> fetch_agent(const std::string& url);

}  // namespace fabscope::tui
