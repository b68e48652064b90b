#include "util/process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace fabscope {
namespace {

void child_fail(const char* what) {
    // Only async-signal-safe calls between fork and exec.
    const char* err = std::strerror(errno);
    std::array<iovec, 4> iov{{{const_cast<char*>(what), std::strlen(what)},  // NOLINT
                              {const_cast<char*>(": "), 2},                  // NOLINT
                              {const_cast<char*>(err), std::strlen(err)},    // NOLINT
                              {const_cast<char*>("\n"), 1}}};                // NOLINT
    if (::writev(STDERR_FILENO, iov.data(), static_cast<int>(iov.size())) < 0) {
        // Nothing left to report to.
    }
    ::_exit(127);
}

}  // namespace

Result<ProcessId> spawn(const SpawnOptions& opts) {
    if (opts.argv.empty()) return make_error("spawn: empty command");

    // Everything the child needs is prepared before fork.
    std::vector<std::string> env_strings;
    env_strings.reserve(opts.env.size() + 64);
    for (char** e = environ; *e; ++e) {
        std::string_view kv(*e);
        auto eq = kv.find('=');
        std::string key(kv.substr(0, eq));
        if (!opts.env.count(key)) env_strings.emplace_back(kv);
    }
    for (const auto& [k, v] : opts.env) {
        std::string kv = k;
        kv += '=';
        kv += v;
        env_strings.push_back(std::move(kv));
    }
    std::vector<char*> envp;
    envp.reserve(env_strings.size() + 1);
    for (auto& s : env_strings) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = opts.argv;
    std::vector<char*> argv;
    argv.reserve(args.size() + 1);
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);

    int errpipe[2];
    if (::pipe2(errpipe, O_CLOEXEC) != 0)
        return make_error(fmt::format("pipe: {}", std::strerror(errno)));

    pid_t pid = ::fork();
    if (pid < 0) {
        ::close(errpipe[0]);
        ::close(errpipe[1]);
        return make_error(
            fmt::format("cannot start {}: fork: {}", opts.argv[0], std::strerror(errno)));
    }
    if (pid == 0) {
        ::close(errpipe[0]);
        if (opts.new_session) ::setsid();
        if (!opts.inherit_stdin) {
            int in = opts.stdin_fd >= 0 ? opts.stdin_fd : ::open("/dev/null", O_RDONLY);
            if (in < 0 || ::dup2(in, STDIN_FILENO) < 0) child_fail("stdin");
        }
        if (opts.stdout_path.empty() && opts.stdout_to_stderr &&
            ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
            child_fail("stdout");
        if (!opts.stdout_path.empty()) {
            int out = ::open(opts.stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (out < 0 || ::dup2(out, STDOUT_FILENO) < 0) child_fail(opts.stdout_path.c_str());
            if (opts.stderr_path == opts.stdout_path && ::dup2(out, STDERR_FILENO) < 0)
                child_fail("stderr");
        }
        if (!opts.stderr_path.empty() && opts.stderr_path != opts.stdout_path) {
            int err = ::open(opts.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (err < 0 || ::dup2(err, STDERR_FILENO) < 0) child_fail(opts.stderr_path.c_str());
        }
        if (!opts.cwd.empty() && ::chdir(opts.cwd.c_str()) != 0) child_fail(opts.cwd.c_str());
        // Close everything else we might have inherited (fifos, sockets).
        for (int fd = 3; fd < 1024; ++fd) {
            if (fd != errpipe[1]) ::close(fd);
        }
        ::execvpe(argv[0], argv.data(), envp.data());
        int e = errno;
        if (::write(errpipe[1], &e, sizeof e) < 0) {
            // The parent then sees EOF and treats it as started; nothing better to do.
        }
        ::_exit(127);
    }
    ::close(errpipe[1]);
    int child_errno = 0;
    ssize_t n = 0;
    do {
        n = ::read(errpipe[0], &child_errno, sizeof child_errno);
    } while (n < 0 && errno == EINTR);
    ::close(errpipe[0]);
    if (n == static_cast<ssize_t>(sizeof child_errno)) {
        ::waitpid(pid, nullptr, 0);
        return make_error(
            fmt::format("cannot run {}: {}", opts.argv[0], std::strerror(child_errno)), 3);
    }
    // The error pipe closes early in exec, before the kernel has placed the
    // new program's arguments: until then /proc/PID/cmdline reads empty. Wait
    // (briefly) for them, so the record matches the process it names; a
    // child that has already ended keeps an empty one and matches nothing.
    std::string cmdline;
    for (int i = 0; i < 1000 && cmdline.empty() && process_start_time(pid); ++i) {
        cmdline = process_cmdline(pid).value_or("");
        if (cmdline.empty()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ProcessId id{pid, process_start_time(pid).value_or(0), cmdline};
    return id;
}

std::optional<unsigned long long> process_start_time(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/stat", pid));
    if (!in) return std::nullopt;
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The command name (field 2) may contain spaces and parentheses: skip to the last ')'.
    auto close = stat.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(stat.substr(close + 2));
    std::string field;
    // Fields after the name start at 3; start time is field 22.
    for (int i = 3; i < 22; ++i) rest >> field;
    unsigned long long start = 0;
    rest >> start;
    if (!rest) return std::nullopt;
    // A zombie is not running.
    std::istringstream state(stat.substr(close + 2));
    char st = 0;
    state >> st;
    if (st == 'Z' || st == 'X') return std::nullopt;
    return start;
}

std::optional<std::string> process_cmdline(pid_t pid) {
    std::ifstream in(fmt::format("/proc/{}/cmdline", pid), std::ios::binary);
    if (!in) return std::nullopt;
    std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    while (!raw.empty() && raw.back() == '\0') raw.pop_back();
    std::replace(raw.begin(), raw.end(), '\0', ' ');
    return raw;
}

bool is_running(const ProcessId& id) {
    if (id.pid <= 0 || id.start_time == 0 || id.cmdline.empty()) return false;
    auto st = process_start_time(id.pid);
    if (!st || *st != id.start_time) return false;
    auto cmd = process_cmdline(id.pid);
    return cmd && *cmd == id.cmdline;
}

bool signal_process(const ProcessId& id, int sig) {
    return is_running(id) && ::kill(id.pid, sig) == 0;
}

void stop_process(const ProcessId& id, std::chrono::milliseconds grace) {
    auto reap = [&] { ::waitpid(id.pid, nullptr, WNOHANG); };
    if (!is_running(id)) {
        reap();
        return;
    }
    ::kill(id.pid, SIGTERM);
    auto deadline = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < deadline) {
        reap();
        if (!is_running(id)) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    signal_process(id, SIGKILL);
    for (int i = 0; i < 250 && is_running(id); ++i) {
        reap();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    reap();
}

RunResult wait_child(pid_t pid, std::chrono::milliseconds timeout) {
    RunResult r;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        int status = 0;
        pid_t w = ::waitpid(pid, &status, timeout.count() > 0 ? WNOHANG : 0);
        if (w == pid) {
            r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            return r;
        }
        if (w < 0 && errno != EINTR) return r;
        if (timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline) {
            r.timed_out = true;
            // Our own unreaped child: its PID cannot have been reused.
            ::kill(pid, SIGTERM);
            auto grace = std::chrono::steady_clock::now() + std::chrono::milliseconds(2000);
            while (::waitpid(pid, nullptr, WNOHANG) == 0) {
                if (std::chrono::steady_clock::now() >= grace) {
                    ::kill(pid, SIGKILL);
                    ::waitpid(pid, nullptr, 0);
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            return r;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

std::string self_exe() {
    char buf[PATH_MAX];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return "fabscope";
    return std::string(buf, static_cast<size_t>(n));
}

}  // namespace fabscope
