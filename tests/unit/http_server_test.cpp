// The exporter's HTTP server: heads parsed within their bounds (pure), and
// a real server on loopback that hostile clients cannot hold: tricklers,
// idle sockets past the connection cap, heads too long or too many, bodies,
// pipelines. Every wait in these tests is for a condition, with a bound.

#include "exporter/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "exporter/http_request.h"
#include "loopback.h"

namespace fabscope {
namespace {

using namespace std::chrono_literals;
using State = HeadParse::State;

TEST(HttpHead, AGetWithItsHeadersAndWhatFollowsIt) {
    HttpLimits lim;
    const std::string two =
        "GET /metrics?x=1 HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\nGET / HTTP/1.1\r\n";
    HeadParse p = parse_request_head(two, lim);
    ASSERT_EQ(p.state, State::Ready) << p.why;
    EXPECT_EQ(p.request.method, "GET");
    EXPECT_EQ(p.request.path, "/metrics");
    EXPECT_TRUE(p.request.keep_alive);
    EXPECT_FALSE(p.request.has_body);
    EXPECT_EQ(two.substr(p.consumed), "GET / HTTP/1.1\r\n");
    EXPECT_EQ(parse_request_head(two.substr(p.consumed), lim).state, State::NeedMore);
    // Bare LF, leading empty lines, HTTP/1.0 closes unless asked to keep alive.
    p = parse_request_head("\r\nHEAD / HTTP/1.0\nConnection: Keep-Alive\n\n", lim);
    ASSERT_EQ(p.state, State::Ready) << p.why;
    EXPECT_EQ(p.request.method, "HEAD");
    EXPECT_TRUE(p.request.keep_alive);
    EXPECT_FALSE(parse_request_head("GET / HTTP/1.0\r\n\r\n", lim).request.keep_alive);
    EXPECT_FALSE(
        parse_request_head("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", lim).request.keep_alive);
    EXPECT_TRUE(parse_request_head("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc", lim)
                    .request.has_body);
    EXPECT_TRUE(parse_request_head("GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", lim)
                    .request.has_body);
    EXPECT_FALSE(
        parse_request_head("GET / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", lim).request.has_body);
}

TEST(HttpHead, EveryBoundAndEveryMalformedHeadHasItsStatus) {
    HttpLimits lim;
    lim.max_head_bytes = 1024;
    lim.max_headers = 4;
    struct Case {
        std::string head;
        int status;
    };
    const Case cases[] = {
        {"GET / HTTP/1.1\r\nX: " + std::string(2000, 'a'), 431},               // no end in sight
        {"GET / HTTP/1.1\r\nX: " + std::string(1100, 'a') + "\r\n\r\n", 431},  // ends too late
        {"GET / HTTP/1.1\r\na: 1\r\nb: 1\r\nc: 1\r\nd: 1\r\ne: 1\r\n\r\n", 431},
        {"GET / HTTP/2.0\r\n\r\n", 505},
        {"GET /\r\n\r\n", 400},
        {"GET  / HTTP/1.1\r\n\r\n", 400},
        {"G(T / HTTP/1.1\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nno colon\r\n\r\n", 400},
        {"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n", 400},
    };
    for (const Case& c : cases) {
        HeadParse p = parse_request_head(c.head, lim);
        EXPECT_EQ(p.state, State::Bad) << c.head.substr(0, 40);
        EXPECT_EQ(p.status, c.status) << c.head.substr(0, 40) << ": " << p.why;
        EXPECT_FALSE(p.why.empty());
    }
    EXPECT_EQ(
        parse_request_head("GET / HTTP/1.1\r\na: 1\r\nb: 1\r\nc: 1\r\nd: 1\r\n\r\n", lim).state,
        State::Ready);
}

TEST(HttpHead, TheAnswersHeadSaysLengthAndWhetherTheConnectionStays) {
    HttpResponse r = text_response(405, "no\n");
    r.extra_headers = "Allow: GET, HEAD\r\n";
    EXPECT_EQ(response_head(r, 3, false),
              "HTTP/1.1 405 Method Not Allowed\r\nContent-Type: text/plain; charset=utf-8\r\n"
              "Content-Length: 3\r\nConnection: close\r\nAllow: GET, HEAD\r\n\r\n");
}

// ---- a real server on loopback ----

/// A server on a free loopback port, serving `body` at every path but /missing.
class Served {
  public:
    explicit Served(HttpLimits lim) {
        auto s = HttpServer::bind({"127.0.0.1", 0}, lim);
        if (!s) throw std::runtime_error(s.error().message);
        server_ = std::move(*s);
        thread_ = std::thread([this] {
            (void)server_->serve(
                [this](const HttpRequest& r) {
                    if (r.path == "/missing") return text_response(404, "none\n");
                    HttpResponse res;
                    res.body = body_;
                    return res;
                },
                stop_);
        });
    }
    ~Served() {
        stop_.request_stop();
        thread_.join();
    }
    int port() const { return server_->port(); }
    HttpServerCounts counts() const { return server_->counts(); }
    std::shared_ptr<const std::string> body_ =
        std::make_shared<const std::string>(std::string(200000, 'm'));

