#pragma once
// The shared secret of `perf serve --secret-file`: the server sends a fresh
// random nonce, the client answers HMAC-SHA256(secret, nonce). The secret
// itself never goes on the wire, and an answer is good for one nonce only.

#include <string>

#include "util/result.h"

namespace fabscope::perf {

/// 32 random bytes, hex.
std::string make_nonce();
/// HMAC-SHA256 of the protocol label and `nonce`, keyed by `secret`, hex.
std::string auth_response(const std::string& secret, const std::string& nonce);
/// Compares in constant time.
bool auth_matches(const std::string& secret, const std::string& nonce, const std::string& response);
/// The secret in `path`: its first line, not empty, the file not readable by
/// group or others. Errors name the file, code 2.
Result<std::string> read_secret_file(const std::string& path);

}  // namespace fabscope::perf
