// The HTTP client a live TUI asks probe agents with: a real socket on
// loopback whose server side is scripted byte by byte, so an answer that is
// good, too large, trickled, chunked, cut short or not HTTP is each seen
// as the client sees it. Waits are for conditions, with bounds.

#include "exporter/http_get.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "util/exit_status.h"

namespace fabscope {
namespace {

using namespace std::chrono_literals;

/// Accepts one client on 127.0.0.1, reads its request head, and hands the
/// socket to `serve`; closes it when `serve` returns.
class OneShotServer {
  public:
    explicit OneShotServer(std::function<void(int fd)> serve) {
        listen_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        ::bind(listen_, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(listen_, 1);
        ::getsockname(listen_, reinterpret_cast<sockaddr*>(&a), &len);
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this, serve = std::move(serve)] {
            pollfd p{listen_, POLLIN, 0};
            if (::poll(&p, 1, 5000) != 1) return;
            const int fd = ::accept(listen_, nullptr, nullptr);
            std::string head;
            char c = 0;
            while (head.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1)
                head += c;
            request_ = head;
            serve(fd);
            ::close(fd);
        });
    }
    ~OneShotServer() {
        if (thread_.joinable()) thread_.join();
        ::close(listen_);
    }
    OneShotServer(const OneShotServer&) = delete;
    OneShotServer& operator=(const OneShotServer&) = delete;

    std::string url(const std::string& path = "/probe.json") const {
        return "http://127.0.0.1:" + std::to_string(port_) + path;
    }
    /// Waits for the server to finish; the request head it read.
    std::string join() {
        if (thread_.joinable()) thread_.join();
        return request_;
    }

  private:
    int listen_ = -1;
    uint16_t port_ = 0;
    std::thread thread_;
    std::string request_;
};

void write_all(int fd, const std::string& s) {
    (void)::send(fd, s.data(), s.size(), MSG_NOSIGNAL);
}

TEST(HttpGet, AnAnswerWithContentLengthAndOneThatEndsWhenTheServerCloses) {
    {
        OneShotServer srv([](int fd) {
            write_all(fd,
                      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\ncontent-length: 8\r\n"
                      "\r\n{\"a\":1}\nGARBAGE AFTER");
        });
        auto got = http_get(srv.url());
        ASSERT_TRUE(got) << got.error().message;
        EXPECT_EQ(got->status, 200);
        EXPECT_EQ(got->body, "{\"a\":1}\n");
    }
    OneShotServer srv([](int fd) { write_all(fd, "HTTP/1.0 404 Not Found\r\n\r\nno such page"); });
    auto got = http_get(srv.url("/nothing"));
    ASSERT_TRUE(got) << got.error().message;
    EXPECT_EQ(got->status, 404);
    EXPECT_EQ(got->body, "no such page");
}

TEST(HttpGet, TheRequestIsOneGetThatClosesTheConnection) {
    std::string seen;
    {
        OneShotServer srv(
            [](int fd) { write_all(fd, "HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n"); });
        auto got = http_get(srv.url("/probe.json?x=1"));
        ASSERT_TRUE(got) << got.error().message;
        EXPECT_EQ(got->status, 204);
        EXPECT_EQ(got->body, "");
        seen = srv.join();
    }
    EXPECT_EQ(seen.rfind("GET /probe.json?x=1 HTTP/1.1\r\n", 0), 0u) << seen;
    EXPECT_NE(seen.find("\r\nConnection: close\r\n"), std::string::npos) << seen;
    EXPECT_NE(seen.find("\r\nHost: 127.0.0.1:"), std::string::npos) << seen;
}

TEST(HttpGet, ABodyAboveTheLimitIsRefusedAnnouncedOrNot) {
    HttpGetLimits lim;
    lim.max_body = 1000;
    {
        OneShotServer srv(
            [](int fd) { write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 5000000\r\n\r\n"); });
        auto got = http_get(srv.url(), lim);
        ASSERT_FALSE(got);
        EXPECT_EQ(got.error().message, "the answer is larger than 1000 bytes");
        EXPECT_EQ(got.error().code, kExitCannotRun);
    }
    OneShotServer srv([](int fd) {
        write_all(fd, "HTTP/1.1 200 OK\r\n\r\n");
        write_all(fd, std::string(4096, 'x'));
    });
    auto got = http_get(srv.url(), lim);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().message, "the answer is larger than 1000 bytes");
}

TEST(HttpGet, AServerThatTricklesGetsTheWholeDeadlineNotOneABite) {
    HttpGetLimits lim;
    lim.answer = 300ms;
    OneShotServer srv([](int fd) {
        write_all(fd, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n");
        // A byte every 50 ms: each read comes well within 300 ms of the last,
        // but the whole body would take 5 s.
        for (int i = 0; i < 100; ++i) {
            if (::send(fd, "x", 1, MSG_NOSIGNAL) != 1) return;
            std::this_thread::sleep_for(50ms);
        }
    });
    const auto t0 = std::chrono::steady_clock::now();
    auto got = http_get(srv.url(), lim);
    const auto took = std::chrono::steady_clock::now() - t0;
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().message, "no whole answer in time");
    EXPECT_LT(took, 2s);
}

TEST(HttpGet, WhatIsNotAPlainHttpAnswerIsSaidSo) {
    struct Case {
        std::string answer;
        std::string why;
    };
    for (const Case& c :
         {Case{"SSH-2.0-OpenSSH_9.2\r\n\r\n", "not an HTTP answer"},
          Case{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
               "a chunked answer (not read)"},
          Case{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
               "closed before the whole body came"},
          Case{"HTTP/1.1 200 OK\r\nContent", "closed before the answer's head ended"},
          Case{"HTTP/1.1 200 OK\r\nContent-Length: many\r\n\r\n", "a bad Content-Length"}}) {
        OneShotServer srv([&c](int fd) { write_all(fd, c.answer); });
        auto got = http_get(srv.url());
        ASSERT_FALSE(got) << c.answer;
        EXPECT_EQ(got.error().message, c.why);
        EXPECT_EQ(got.error().code, kExitCannotRun);
    }
    HttpGetLimits lim;
    lim.max_head = 100;
    OneShotServer srv(
        [](int fd) { write_all(fd, "HTTP/1.1 200 OK\r\nX: " + std::string(500, 'a')); });
    auto got = http_get(srv.url(), lim);
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().message, "an answer head above 100 bytes");
}

TEST(HttpGet, BadUrlsAreUsageErrorsAndNobodyListeningIsExitThree) {
    for (const char* url : {"https://a/", "http://", "http://h:0/", "http://h:99999/",
                            "http://[::1/", "http://h:port/"}) {
        auto got = http_get(url);
        ASSERT_FALSE(got) << url;
        EXPECT_EQ(got.error().code, kExitUsage) << url << ": " << got.error().message;
    }
    // A port nothing listens on: bind one, learn it, close it.
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    auto got = http_get("http://127.0.0.1:" + std::to_string(ntohs(a.sin_port)) + "/");
    ASSERT_FALSE(got);
    EXPECT_EQ(got.error().message, "Connection refused");
    EXPECT_EQ(got.error().code, kExitCannotRun);
}

}  // namespace
}  // namespace fabscope
