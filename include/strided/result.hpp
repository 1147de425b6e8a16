// Result<T, E>: a value or an error, with the surface of std::expected, identical in every -std
// mode (an alias of std::expected under C++23 would give one member function two return types in
// one program), usable in constant expressions and with -fno-exceptions.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include "strided/error.hpp"

#if __has_include(<expected>)
#include <expected>
#endif

namespace strided {

template <class T, class E = ShapeError>
class Result;

namespace detail {

// std::invoke's rules (member pointers included) without <functional>, which brings the
// searchers and <unordered_map> into every translation unit that holds a Result.
template <class F, class A0, class... A>
constexpr decltype(auto) invoke(F&& f, A0&& a0, A&&... a) {
  using Fn = std::remove_cvref_t<F>;
  if constexpr (std::is_member_function_pointer_v<Fn>) {
    if constexpr (requires { (std::forward<A0>(a0).*f)(std::forward<A>(a)...); })
      return (std::forward<A0>(a0).*f)(std::forward<A>(a)...);
    else if constexpr (requires { a0.get(); })  // std::reference_wrapper
      return (a0.get().*f)(std::forward<A>(a)...);
    else
      return ((*std::forward<A0>(a0)).*f)(std::forward<A>(a)...);
  } else if constexpr (std::is_member_object_pointer_v<Fn>) {
    if constexpr (requires { std::forward<A0>(a0).*f; })
      return std::forward<A0>(a0).*f;
    else if constexpr (requires { a0.get(); })
      return a0.get().*f;
    else
      return (*std::forward<A0>(a0)).*f;
  } else {
    return std::forward<F>(f)(std::forward<A0>(a0), std::forward<A>(a)...);
  }
}

template <class F>
constexpr decltype(auto) invoke(F&& f) {
  return std::forward<F>(f)();
}

template <class E>
std::string error_message(const E& error) {
  if constexpr (requires { error.message(); })
    return std::string(error.message());
  else
    return "strided: bad Result access";
}

}  // namespace detail

/// Thrown by Result::value() (and `*`, `->`) on an error, when exceptions are enabled.
template <class E>
class BadResultAccess : public std::exception {
 public:
  /// Wraps the error that was accessed as a value.
  explicit BadResultAccess(E error)
      : error_(std::move(error)), what_(detail::error_message(error_)) {}
  /// The error's message().
  const char* what() const noexcept override { return what_.c_str(); }
  /// The error itself.
  const E& error() const noexcept { return error_; }

