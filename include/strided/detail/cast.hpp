// The cast engine: value conversion between element types (docs/casts.md).
//
// `cast_value` is the scalar reference of every conversion, written for reading; the rules:
//   same type            → the same bits
//   → bool               → x != 0 (a NaN is != 0, so true)
//   bool →               → 0 or 1
//   integer → integer    → modular (C++20 static_cast)
//   integer → float      → round to nearest even, ONCE (64-bit ints to f16/bf16 included)
//   float → integer      → truncate toward zero, saturate at the target's range, NaN → 0 (Rust
//   `as`) float → float        → exact when wider; round to nearest even once when narrower (from
//   double
//                          straight to f16/bf16), subnormals kept, overflow → ±inf; a NaN becomes a
//                          quiet NaN with its sign and leading payload bits (what x86 converts do)
//   user type ↔ anything → through float, with element_traits<T>::to_f32 / from_f32
// The float bit routines live beside the formats, in half.hpp (convert_float_bits,
// int_to_float_bits). `cast_contiguous` (cast-inl.hpp) is the fast path: SIMD kernels where they
// exist, a scalar loop otherwise, always bit-identical to `cast_value` (tests check every path).
#pragma once

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/dtype.hpp"
#include "strided/element.hpp"
#include "strided/half.hpp"

namespace strided::detail {

/// A user element type that opts into casts: element_traits<T> converts it to and from float.
template <class T>
concept CastsViaF32 = !is_builtin_element_v<T> && requires(T v, float f) {
  { element_traits<T>::to_f32(v) } -> std::same_as<float>;
  { element_traits<T>::from_f32(f) } -> std::same_as<T>;
};

template <class T>
concept CastInteger = std::integral<T> && !std::same_as<T, bool> && is_builtin_element_v<T>;

template <class T>
concept CastFloat = is_dtype_kind<T>(DTypeKind::floating);

template <class From, class To>
inline constexpr bool is_castable_v = std::is_same_v<From, To> ||
                                      ((is_builtin_element_v<From> ||
                                        CastsViaF32<From>)&&(is_builtin_element_v<To> ||
                                                             CastsViaF32<To>));

namespace cast_impl {

/// A float type's format (from the dtype registry) and the unsigned integer of its size.
template <CastFloat T>
struct FormatOf {
  static constexpr FloatFormat value = dtype_info(dtype_of<T>).format;
  using Bits = std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
};

template <CastFloat T>
constexpr std::uint64_t bits_of(T v) noexcept {
  if constexpr (requires { v.bits(); }) {
    return v.bits();
  } else {
    return std::bit_cast<typename FormatOf<T>::Bits>(v);
  }
}

template <CastFloat T>
constexpr T from_bits(std::uint64_t b) noexcept {
  using Bits = typename FormatOf<T>::Bits;
  if constexpr (requires { T::from_bits(Bits{}); }) {
    return T::from_bits(static_cast<Bits>(b));
  } else {
    return std::bit_cast<T>(static_cast<Bits>(b));
  }
}

/// Truncates toward zero and saturates; NaN → 0. `d` is any float value widened exactly.
template <CastInteger I>
constexpr I saturate_trunc(double d) noexcept {
  using L = std::numeric_limits<I>;
  // Both bounds are powers of two (or 0), exact in double: min, and max + 1.
  constexpr double lo = static_cast<double>(L::min());
  constexpr double hi = static_cast<double>(L::max() / 2 + 1) * 2.0;
  if (d != d) return 0;
  if (d <= lo) return L::min();
  if (d >= hi) return L::max();
  return static_cast<I>(d);  // in range: truncation is defined
}

template <CastFloat T>
constexpr double widen_to_double(T v) noexcept {
  return from_bits<double>(convert_float_bits<FormatOf<T>::value, binary64>(bits_of(v)));
}

template <CastFloat T>
constexpr bool is_nonzero(T v) noexcept {
  const std::uint64_t sign = std::uint64_t{1} << FormatOf<T>::value.sign_shift();
  return (bits_of(v) & ~sign) != 0;  // every pattern but ±0, NaNs included
}

template <class From, class To>
constexpr To builtin_cast(From v) noexcept {
  if constexpr (std::is_same_v<From, To>) {
    return v;
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (CastFloat<From>)
      return is_nonzero(v);
    else
      return v != 0;
  } else if constexpr (std::is_same_v<From, bool>) {
    return v ? element_traits<To>::one() : element_traits<To>::zero();
  } else if constexpr (CastInteger<From> && CastInteger<To>) {
    return static_cast<To>(v);               // modular since C++20
  } else if constexpr (CastInteger<From>) {  // → float
    const bool negative = v < 0;
    // Magnitude without overflow, also for the most negative value.
    const auto u = static_cast<std::uint64_t>(v);
    const std::uint64_t magnitude = negative ? ~u + 1 : u;
    return from_bits<To>(int_to_float_bits<FormatOf<To>::value>(negative, magnitude));
  } else if constexpr (CastInteger<To>) {  // float →
    return saturate_trunc<To>(widen_to_double(v));
  } else {  // float → float
    return from_bits<To>(
        convert_float_bits<FormatOf<From>::value, FormatOf<To>::value>(bits_of(v)));
  }
}

}  // namespace cast_impl

/// The scalar reference of one conversion (docs/casts.md#rules). constexpr for the built-in types.
template <class From, class To>
requires is_castable_v<From, To>
constexpr To cast_value(From v) noexcept {
  if constexpr (std::is_same_v<From, To>) {
    return v;
  } else if constexpr (CastsViaF32<From>) {
    return cast_value<float, To>(element_traits<From>::to_f32(v));
  } else if constexpr (CastsViaF32<To>) {
    return element_traits<To>::from_f32(cast_value<From, float>(v));
  } else {
    return cast_impl::builtin_cast<From, To>(v);
  }
}

namespace cast_impl {

/// Whether the hardware conversion (static_cast) is known to equal the reference under the
/// default floating-point environment (round to nearest, no flush-to-zero).
template <class From, class To>
inline constexpr bool hardware_exact_v =
    (CastInteger<From> && (std::is_same_v<To, float> || std::is_same_v<To, double>)) ||
    (std::is_same_v<From, float> && std::is_same_v<To, double>) ||
    (std::is_same_v<From, double> && std::is_same_v<To, float>);

/// Scalar loop: static_cast where hardware_exact_v (so the compiler can vectorise), the reference
/// otherwise; tests compare this loop with cast_value on every pair.
template <class From, class To>
void scalar_loop(const From* src, To* dst, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (hardware_exact_v<From, To>)
      dst[i] = static_cast<To>(src[i]);
    else
      dst[i] = cast_value<From, To>(src[i]);
  }
}

}  // namespace cast_impl

