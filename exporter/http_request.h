#pragma once
// The HTTP/1.x the exporter speaks, as pure functions: a request head parsed
// from the bytes read so far (with its bounds: head size, header count), and
// the head of an answer. No bodies are taken: a request that announces one
// is answered and the connection closed.

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace fabscope {

/// What one client may take of the exporter. The deadlines are whole: they
/// run from an event (the first byte of a request, the head read, the end of
/// the last answer) and do not restart with each byte, so a client sending a
/// byte a second holds a connection for request_deadline at most.
struct HttpLimits {
    size_t max_connections = 64;  ///< past it, the idlest connection makes room
    size_t max_head_bytes = 8192;
    size_t max_headers = 64;
    std::chrono::milliseconds request_deadline{5000};    ///< first byte -> whole head
    std::chrono::milliseconds idle_timeout{5000};        ///< between requests (keep-alive)
    std::chrono::milliseconds response_deadline{30000};  ///< head read -> last byte written
};

struct HttpRequest {
    std::string method;
    std::string path;  ///< the target without its query
    bool keep_alive = true;
    bool has_body = false;  ///< Content-Length above 0, or Transfer-Encoding
};

struct HeadParse {
    enum class State { NeedMore, Ready, Bad };
    State state = State::NeedMore;
    size_t consumed = 0;  ///< Ready: the bytes of this head (a pipelined next one follows)
    HttpRequest request;
    int status = 0;  ///< Bad: the answer's status (400, 431, 505)
    std::string why;
};

/// A header name or value in ASCII lower case (names are case-insensitive).
std::string http_lower(std::string_view s);
/// A header value without the spaces, tabs (and a CR) around it.
std::string_view http_trim(std::string_view s);

/// The head at the start of `buf`, if it is all there. Leading empty lines
/// are skipped (RFC 9112 2.2); lines may end in CRLF or LF.
HeadParse parse_request_head(std::string_view buf, const HttpLimits& limits);

struct HttpResponse {
    int status = 200;
    std::string content_type = "text/plain; charset=utf-8";
    std::shared_ptr<const std::string> body;  ///< shared: a scrape never copies the metrics
    std::string extra_headers;                ///< whole lines, each ending in CRLF
};

/// A short text answer (errors, 404, 405).
HttpResponse text_response(int status, std::string text);
/// The Content-Type of Prometheus' text exposition format (/metrics).
inline constexpr const char* kPrometheusTextType = "text/plain; version=0.0.4; charset=utf-8";

/// "HTTP/1.1 200 OK\r\n...\r\n\r\n", with Content-Length `body_size` and
/// Connection keep-alive or close.
std::string response_head(const HttpResponse& r, size_t body_size, bool keep_alive);

}  // namespace fabscope