  private:
    std::unique_ptr<HttpServer> server_;
    StopToken stop_;
    std::thread thread_;
};

/// A client socket that writes what it is told and reads what comes.
class Client {
  public:
    explicit Client(int port)
        : fd_(testing::connect_loopback(static_cast<uint16_t>(port))), connected_(fd_ >= 0) {}
    ~Client() { ::close(fd_); }
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;
    bool connected() const { return connected_; }
    bool write(const std::string& b) {
        return ::send(fd_, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size());
    }
    /// Reads until `enough` says so, the server closes, or `limit` passes.
    template <class F>
    std::string read_until(F enough, std::chrono::milliseconds limit = 5000ms) {
        const auto end = std::chrono::steady_clock::now() + limit;
        while (!enough(got_) && !closed_ && std::chrono::steady_clock::now() < end) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 50) != 1) continue;
            char b[65536];
            const ssize_t n = ::recv(fd_, b, sizeof b, 0);
            if (n <= 0)
                closed_ = true;
            else
                got_.append(b, static_cast<size_t>(n));
        }
        return got_;
    }
    /// The answers read so far, whole (head and body).
    size_t answers(size_t body_size) const {
        size_t n = 0;
        for (size_t at = got_.find("HTTP/1.1 "); at != std::string::npos;
             at = got_.find("HTTP/1.1 ", at + 1)) {
            const size_t head_end = got_.find("\r\n\r\n", at);
            if (head_end == std::string::npos || got_.size() < head_end + 4 + body_size) break;
            ++n;
            at = head_end + 4 + body_size - 1;
        }
        return n;
    }
    void shut_write() { ::shutdown(fd_, SHUT_WR); }
    bool closed() {
        read_until([](const std::string&) { return false; }, 5000ms);
        return closed_;
    }

  private:
    int fd_ = -1;
    bool connected_ = false;
    bool closed_ = false;
    std::string got_;
};

const char* kGet = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";

/// One scrape on a new connection: the whole body within `limit`.
bool scrape(int port, size_t body_size, std::chrono::milliseconds limit = 2000ms) {
    Client c(port);
    if (!c.connected() || !c.write(kGet)) return false;
    c.read_until([&](const std::string&) { return c.answers(body_size) == 1; }, limit);
    return c.answers(body_size) == 1;
}

TEST(HttpServer, TricklersAndIdleSocketsPastTheCapDoNotDelayAScrape) {
    HttpLimits lim;
    lim.max_connections = 32;
    Served s(lim);
    // Two clients sending a byte of a head every 100 ms, as long as the server lets them.
    std::atomic<bool> done{false};
    std::atomic<int> trickled{0};
    auto trickle = [&] {
        Client c(s.port());
        const std::string head = std::string(kGet) + std::string(4000, ' ');
        for (size_t i = 0; i < head.size() && !done; ++i) {
            if (!c.write(head.substr(i, 1))) break;
            ++trickled;
            std::this_thread::sleep_for(100ms);  // the trickle itself, not a wait
        }
    };
    std::thread t1(trickle), t2(trickle);
    std::vector<std::unique_ptr<Client>> idle;
    for (int i = 0; i < 200; ++i) idle.push_back(std::make_unique<Client>(s.port()));
    for (int i = 0; i < 20; ++i) EXPECT_TRUE(scrape(s.port(), s.body_->size())) << "scrape " << i;
    EXPECT_GT(s.counts().evicted, 0u);
    EXPECT_LE(s.counts().open, lim.max_connections);
    done = true;
    t1.join();
    t2.join();
}

