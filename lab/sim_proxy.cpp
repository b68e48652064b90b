#include "lab/sim_proxy.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "model/fabric.h"

namespace fabscope {
namespace {

// The simulator's wire formats (ibsim.h): a control message is four
// 32-bit words (magic, client id, type, length) and 64 bytes of data; a MAD
// travels in a sim_request: five 32-bit words, a 64-bit word, 256 bytes.
constexpr size_t kCtlSize = 16 + 64;
constexpr size_t kReqSize = 32 + 256;
constexpr size_t kMadOffset = 32;
constexpr uint32_t kCtlError = 0;
constexpr uint32_t kCtlConnect = 1;
constexpr uint32_t kCtlDisconnect = 2;
constexpr int kMaxClients = 10;

uint32_t u32(const uint8_t* p) {
    uint32_t v = 0;
    std::memcpy(&v, p, 4);
    return v;
}

socklen_t abstract_addr(const std::string& name, sockaddr_un& a) {
    std::memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t n = std::min(name.size(), sizeof a.sun_path - 1);
    std::memcpy(a.sun_path + 1, name.data(), n);  // sun_path[0] = 0: the abstract namespace
    // umad2sim and ibsim count the terminating NUL as part of the name.
    return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n + 1);
}

int bound_socket(const std::string& name) {
    int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_un a{};
    socklen_t len = abstract_addr(name, a);
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool connect_to(int fd, const std::string& name) {
    sockaddr_un a{};
    socklen_t len = abstract_addr(name, a);
    return ::connect(fd, reinterpret_cast<sockaddr*>(&a), len) == 0;
}

// "<name>:ctl4711" -> 4711
int pid_from(const sockaddr_un& a, socklen_t len, const char* tag) {
    size_t n =
        len > offsetof(sockaddr_un, sun_path) + 1 ? len - offsetof(sockaddr_un, sun_path) - 1 : 0;
    std::string name(a.sun_path + 1, strnlen(a.sun_path + 1, n));
    auto pos = name.rfind(std::string(":") + tag);
    if (pos == std::string::npos) return -1;
    return std::atoi(name.c_str() + pos + 1 + std::strlen(tag));
}

}  // namespace

SimProxy::SimProxy(std::string sim_name, std::string proxy_name, std::string silent_file)
    : sim_(std::move(sim_name)),
      proxy_(std::move(proxy_name)),
      silent_file_(std::move(silent_file)) {}

SimProxy::~SimProxy() {
    for (auto& [pid, c] : clients_) close_client(c);
    for (int fd : out_) {
        if (fd >= 0) ::close(fd);
    }
    if (ctl_listen_ >= 0) ::close(ctl_listen_);
}

bool SimProxy::start() {
    ::signal(SIGPIPE, SIG_IGN);
    ctl_listen_ = bound_socket(proxy_ + ":ctl");
    if (ctl_listen_ < 0) return false;
    for (int id = 0; id < kMaxClients; ++id) {
        int fd = bound_socket(proxy_ + ":out" + std::to_string(id));
        if (fd < 0) return false;
        out_.push_back(fd);
    }
    return true;
}

void SimProxy::close_client(Client& c) {
    for (int* fd : {&c.ctl_relay, &c.data_relay}) {
        if (*fd >= 0) ::close(*fd);
        *fd = -1;
    }
    if (c.id >= 0) pid_of_id_.erase(c.id);
}

void SimProxy::forget_dead_clients() {
    for (auto it = clients_.begin(); it != clients_.end();) {
        if (::kill(it->first, 0) != 0 && errno == ESRCH) {
            close_client(it->second);
            it = clients_.erase(it);
        } else {
            ++it;
        }
    }
}

void SimProxy::on_ctl() {
    uint8_t buf[kCtlSize];
    sockaddr_un from{};
    socklen_t flen = sizeof from;
    ssize_t n =
        ::recvfrom(ctl_listen_, buf, sizeof buf, 0, reinterpret_cast<sockaddr*>(&from), &flen);
    if (n != static_cast<ssize_t>(kCtlSize)) return;
    int pid = pid_from(from, flen, "ctl");
    if (pid <= 0) return;
    uint32_t type = u32(buf + 8);
    Client& c = clients_[pid];
    c.pid = pid;
    if (type == kCtlConnect) {
        close_client(c);
        c = Client{};
        c.pid = pid;
    }
    if (c.ctl_relay < 0) {
        c.ctl_relay = bound_socket(sim_ + ":ctl" + std::to_string(pid));
        if (c.ctl_relay >= 0 && !connect_to(c.ctl_relay, sim_ + ":ctl")) {
            ::close(c.ctl_relay);
            c.ctl_relay = -1;
        }
    }
    if (type == kCtlConnect && c.data_relay < 0)
        c.data_relay = bound_socket(sim_ + ":in" + std::to_string(pid));

    uint8_t reply[kCtlSize];
    std::memcpy(reply, buf, kCtlSize);
    bool answered = false;
    if (c.ctl_relay >= 0 &&
        ::send(c.ctl_relay, buf, kCtlSize, 0) == static_cast<ssize_t>(kCtlSize)) {
        // The simulator answers control messages at once; do not wait long for it.
        pollfd p{c.ctl_relay, POLLIN, 0};
        if (::poll(&p, 1, 3000) == 1)
            answered = ::recv(c.ctl_relay, reply, kCtlSize, 0) == static_cast<ssize_t>(kCtlSize);
    }
    if (!answered) {
        uint32_t err = kCtlError;
        std::memcpy(reply + 8, &err, 4);
    } else if (type == kCtlConnect && u32(reply + 8) != kCtlError) {
        int id = static_cast<int>(u32(reply + 16));  // sim_client_info.id: the client id now
        if (id >= 0 && id < kMaxClients && c.data_relay >= 0 &&
            connect_to(c.data_relay, sim_ + ":out" + std::to_string(id))) {
            c.id = id;
            pid_of_id_[id] = pid;
        }
    }
    ::sendto(ctl_listen_, reply, kCtlSize, 0, reinterpret_cast<sockaddr*>(&from), flen);
    if (type == kCtlDisconnect) {
        close_client(c);
        clients_.erase(pid);
    }
}

bool SimProxy::drop_request(const std::vector<uint8_t>& req) const {
    const uint8_t* mad = req.data() + kMadOffset;
    if (mad[1] == 0x81) {  // directed route: through or to a silent node?
        DrPath path = DrPath::of_smp(mad);
        return std::any_of(silent_paths_.begin(), silent_paths_.end(),
                           [&](const DrPath& p) { return path.starts_with(p); });
    }
    // LID-routed: the destination LID as umad2sim stores it (network order, in a 32-bit word).
    uint16_t dlid = ntohs(static_cast<uint16_t>(u32(req.data())));
    for (const SilentNode& s : silent_) {
        if (s.lid != 0 && s.lid == dlid) return true;
    }
    return false;
}

bool SimProxy::drop_reply(const std::vector<uint8_t>& rep) {
    const uint8_t* mad = rep.data() + kMadOffset;
    if (mad[1] != 0x81) return false;
    DrPath path = DrPath::of_smp(mad);
    uint16_t attr = static_cast<uint16_t>(mad[16] << 8 | mad[17]);
    if (mad[3] == 0x81 &&
        attr == 0x0011) {  // a NodeInfo answer names the node at the end of the path
        uint64_t guid = 0;
        for (int i = 0; i < 8; ++i) guid = guid << 8 | mad[64 + 12 + i];
        for (const SilentNode& s : silent_) {
            if (s.guid == guid) {
                silent_paths_.insert(path);
                return true;
            }
        }
    }
    return std::any_of(silent_paths_.begin(), silent_paths_.end(),
                       [&](const DrPath& p) { return path.starts_with(p); });
}

void SimProxy::on_request(int id) {
    std::vector<uint8_t> buf(kReqSize);
    sockaddr_un from{};
    socklen_t flen = sizeof from;
    ssize_t n = ::recvfrom(out_[static_cast<size_t>(id)], buf.data(), buf.size(), 0,
                           reinterpret_cast<sockaddr*>(&from), &flen);
    if (n <= 0) return;
    buf.resize(static_cast<size_t>(n));
    int pid = pid_from(from, flen, "in");
    auto it = clients_.find(pid);
    if (it == clients_.end() || it->second.data_relay < 0) return;
    if (buf.size() == kReqSize && drop_request(buf)) {
        ++dropped_;
        return;
    }
    it->second.to_sim.push_back(std::move(buf));
    flush(it->second);
}

void SimProxy::on_reply(Client& c) {
    std::vector<uint8_t> buf(kReqSize);
    ssize_t n = ::recv(c.data_relay, buf.data(), buf.size(), 0);
    if (n <= 0) return;
    buf.resize(static_cast<size_t>(n));
    if (buf.size() == kReqSize && drop_reply(buf)) {
        ++dropped_;
        return;
    }
    c.to_client.push_back(std::move(buf));
    flush(c);
}

void SimProxy::flush(Client& c) {
    size_t sent = 0;
    while (sent < c.to_sim.size() &&
           ::send(c.data_relay, c.to_sim[sent].data(), c.to_sim[sent].size(), MSG_DONTWAIT) >= 0) {
        ++sent;
    }
    c.to_sim.erase(c.to_sim.begin(), c.to_sim.begin() + static_cast<long>(sent));
    if (c.id < 0) return;
    sockaddr_un to{};
    socklen_t tlen = abstract_addr(proxy_ + ":in" + std::to_string(c.pid), to);
    sent = 0;
    while (sent < c.to_client.size()) {
        ssize_t r = ::sendto(out_[static_cast<size_t>(c.id)], c.to_client[sent].data(),
                             c.to_client[sent].size(), MSG_DONTWAIT,
                             reinterpret_cast<sockaddr*>(&to), tlen);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        ++sent;  // delivered, or the client is gone: either way it leaves the queue
    }
    c.to_client.erase(c.to_client.begin(), c.to_client.begin() + static_cast<long>(sent));
}

void SimProxy::reload_silent() {
    struct stat st {};
    int64_t mtime = ::stat(silent_file_.c_str(), &st) == 0
                        ? static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec
                        : 0;
    if (mtime == silent_mtime_) return;
    silent_mtime_ = mtime;
    silent_.clear();
    silent_paths_.clear();
    if (mtime == 0) return;
    try {
        std::ifstream in(silent_file_);
        auto j = nlohmann::json::parse(in);
        for (const auto& s : j.at("silent")) {
            auto guid = parse_guid(s.at("guid").get<std::string>());
            if (guid) silent_.push_back(SilentNode{*guid, s.value("lid", uint16_t{0})});
        }
    } catch (const std::exception&) {
        // A file being rewritten: the next round reads it whole.
        silent_mtime_ = -1;
    }
}

void SimProxy::poll_once(std::chrono::milliseconds timeout) {
    reload_silent();
    std::vector<pollfd> fds;
    fds.push_back({ctl_listen_, POLLIN, 0});
    for (int fd : out_) fds.push_back({fd, POLLIN, 0});
    std::vector<int> relay_pids;
    bool backlog = false;
    for (auto& [pid, c] : clients_) {
        if (c.data_relay < 0) continue;
        short ev = POLLIN;
        if (!c.to_sim.empty()) ev |= POLLOUT;
        backlog = backlog || !c.to_client.empty();
        fds.push_back({c.data_relay, ev, 0});
        relay_pids.push_back(pid);
    }
    // A client that cannot take its replies yet is retried soon, not waited on.
    int wait = backlog ? 1 : static_cast<int>(timeout.count());
    if (::poll(fds.data(), fds.size(), wait) < 0) return;
    if (fds[0].revents & POLLIN) on_ctl();
    for (size_t i = 0; i < out_.size(); ++i) {
        if (fds[1 + i].revents & POLLIN) {
            for (int k = 0; k < 64; ++k) {  // drain a burst, but let the others have a turn
                pollfd p{out_[i], POLLIN, 0};
                if (::poll(&p, 1, 0) != 1) break;
                on_request(static_cast<int>(i));
            }
        }
    }
    for (size_t i = 0; i < relay_pids.size(); ++i) {
        auto it = clients_.find(relay_pids[i]);
        if (it == clients_.end()) continue;
        const pollfd& p = fds[1 + out_.size() + i];
        if (p.revents & POLLIN) {
            for (int k = 0; k < 64 && it->second.data_relay >= 0; ++k) {
                pollfd q{it->second.data_relay, POLLIN, 0};
                if (::poll(&q, 1, 0) != 1) break;
                on_reply(it->second);
            }
        }
        flush(it->second);
    }
}

}  // namespace fabscope
