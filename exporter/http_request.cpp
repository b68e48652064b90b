#include "exporter/http_request.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

namespace fabscope {
namespace {

HeadParse bad(int status, std::string why) {
    HeadParse p;
    p.state = HeadParse::State::Bad;
    p.status = status;
    p.why = std::move(why);
    return p;
}

bool is_token(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) {
        return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) !=
                                      std::string_view::npos;
    });
}

/// Where the head ends (after its empty line), or npos.
size_t head_end(std::string_view buf) {
    for (size_t nl = buf.find('\n'); nl != std::string_view::npos; nl = buf.find('\n', nl + 1)) {
        size_t next = nl + 1;
        if (next < buf.size() && buf[next] == '\n') return next + 1;
        if (next + 1 < buf.size() && buf[next] == '\r' && buf[next + 1] == '\n') return next + 2;
    }
    return std::string_view::npos;
}

std::vector<std::string_view> lines_of(std::string_view head) {
    std::vector<std::string_view> out;
    while (!head.empty()) {
        size_t nl = head.find('\n');
        std::string_view line = head.substr(0, nl);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        out.push_back(line);
        if (nl == std::string_view::npos) break;
        head.remove_prefix(nl + 1);
    }
    while (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

/// "GET /metrics HTTP/1.1" into `r`; false with `p` set when it is not one.
bool request_line(std::string_view line, HttpRequest& r, HeadParse& p) {
    const size_t a = line.find(' ');
    const size_t b = a == std::string_view::npos ? a : line.find(' ', a + 1);
    if (b == std::string_view::npos || line.find(' ', b + 1) != std::string_view::npos) {
        p = bad(400, "the request line is not METHOD TARGET VERSION");
        return false;
    }
    const std::string_view method = line.substr(0, a);
    const std::string_view target = line.substr(a + 1, b - a - 1);
    const std::string_view version = line.substr(b + 1);
    if (!is_token(method) || target.empty()) {
        p = bad(400, "the request line is not METHOD TARGET VERSION");
        return false;
    }
    if (version != "HTTP/1.1" && version != "HTTP/1.0") {
        p = version.starts_with("HTTP/") ? bad(505, "only HTTP/1.0 and HTTP/1.1")
                                         : bad(400, "the request line has no HTTP version");
        return false;
    }
    r.method = std::string(method);
    r.path = std::string(target.substr(0, target.find('?')));
    r.keep_alive = version == "HTTP/1.1";
    return true;
}

/// One header line into `r`; false with `p` set when it is not one.
bool header_line(std::string_view line, HttpRequest& r, HeadParse& p) {
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
        p = bad(400, "a header line is not NAME: VALUE");
        return false;
    }
    const std::string name = http_lower(line.substr(0, colon));
    const std::string value = http_lower(http_trim(line.substr(colon + 1)));
    if (name == "connection") {
        if (value.find("close") != std::string::npos) r.keep_alive = false;
        if (value.find("keep-alive") != std::string::npos) r.keep_alive = true;
    } else if (name == "transfer-encoding") {
        r.has_body = true;
    } else if (name == "content-length") {
        uint64_t n = 0;
        auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
        if (ec != std::errc() || end != value.data() + value.size()) {
            p = bad(400, "Content-Length is not a number");
            return false;
        }
        r.has_body = r.has_body || n > 0;
    }
    return true;
}

const char* reason(int status) {
    switch (status) {
        case 200: return "OK";
        case 400: return "Bad Request";
        case 404: return "Not Found";
        case 405: return "Method Not Allowed";
        case 408: return "Request Timeout";
        case 431: return "Request Header Fields Too Large";
        case 503: return "Service Unavailable";
        case 505: return "HTTP Version Not Supported";
        default: return "Error";
    }
}

}  // namespace

std::string http_lower(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

std::string_view http_trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

HeadParse parse_request_head(std::string_view buf, const HttpLimits& limits) {
    size_t skipped = 0;
    while (skipped < buf.size() && (buf[skipped] == '\r' || buf[skipped] == '\n')) ++skipped;
    const std::string_view rest = buf.substr(skipped);
    const size_t end = head_end(rest);
    if (end == std::string_view::npos) {
        if (buf.size() >= limits.max_head_bytes)
            return bad(431, fmt::format("the request head is longer than {} bytes",
                                        limits.max_head_bytes));
        return {};
    }
    if (skipped + end > limits.max_head_bytes)
        return bad(431,
                   fmt::format("the request head is longer than {} bytes", limits.max_head_bytes));
    const auto lines = lines_of(rest.substr(0, end));
    if (lines.size() - 1 > limits.max_headers)
        return bad(431, fmt::format("more than {} header lines", limits.max_headers));
    HeadParse p;
    if (!request_line(lines.front(), p.request, p)) return p;
    for (size_t i = 1; i < lines.size(); ++i) {
        if (!header_line(lines[i], p.request, p)) return p;
    }
    p.state = HeadParse::State::Ready;
    p.consumed = skipped + end;
    return p;
}

HttpResponse text_response(int status, std::string text) {
    HttpResponse r;
    r.status = status;
    r.body = std::make_shared<const std::string>(std::move(text));
    return r;
}

std::string response_head(const HttpResponse& r, size_t body_size, bool keep_alive) {
    return fmt::format(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: {}\r\n{}\r\n",
        r.status, reason(r.status), r.content_type, body_size, keep_alive ? "keep-alive" : "close",
        r.extra_headers);
}

}  // namespace fabscope
