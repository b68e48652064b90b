#pragma once
// Boxed<T>: an optional T kept on the heap, copied by value. A large member
// that most objects lack (a port's counters in a topology-only sweep) costs a
// pointer where it is absent instead of its whole size; the interface is
// std::optional's, so code reads it the same way.

#include <memory>
#include <optional>
#include <utility>

namespace fabscope {

template <class T>
class Boxed {
  public:
    Boxed() = default;
    Boxed(std::nullopt_t) {}  // NOLINT(google-explicit-constructor): as optional's
    Boxed(T v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT(google-explicit-constructor)
    Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
    Boxed(Boxed&&) noexcept = default;
    ~Boxed() = default;
    Boxed& operator=(const Boxed& o) {
        if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
        return *this;
    }
    Boxed& operator=(Boxed&&) noexcept = default;
    Boxed& operator=(std::nullopt_t) {
        p_.reset();
        return *this;
    }
    Boxed& operator=(T v) {
        emplace(std::move(v));
        return *this;
    }

    template <class... Args>
    T& emplace(Args&&... args) {
        p_ = std::make_unique<T>(std::forward<Args>(args)...);
        return *p_;
    }
    void reset() { p_.reset(); }

    bool has_value() const { return p_ != nullptr; }
    explicit operator bool() const { return has_value(); }
    T& operator*() { return *p_; }
    const T& operator*() const { return *p_; }
    T* operator->() { return p_.get(); }
    const T* operator->() const { return p_.get(); }
    T& value() {
        if (!p_) throw std::bad_optional_access();
        return *p_;
    }
    const T& value() const {
        if (!p_) throw std::bad_optional_access();
        return *p_;
    }

    T value_or(T fallback) const { return p_ ? *p_ : std::move(fallback); }

  private:
    std::unique_ptr<T> p_;
};

}  // namespace fabscope