 private:
  E error_;
  std::string what_;
};

namespace detail {

/// The single failure point of every Result access on an error: throws BadResultAccess, or
/// without exceptions prints the message and aborts.
template <class E>
[[noreturn]] void fail_result_access(const E& error) {
#if defined(__cpp_exceptions)
  throw BadResultAccess<E>(error);
#else
  std::fprintf(stderr, "strided: bad Result access: %s\n", error_message(error).c_str());
  std::abort();
#endif
}

/// error() called on a Result that holds a value: the same failure point, with a fixed error.
[[noreturn]] inline void fail_error_access() {
  fail_result_access(ShapeError::invalid_argument("Result::error", "called on a value"));
}

template <class R>
struct is_result : std::false_type {};
template <class T, class E>
struct is_result<Result<T, E>> : std::true_type {};

struct value_tag {};
struct error_tag {};

}  // namespace detail

/// Either a `T` or an `E`. Converts implicitly from both, so a function returning Result can
/// `return value;` or `return error;`.
template <class T, class E>
class Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, E>, "Result<T, E> needs T != E");

 public:
  using value_type = T;  ///< the value's type
  using error_type = E;  ///< the error's type

  /// @name Construction: implicit from a value or an error; copies and moves
  ///@{

  /// Holds `value` (or `error`, for the overloads taking an E).
  constexpr Result(const T& value) : storage_(detail::value_tag{}, value), has_(true) {}
  constexpr Result(T&& value) : storage_(detail::value_tag{}, std::move(value)), has_(true) {}
  constexpr Result(const E& error) : storage_(detail::error_tag{}, error), has_(false) {}
  constexpr Result(E&& error) : storage_(detail::error_tag{}, std::move(error)), has_(false) {}
  /// Holds a T built from `args` in place (as std::expected): a value that is then changed in
  /// place and returned is never moved, which is what keeps view operations cheap.
  template <class... Args>
  requires std::constructible_from<T, Args...>
  [[gnu::always_inline]] constexpr explicit Result(std::in_place_t, Args&&... args)
      : storage_(detail::value_tag{}, std::forward<Args>(args)...), has_(true) {}

  constexpr Result(const Result& other)
      : storage_(other.has_ ? Storage(detail::value_tag{}, other.storage_.value)
                            : Storage(detail::error_tag{}, other.storage_.error)),
        has_(other.has_) {}
  constexpr Result(Result&& other) noexcept(
      std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_move_constructible_v<E>)
      : storage_(other.has_ ? Storage(detail::value_tag{}, std::move(other.storage_.value))
                            : Storage(detail::error_tag{}, std::move(other.storage_.error))),
        has_(other.has_) {}
  constexpr Result& operator=(const Result& other) {
    if (this != &other) {
      Result copy(other);
      destroy();
      std::construct_at(this, std::move(copy));
    }
    return *this;
  }
  constexpr Result& operator=(Result&& other) noexcept(
      std::is_nothrow_move_constructible_v<T>&& std::is_nothrow_move_constructible_v<E>) {
    if (this != &other) {
      destroy();
      std::construct_at(this, std::move(other));
    }
    return *this;
  }
  /// Destroys the value or the error.
  constexpr ~Result() { destroy(); }
  ///@}

  /// @name Observers
  ///@{

  /// Whether a value is held (also `explicit operator bool`).
  constexpr bool has_value() const noexcept { return has_; }
  constexpr explicit operator bool() const noexcept { return has_; }
  ///@}

  /// @name Value access: on an error, throws BadResultAccess<E> (or prints and aborts with
  /// -fno-exceptions). Never undefined behaviour.
  ///@{

  /// The value.
  constexpr T& value() & {
    if (!has_) detail::fail_result_access(storage_.error);
    return storage_.value;
  }
  constexpr const T& value() const& {
    if (!has_) detail::fail_result_access(storage_.error);
    return storage_.value;
  }
  constexpr T&& value() && {
    if (!has_) detail::fail_result_access(storage_.error);
    return std::move(storage_.value);
  }
  constexpr const T&& value() const&& {
    if (!has_) detail::fail_result_access(storage_.error);
    return std::move(storage_.value);
  }

  ///@}

  /// @name Error access
  ///@{

  /// The error. Precondition: !has_value() (checked: a value here is a failure too).
  constexpr const E& error() const& {
    if (has_) detail::fail_error_access();
    return storage_.error;
  }
  constexpr E& error() & {
    if (has_) detail::fail_error_access();
    return storage_.error;
  }
  constexpr E&& error() && { return std::move(error()); }
  ///@}

  /// @name Dereference: value() under another name (checked the same way)
  ///@{

  /// The value.
  constexpr T& operator*() & { return value(); }
  constexpr const T& operator*() const& { return value(); }
  constexpr T&& operator*() && { return std::move(value()); }
  constexpr T* operator->() { return std::addressof(value()); }
  constexpr const T* operator->() const { return std::addressof(value()); }
  ///@}

  /// @name Monadic operations, as std::expected
  ///@{

  /// The value, or `fallback` converted to T.
  template <class U>
  constexpr T value_or(U&& fallback) const& {
    return has_ ? storage_.value : static_cast<T>(std::forward<U>(fallback));
  }
  template <class U>
  constexpr T value_or(U&& fallback) && {
    return has_ ? std::move(storage_.value) : static_cast<T>(std::forward<U>(fallback));
  }

  /// f(value) -> Result<U, E>; an error passes through.
  template <class F>
  constexpr auto and_then(F&& f) const& {
    using R = std::remove_cvref_t<std::invoke_result_t<F, const T&>>;
    static_assert(detail::is_result<R>::value, "and_then needs a function returning Result");
    if (has_) return detail::invoke(std::forward<F>(f), storage_.value);
    return R(storage_.error);
  }
  template <class F>
  constexpr auto and_then(F&& f) && {
    using R = std::remove_cvref_t<std::invoke_result_t<F, T&&>>;
    static_assert(detail::is_result<R>::value, "and_then needs a function returning Result");
    if (has_) return detail::invoke(std::forward<F>(f), std::move(storage_.value));
    return R(std::move(storage_.error));
  }
  /// f(value) -> U, wrapped as Result<U, E>; an error passes through.
  template <class F>
  constexpr auto transform(F&& f) const& {
    using U = std::remove_cv_t<std::invoke_result_t<F, const T&>>;
    if constexpr (std::is_void_v<U>) {
      if (!has_) return Result<void, E>(storage_.error);
      detail::invoke(std::forward<F>(f), storage_.value);
      return Result<void, E>();
    } else {
      if (has_) return Result<U, E>(detail::invoke(std::forward<F>(f), storage_.value));
      return Result<U, E>(storage_.error);
    }
  }
  /// f(error) -> Result<T, G>; a value passes through.
  template <class F>
  constexpr auto or_else(F&& f) const& {
    using R = std::remove_cvref_t<std::invoke_result_t<F, const E&>>;
    static_assert(detail::is_result<R>::value, "or_else needs a function returning Result");
    if (has_) return R(storage_.value);
    return detail::invoke(std::forward<F>(f), storage_.error);
  }
  /// f(error) -> G, wrapped as Result<T, G>; a value passes through.
  template <class F>
  constexpr auto transform_error(F&& f) const& {
    using G = std::remove_cv_t<std::invoke_result_t<F, const E&>>;
    if (has_) return Result<T, G>(storage_.value);
    return Result<T, G>(detail::invoke(std::forward<F>(f), storage_.error));
  }

  ///@}

 private:
  union Storage {
    // Always inlined, as the in-place constructor above: a view op builds its result in place.
    template <class... Args>
    [[gnu::always_inline]] constexpr Storage(detail::value_tag, Args&&... args)
        : value(std::forward<Args>(args)...) {}
    constexpr Storage(detail::error_tag, const E& e) : error(e) {}
    constexpr Storage(detail::error_tag, E&& e) : error(std::move(e)) {}
    constexpr ~Storage() {}
    T value;
    E error;
  };

  constexpr void destroy() noexcept {
    if (has_)
      std::destroy_at(std::addressof(storage_.value));
    else
      std::destroy_at(std::addressof(storage_.error));
  }

  Storage storage_;
  bool has_;
};

