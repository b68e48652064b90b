#pragma once
// Result<T>: a value or an error message, for the I/O seams (files, devices,
// processes). GCC 12 has no std::expected; this is the small part of it we use.

#include <string>
#include <utility>
#include <variant>

namespace fabscope {

/// An error at an I/O seam. `message` is complete and human-readable: it names
/// what failed and on what (file, device, port, node), so callers can print it
/// as is. `code` is the process exit status a command should end with.
struct Error {
    std::string message;
    int code = 2;  // an ExitStatus
};

// bugprone-exception-escape expects every move assignment not to throw; this
// one throws exactly when T's does, as std::variant's, and is noexcept then.
template <class T>
class [[nodiscard]] Result {  // NOLINT(bugprone-exception-escape)
  public:
    Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }

    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

    const Error& error() const { return std::get<1>(v_); }

  private:
    std::variant<T, Error> v_;
};

/// Result of an operation with no value.
struct Ok {};
using Status = Result<Ok>;

inline Error make_error(std::string message, int code = 2) {
    return Error{std::move(message), code};
}

}  // namespace fabscope
