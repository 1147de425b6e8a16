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

namespace detail {
template <class T, const char* Name>
struct arithmetic_traits {
  static constexpr std::string_view name = Name;
  static constexpr T zero() noexcept { return T(0); }
  static constexpr T one() noexcept { return T(1); }
};
inline constexpr char name_bool[] = "bool";
inline constexpr char name_i8[] = "i8";
inline constexpr char name_i16[] = "i16";
inline constexpr char name_i32[] = "i32";
inline constexpr char name_i64[] = "i64";
inline constexpr char name_u8[] = "u8";
inline constexpr char name_u16[] = "u16";
inline constexpr char name_u32[] = "u32";
inline constexpr char name_u64[] = "u64";
inline constexpr char name_f32[] = "f32";
inline constexpr char name_f64[] = "f64";
}  // namespace detail

template <>
struct element_traits<bool> : detail::arithmetic_traits<bool, detail::name_bool> {};
template <>
struct element_traits<std::int8_t> : detail::arithmetic_traits<std::int8_t, detail::name_i8> {};
template <>
struct element_traits<std::int16_t> : detail::arithmetic_traits<std::int16_t, detail::name_i16> {};
template <>
struct element_traits<std::int32_t> : detail::arithmetic_traits<std::int32_t, detail::name_i32> {};
template <>
struct element_traits<std::int64_t> : detail::arithmetic_traits<std::int64_t, detail::name_i64> {};
template <>
struct element_traits<std::uint8_t> : detail::arithmetic_traits<std::uint8_t, detail::name_u8> {};
template <>
struct element_traits<std::uint16_t> : detail::arithmetic_traits<std::uint16_t, detail::name_u16> {
};
template <>
struct element_traits<std::uint32_t> : detail::arithmetic_traits<std::uint32_t, detail::name_u32> {
};
template <>
struct element_traits<std::uint64_t> : detail::arithmetic_traits<std::uint64_t, detail::name_u64> {
};
template <>
struct element_traits<float> : detail::arithmetic_traits<float, detail::name_f32> {};
template <>
struct element_traits<double> : detail::arithmetic_traits<double, detail::name_f64> {};

/// binary16 elements.
template <>
struct element_traits<f16> {
  static constexpr std::string_view name = "f16";  ///< the type's short name
  /// @name Constants
  ///@{

  /// +0 (and one(): 1).
  static constexpr f16 zero() noexcept { return f16::from_bits(0x0000); }
  static constexpr f16 one() noexcept { return f16::from_bits(0x3C00); }
  ///@}
};

/// bfloat16 elements.
template <>
struct element_traits<bf16> {
  static constexpr std::string_view name = "bf16";  ///< the type's short name
  /// @name Constants
  ///@{

  /// +0 (and one(): 1).
  static constexpr bf16 zero() noexcept { return bf16::from_bits(0x0000); }
  static constexpr bf16 one() noexcept { return bf16::from_bits(0x3F80); }
  ///@}
};

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

/// The 13 built-in element types, in the order casts and tests enumerate them.
template <class T>
inline constexpr bool is_builtin_element_v =
    std::is_same_v<T, bool> || std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::int16_t> ||
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
    std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t> ||
    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> ||
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, f16> ||
    std::is_same_v<T, bf16>;

}  // namespace strided