TEST(HttpServer, TheRequestDeadlineDoesNotRestartWithEachByte) {
    HttpLimits lim;
    lim.request_deadline = 500ms;
    Served s(lim);
    Client c(s.port());
    // A byte every 50 ms: a per-byte timeout of 500 ms would never fire.
    int sent = 0;
    const std::string head = std::string(kGet) + std::string(1000, ' ');
    for (; sent < 200 && c.write(head.substr(static_cast<size_t>(sent), 1)); ++sent) {
        // The trickle's pace, watching for the server's answer meanwhile.
        if (!c.read_until([](const std::string& g) { return !g.empty(); }, 50ms).empty()) break;
    }
    EXPECT_NE(c.read_until([](const std::string& g) {
                   return g.find("\r\n\r\n") != std::string::npos;
               }).find("HTTP/1.1 408 Request Timeout"),
              std::string::npos);
    EXPECT_TRUE(c.closed());
    EXPECT_LT(sent, 60);  // 500 ms at 50 ms a byte, with room for a slow machine
    EXPECT_GE(s.counts().timed_out, 1u);
}

TEST(HttpServer, LongOrManyHeadersAreRefusedAndTheConnectionClosed) {
    HttpLimits lim;
    Served s(lim);
    Client many(s.port());
    std::string head = "GET /metrics HTTP/1.1\r\n";
    for (int i = 0; i < 100; ++i) head += "X-" + std::to_string(i) + ": 1\r\n";
    ASSERT_TRUE(many.write(head + "\r\n"));
    EXPECT_NE(many.read_until(
                      [](const std::string& g) { return g.find("more than") != std::string::npos; })
                  .find("HTTP/1.1 431"),
              std::string::npos);
    EXPECT_TRUE(many.closed());
    Client longer(s.port());
    (void)longer.write("GET /metrics HTTP/1.1\r\nX: " + std::string(20000, 'a'));
    EXPECT_NE(longer
                  .read_until([](const std::string& g) {
                      return g.find("longer than") != std::string::npos;
                  })
                  .find("HTTP/1.1 431"),
              std::string::npos);
    EXPECT_TRUE(longer.closed());
    EXPECT_TRUE(scrape(s.port(), s.body_->size()));
}

TEST(HttpServer, PipelinedRequestsAreAllAnsweredInOrder) {
    Served s(HttpLimits{});
    Client c(s.port());
    ASSERT_TRUE(c.write(std::string(kGet) + kGet + kGet));
    c.read_until([&](const std::string&) { return c.answers(s.body_->size()) == 3; });
    EXPECT_EQ(c.answers(s.body_->size()), 3u);
    EXPECT_EQ(s.counts().requests, 3u);
}

TEST(HttpServer, OnlyGetAndHeadAndNoBodies) {
    Served s(HttpLimits{});
    Client post(s.port());
    ASSERT_TRUE(post.write("POST /metrics HTTP/1.1\r\nContent-Length: 1\r\n\r\nx"));
    std::string got =
        post.read_until([](const std::string& g) { return g.find("HEAD\n") != std::string::npos; });
    EXPECT_NE(got.find("HTTP/1.1 405 Method Not Allowed"), std::string::npos) << got;
    EXPECT_NE(got.find("Allow: GET, HEAD"), std::string::npos);
    EXPECT_TRUE(post.closed());
    Client body(s.port());
    ASSERT_TRUE(body.write("GET /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"));
    EXPECT_NE(
        body.read_until([](const std::string& g) { return g.find("bodies") != std::string::npos; })
            .find("HTTP/1.1 400"),
        std::string::npos);
    Client head(s.port());
    ASSERT_TRUE(head.write("HEAD /metrics HTTP/1.1\r\n\r\nGET /missing HTTP/1.1\r\n\r\n"));
    got =
        head.read_until([](const std::string& g) { return g.find("none\n") != std::string::npos; });
    EXPECT_EQ(got.find("HTTP/1.1 200 OK"), 0u) << got.substr(0, 200);
    EXPECT_NE(got.find("Content-Length: 200000\r\n"), std::string::npos);
    EXPECT_NE(got.find("HTTP/1.1 404 Not Found"), std::string::npos);  // no body came between
    EXPECT_EQ(got.find('m'), std::string::npos);
}

TEST(HttpServer, AClientThatHalfClosesStillGetsItsAnswer) {
    Served s(HttpLimits{});
    Client c(s.port());
    ASSERT_TRUE(c.write(kGet));
    c.shut_write();
    c.read_until([&](const std::string&) { return c.answers(s.body_->size()) == 1; });
    EXPECT_EQ(c.answers(s.body_->size()), 1u);
    EXPECT_TRUE(c.closed());
}

}  // namespace
}  // namespace fabscope