/// Converts n contiguous elements. Bit-exact with cast_value; SIMD where a kernel exists for the
/// active ISA level. `src` and `dst` must not overlap. `whole_n`: the elements of the whole cast
/// when this is a parallel chunk of it (the kernels stream their stores by the whole size).
template <class From, class To>
requires is_castable_v<From, To>
void cast_contiguous(const From* src, To* dst, std::size_t n, std::size_t whole_n = 0) noexcept;

/// cast_contiguous on every thread of the pool when n is large. The engine's entry point for
/// built-in element types: libstrided holds every pair in the compiled mode.
template <class From, class To>
requires is_castable_v<From, To>
void cast_contiguous_parallel(const From* src, To* dst, std::size_t n);

/// What Tensor::cast calls: the engine for built-in pairs, a scalar loop over the pool for a user
/// type that casts through float (its conversion is the user's code, so it is compiled here).
template <class From, class To>
requires is_castable_v<From, To>
void cast_elements(const From* src, To* dst, std::size_t n) {
  if constexpr (is_builtin_element_v<From> && is_builtin_element_v<To>) {
    cast_contiguous_parallel(src, dst, n);
  } else {
    const std::size_t chunks = chunk_count(n * std::max(sizeof(From), sizeof(To)));
    parallel_for(chunks, [&](std::size_t c) {
      const std::size_t first = split_point(n, chunks, c), last = split_point(n, chunks, c + 1);
      cast_impl::scalar_loop(src + first, dst + first, last - first);
    });
  }
}

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/cast-inl.hpp"
#endif
