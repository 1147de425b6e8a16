// Element types: the open Element concept and element_traits for the built-in types.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <concepts>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

#include "strided/dtype.hpp"
#include "strided/half.hpp"

namespace strided {

/// Specialise for every type a Tensor may hold: `name` (e.g. "f32"), `zero()`, `one()`.
/// User types may add `static float to_f32(T)` and `static T from_f32(float)` to take part in
/// casts.
template <class T>
struct element_traits;

/// A trivially copyable type with an element_traits specialisation. Open: user types register
/// by specialising element_traits.
template <class T>
concept Element = std::is_trivially_copyable_v<T> && !std::is_const_v<T> && requires {
  { element_traits<T>::name } -> std::convertible_to<std::string_view>;
  { element_traits<T>::zero() } -> std::same_as<T>;
  { element_traits<T>::one() } -> std::same_as<T>;
};

/// The built-in types: name from the dtype registry, zero and one by value conversion.
template <BuiltinElement T>
struct element_traits<T> {
  static constexpr std::string_view name = dtype_info(dtype_of<T>).name;  ///< e.g. "f32"
  /// @name Constants
  ///@{

  /// +0 (and one(): 1).
  static constexpr T zero() noexcept { return static_cast<T>(0.0f); }
  static constexpr T one() noexcept { return static_cast<T>(1.0f); }
  ///@}
};

namespace detail {

/// An end of a cast: a built-in type, or a user type whose element_traits convert it to and from
/// float.
template <class T>
concept CastEndpoint = is_builtin_element_v<T> || requires(T v, float f) {
  { element_traits<T>::to_f32(v) } -> std::same_as<float>;
  { element_traits<T>::from_f32(f) } -> std::same_as<T>;
};

}  // namespace detail

/// Whether `Tensor<From>::cast<To>()` exists: From and To are the same type, or each is a built-in
/// type or a user type whose element_traits have `to_f32` and `from_f32`.
template <class From, class To>
concept CastableTo = std::same_as<From, To> ||
    (detail::CastEndpoint<From>&& detail::CastEndpoint<To>);

namespace detail {

/// Value equality: `==` where the type has it (floats: NaN unequal, -0 == +0), else the bytes.
template <class T>
constexpr bool elements_equal(const T& a, const T& b) noexcept {
  if constexpr (std::equality_comparable<T>)
    return a == b;
  else
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// The value as a double, for tolerance comparisons: arithmetic types, f16/bf16 and user types
/// with element_traits<T>::to_f32.
template <class T>
constexpr double to_double(const T& v) noexcept {
  if constexpr (requires { static_cast<double>(v); })
    return static_cast<double>(v);
  else
    return static_cast<double>(element_traits<T>::to_f32(v));
}

}  // namespace detail

}  // namespace strided
