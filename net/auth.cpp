#include "net/auth.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/opensslv.h>
#include <openssl/rand.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/exit_status.h"
#include "util/input_file.h"

namespace fabscope::perf {
namespace {

#if OPENSSL_VERSION_MAJOR != 3
#error "libcrypto's soname is libcrypto.so.3 for OpenSSL 3 only: say which to load"
#endif
constexpr const char* kLibcrypto = "libcrypto.so.3";

/// The four libcrypto functions authentication needs, loaded the first time
/// one is: a fabscope run without a secret (discover, sweep, the TUI) does
/// not map OpenSSL at all (3 MB of its peak memory).
struct Crypto {
    decltype(&::RAND_bytes) rand_bytes = nullptr;
    decltype(&::HMAC) hmac = nullptr;
    decltype(&::EVP_sha256) sha256 = nullptr;
    decltype(&::CRYPTO_memcmp) memcmp = nullptr;
    std::string error;  ///< why it could not be loaded
};

template <class F>
void bind(void* lib, const char* name, F& into, std::string& error) {
    into = reinterpret_cast<F>(::dlsym(lib, name));
    if (!into && error.empty()) error = fmt::format("{} has no {}", kLibcrypto, name);
}

const Crypto& crypto() {
    static const Crypto loaded = [] {
        Crypto c;
        void* lib = ::dlopen(kLibcrypto, RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* why = ::dlerror();
            c.error = why ? why : kLibcrypto;
            return c;
        }
        bind(lib, "RAND_bytes", c.rand_bytes, c.error);
        bind(lib, "HMAC", c.hmac, c.error);
        bind(lib, "EVP_sha256", c.sha256, c.error);
        bind(lib, "CRYPTO_memcmp", c.memcmp, c.error);
        return c;
    }();
    return loaded;
}

std::string hex(const unsigned char* p, size_t n) {
    std::string s;
    s.reserve(n * 2);
    for (size_t i = 0; i < n; ++i) s += fmt::format("{:02x}", p[i]);
    return s;
}

}  // namespace

std::string make_nonce() {
    std::array<unsigned char, 32> b{};
    const Crypto& c = crypto();
    if (!c.error.empty() || c.rand_bytes(b.data(), static_cast<int>(b.size())) != 1) {
        // Without randomness there is no challenge worth the name: fail closed.
        return "";
    }
    return hex(b.data(), b.size());
}

std::string auth_response(const std::string& secret, const std::string& nonce) {
    std::string msg = "fabscope-perf-auth-v1:" + nonce;
    std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
    unsigned len = 0;
    const Crypto& c = crypto();
    if (!c.error.empty()) return "";  // matches nothing: authentication fails closed
    c.hmac(c.sha256(), secret.data(), static_cast<int>(secret.size()),
           reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac.data(), &len);
    return hex(mac.data(), len);
}

bool auth_matches(const std::string& secret, const std::string& nonce,
                  const std::string& response) {
    if (nonce.empty()) return false;
    std::string want = auth_response(secret, nonce);
    return !want.empty() && response.size() == want.size() &&
           crypto().memcmp(response.data(), want.data(), want.size()) == 0;
}

Result<std::string> read_secret_file(const std::string& path) {
    if (const std::string& why = crypto().error; !why.empty()) {
        return make_error(fmt::format("--secret-file {}: authentication needs OpenSSL's {}, which "
                                      "could not be loaded ({}): install libssl3",
                                      path, kLibcrypto, why),
                          kExitCannotRun);
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        return make_error(fmt::format("--secret-file {}: {}", path, std::strerror(errno)),
                          kExitUsage);
    if ((st.st_mode & 077) != 0) {
        return make_error(
            fmt::format("--secret-file {}: readable by group or others (chmod 600 {})", path, path),
            kExitUsage);
    }
    auto text = read_text_file(path, 4096);  // a secret is one line
    if (!text) return make_error(fmt::format("--secret-file {}", text.error().message), kExitUsage);
    std::istringstream in(*text);
    std::string line;
    if (!std::getline(in, line))
        return make_error(fmt::format("--secret-file {}: empty", path), kExitUsage);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty())
        return make_error(fmt::format("--secret-file {}: empty secret", path), kExitUsage);
    return line;
}

}  // namespace fabscope::perf
