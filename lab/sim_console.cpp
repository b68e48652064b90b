#include "lab/sim_console.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "util/exit_status.h"

namespace fabscope {
namespace {

constexpr std::string_view kPrompt = "sim> ";

class FileLock {
  public:
    explicit FileLock(const std::string& path)
        : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ >= 0) ::flock(fd_, LOCK_EX);
    }
    ~FileLock() {
        if (fd_ >= 0) ::close(fd_);  // closing releases the lock
    }
    FileLock(const FileLock&) = delete;
    FileLock& operator=(const FileLock&) = delete;
    bool ok() const { return fd_ >= 0; }

  private:
    int fd_;
};

off_t file_size(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 ? st.st_size : -1;
}

std::string read_from(const std::string& path, off_t offset) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(offset);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

Result<std::string> SimConsole::command(const std::string& cmd,
                                        std::chrono::milliseconds timeout) const {
    FileLock lock(dir_ + "/console.lock");
    if (!lock.ok())
        return make_error(
            fmt::format("lab {}: cannot lock the console: {}", dir_, std::strerror(errno)));
    off_t before = file_size(output_path());
    if (before < 0)
        return make_error(fmt::format("lab {}: no simulator output file; is the lab up?", dir_),
                          kExitCannotRun);
    // O_NONBLOCK: if nobody reads the fifo (simulator gone) open fails with ENXIO instead of
    // hanging.
    int fd = ::open(fifo_path().c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        return make_error(
            fmt::format("lab {}: the simulator console is not open ({}); is the lab up?", dir_,
                        std::strerror(errno)),
            kExitCannotRun);
    }
    std::string line = cmd + "\n";
    ssize_t n = ::write(fd, line.data(), line.size());
    ::close(fd);
    if (n != static_cast<ssize_t>(line.size())) {
        return make_error(fmt::format("lab {}: writing to the simulator console failed", dir_),
                          kExitCannotRun);
    }
    auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        std::string out = read_from(output_path(), before);
        // The answer is complete when the next prompt has been printed.
        if (out.size() >= kPrompt.size() &&
            out.compare(out.size() - kPrompt.size(), kPrompt.size(), kPrompt) == 0) {
            out.resize(out.size() - kPrompt.size());
            while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
            // The echo of an earlier prompt may precede the answer.
            while (out.rfind(kPrompt, 0) == 0) out.erase(0, kPrompt.size());
            return out;
        }
        if (std::chrono::steady_clock::now() >= deadline) {
            return make_error(fmt::format("lab {}: the simulator did not answer `{}` within {} ms",
                                          dir_, cmd, timeout.count()),
                              kExitCannotRun);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

std::vector<SimClient> parse_attached(const std::string& text) {
    static const std::regex re(R"re(Client (\d+): pid (\d+) connected at "([^"]*)")re");
    std::vector<SimClient> out;
    for (std::sregex_iterator it(text.begin(), text.end(), re), end; it != end; ++it) {
        out.push_back(SimClient{std::stoi((*it)[1]), std::stoi((*it)[2]), (*it)[3]});
    }
    return out;
}

std::optional<std::string> dumped_port_state(const std::string& dump, int port) {
    const std::string tag = fmt::format("\t[{}]\t", port);
    std::istringstream in(dump);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#' || line.find(tag) == std::string::npos) continue;
        // A port with an error rate set (`lab fault mad-drop`) has a comment
        // after its state: "... Active/LinkUp\t# err_rate 50".
        if (size_t comment = line.find("\t#"); comment != std::string::npos) line.resize(comment);
        const size_t end = line.find_last_not_of(" \t\r");
        const size_t word = line.find_last_of(" \t", end);
        const size_t slash = line.find('/', word == std::string::npos ? 0 : word);
        if (end == std::string::npos || word == std::string::npos || slash == std::string::npos ||
            slash > end)
            return std::nullopt;
        return line.substr(word + 1, slash - word - 1);
    }
    return std::nullopt;
}

std::string console_quote(const std::string& node_id) {
    return "\"" + node_id + "\"";
}

}  // namespace fabscope
