#include "exporter/http_get.h"

#include <fmt/format.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>

#include "exporter/http_request.h"
#include "util/exit_status.h"
#include "util/tcp_connect.h"
#include "util/time_util.h"
#include "util/unique_fd.h"

namespace fabscope {
namespace {

using Steady = std::chrono::steady_clock;

struct Target {
    std::string host;
    std::string port = "80";
    std::string path = "/";
};

Result<Target> parse_url(std::string_view url) {
    constexpr std::string_view kScheme = "http://";
    if (url.substr(0, kScheme.size()) != kScheme)
        return make_error("not an http:// URL", kExitUsage);
    std::string_view rest = url.substr(kScheme.size());
    Target t;
    const size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    if (slash != std::string_view::npos) t.path = std::string(rest.substr(slash));
    size_t colon = authority.rfind(':');
    if (!authority.empty() && authority.front() == '[') {
        const size_t close = authority.find(']');
        if (close == std::string_view::npos) return make_error("an unclosed [", kExitUsage);
        t.host = std::string(authority.substr(1, close - 1));
        colon = close + 1 < authority.size() && authority[close + 1] == ':' ? close + 1
                                                                            : std::string::npos;
    } else {
        t.host = std::string(authority.substr(0, colon));
    }
    if (colon != std::string_view::npos) t.port = std::string(authority.substr(colon + 1));
    int port = 0;
    auto [end, ec] = std::from_chars(t.port.data(), t.port.data() + t.port.size(), port);
    if (t.host.empty()) return make_error("no host", kExitUsage);
    if (ec != std::errc{} || end != t.port.data() + t.port.size() || port < 1 || port > 65535)
        return make_error(fmt::format("port \"{}\" is not 1-65535", t.port), kExitUsage);
    return t;
}

/// Appends what the socket has to `into` once it is readable, by `end`: the
/// bytes read, 0 once the server closed, -1 on the deadline or an error.
ssize_t read_some(int fd, std::string& into, Steady::time_point end, std::string* why) {
    char buf[16384];
    for (;;) {  // a signal, or a wake-up with nothing to read, waits again by `end`
        pollfd p{fd, POLLIN, 0};
        const int rc = ::poll(&p, 1, remaining_ms(end));
        if (rc == 0) {
            *why = "no whole answer in time";
            return -1;
        }
        const ssize_t n = rc > 0 ? ::recv(fd, buf, sizeof buf, 0) : -1;
        if (n >= 0) {
            into.append(buf, static_cast<size_t>(n));
            return n;
        }
        if (errno != EAGAIN && errno != EINTR) {
            *why = std::strerror(errno);
            return -1;
        }
    }
}

struct Head {
    int status = 0;
    std::optional<size_t> content_length;
    bool chunked = false;
};

Result<Head> parse_head(std::string_view head) {
    Head h;
    size_t eol = head.find('\n');
    std::string_view status_line = head.substr(0, eol);
    if (status_line.substr(0, 5) != "HTTP/" || status_line.size() < 12)
        return make_error("not an HTTP answer", kExitCannotRun);
    auto [p, ec] = std::from_chars(status_line.data() + 9, status_line.data() + 12, h.status);
    if (ec != std::errc{} || p != status_line.data() + 12)
        return make_error("not an HTTP answer", kExitCannotRun);
    while (eol != std::string_view::npos && eol + 1 < head.size()) {
        const size_t next = head.find('\n', eol + 1);
        std::string_view line = head.substr(eol + 1, next - eol - 1);
        eol = next;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        const std::string name = http_lower(line.substr(0, colon));
        const std::string_view value = http_trim(line.substr(colon + 1));
        if (name == "content-length") {
            size_t n = 0;
            auto [q, e] = std::from_chars(value.data(), value.data() + value.size(), n);
            if (e != std::errc{}) return make_error("a bad Content-Length", kExitCannotRun);
            h.content_length = n;
        } else if (name == "transfer-encoding" &&
                   http_lower(value).find("chunked") != std::string::npos) {
            h.chunked = true;
        }
    }
    return h;
}

}  // namespace

Result<HttpAnswer> http_get(std::string_view url, const HttpGetLimits& limits) {
    auto target = parse_url(url);
    if (!target) return target.error();
    auto conn = tcp_connect(target->host, target->port, limits.connect,
                            fmt::format("{} ms", limits.connect.count()));
    if (!conn) return conn.error();
    UniqueFd fd(conn->fd);
    const auto end = Steady::now() + limits.answer;
    const std::string request = fmt::format(
        "GET {} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nUser-Agent: fabscope\r\n\r\n",
        target->path, conn->peer);
    // A request this small fits the socket's buffer of a fresh connection.
    if (::send(fd.get(), request.data(), request.size(), MSG_NOSIGNAL) !=
        static_cast<ssize_t>(request.size()))
        return make_error(fmt::format("sending the request: {}", std::strerror(errno)),
                          kExitCannotRun);
    std::string buf;
    std::string why;
    size_t head_end = std::string::npos;
    while ((head_end = buf.find("\r\n\r\n")) == std::string::npos) {
        if (buf.size() > limits.max_head)
            return make_error(fmt::format("an answer head above {} bytes", limits.max_head),
                              kExitCannotRun);
        const ssize_t n = read_some(fd.get(), buf, end, &why);
        if (n < 0) return make_error(why, kExitCannotRun);
        if (n == 0) return make_error("closed before the answer's head ended", kExitCannotRun);
    }
    auto head = parse_head(std::string_view(buf).substr(0, head_end + 2));
    if (!head) return head.error();
    if (head->chunked) return make_error("a chunked answer (not read)", kExitCannotRun);
    if (head->content_length && *head->content_length > limits.max_body)
        return make_error(fmt::format("the answer is larger than {} bytes", limits.max_body),
                          kExitCannotRun);
    HttpAnswer answer{head->status, buf.substr(head_end + 4)};
    for (;;) {
        if (answer.body.size() > limits.max_body)
            return make_error(fmt::format("the answer is larger than {} bytes", limits.max_body),
                              kExitCannotRun);
        if (head->content_length && answer.body.size() >= *head->content_length) break;
        const ssize_t n = read_some(fd.get(), answer.body, end, &why);
        if (n < 0) return make_error(why, kExitCannotRun);
        if (n == 0) {
            if (head->content_length)
                return make_error("closed before the whole body came", kExitCannotRun);
            break;
        }
    }
    if (head->content_length) answer.body.resize(*head->content_length);
    return answer;
}

}  // namespace fabscope