/// Success or an error, for operations that produce no value (e.g. Tensor::copy_to).
template <class E>
class Result<void, E> {
 public:
  using value_type = void;  ///< no value
  using error_type = E;     ///< the error's type

  /// @name Construction and observers
  ///@{

  /// Success (or, for the overloads taking an E, that error).
  constexpr Result() noexcept {}  // not "= default": {} would zero the whole optional error
  constexpr Result(const E& error) : error_(error) {}
  constexpr Result(E&& error) : error_(std::move(error)) {}
  /// Whether the operation succeeded (also `explicit operator bool`).
  constexpr bool has_value() const noexcept { return !error_.has_value(); }
  constexpr explicit operator bool() const noexcept { return has_value(); }
  /// Checks success: on an error, the same failure as Result<T>::value().
  constexpr void value() const {
    if (error_) detail::fail_result_access(*error_);
  }
  constexpr void operator*() const { value(); }
  /// The error. Precondition: !has_value() (checked).
  constexpr const E& error() const& {
    if (!error_) detail::fail_error_access();
    return *error_;
  }
  constexpr E&& error() && {
    if (!error_) detail::fail_error_access();
    return std::move(*error_);
  }
  ///@}

  /// @name Monadic operations, as std::expected<void, E>
  ///@{

  /// f() -> Result<U, E> on success; an error passes through. (transform: f() -> U;
  /// or_else: f(error) -> Result; transform_error: f(error) -> G.)
  template <class F>
  constexpr auto and_then(F&& f) const {
    using R = std::remove_cvref_t<std::invoke_result_t<F>>;
    static_assert(detail::is_result<R>::value, "and_then needs a function returning Result");
    if (has_value()) return detail::invoke(std::forward<F>(f));
    return R(*error_);
  }
  template <class F>
  constexpr auto transform(F&& f) const {
    using U = std::remove_cv_t<std::invoke_result_t<F>>;
    if constexpr (std::is_void_v<U>) {
      if (has_value()) detail::invoke(std::forward<F>(f));
      return has_value() ? Result<void, E>() : Result<void, E>(*error_);
    } else {
      if (has_value()) return Result<U, E>(detail::invoke(std::forward<F>(f)));
      return Result<U, E>(*error_);
    }
  }
  template <class F>
  constexpr auto or_else(F&& f) const {
    using R = std::remove_cvref_t<std::invoke_result_t<F, const E&>>;
    if (has_value()) return R();
    return detail::invoke(std::forward<F>(f), *error_);
  }
  template <class F>
  constexpr auto transform_error(F&& f) const {
    using G = std::remove_cv_t<std::invoke_result_t<F, const E&>>;
    if (has_value()) return Result<void, G>();
    return Result<void, G>(detail::invoke(std::forward<F>(f), *error_));
  }

  ///@}

 private:
  std::optional<E> error_;
};

#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L
/// Converts to std::expected (C++23).
template <class T, class E>
constexpr std::expected<T, E> to_expected(const Result<T, E>& r) {
  if (!r) return std::unexpected(r.error());
  if constexpr (std::is_void_v<T>)
    return {};
  else
    return *r;
}

/// Converts from std::expected (C++23).
template <class T, class E>
constexpr Result<T, E> from_expected(const std::expected<T, E>& e) {
  if (!e) return Result<T, E>(e.error());
  if constexpr (std::is_void_v<T>)
    return Result<T, E>();
  else
    return Result<T, E>(*e);
}
#endif

}  // namespace strided
