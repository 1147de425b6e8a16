// 16-bit floating-point storage types: IEEE binary16 (f16) and bfloat16 (bf16).
//
// Both are storage types: arithmetic goes through float. Conversions are explicit and bit-exact
// (docs/casts.md#rules): narrowing rounds once, to nearest even, keeps subnormals and sends
// overflow to ±inf; every conversion between two floating-point formats returns a quiet NaN for a
// NaN, keeping the sign and the leading payload bits. The bit-level routines below are the scalar
// reference that detail/cast.hpp and the SIMD kernels are tested against.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <bit>
#include <compare>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace strided {

/// Layout of an IEEE-754 binary format: `mant` explicit significand bits, `exp` exponent bits
/// (DTypeInfo::format; a template argument of HalfFloat).
struct FloatFormat {
  int mant;  ///< explicit significand bits
  int exp;   ///< exponent bits
  /// The exponent bias.
  constexpr int bias() const noexcept { return (1 << (exp - 1)) - 1; }
  /// The all-ones exponent field (infinities and NaNs).
  constexpr std::uint64_t exp_max() const noexcept { return (std::uint64_t{1} << exp) - 1; }
  /// The significand field's bits.
  constexpr std::uint64_t mant_mask() const noexcept { return (std::uint64_t{1} << mant) - 1; }
  /// The sign bit's position.
  constexpr int sign_shift() const noexcept { return mant + exp; }

  /// Same layout.
  friend constexpr bool operator==(const FloatFormat&, const FloatFormat&) noexcept = default;
};

/// The formats of the built-in floating-point types.
namespace float_formats {
inline constexpr FloatFormat binary16{10, 5};   ///< f16
inline constexpr FloatFormat bfloat16{7, 8};    ///< bf16
inline constexpr FloatFormat binary32{23, 8};   ///< float
inline constexpr FloatFormat binary64{52, 11};  ///< double
}  // namespace float_formats

namespace detail {

using float_formats::bfloat16;
using float_formats::binary16;
using float_formats::binary32;
using float_formats::binary64;

/// A NaN of format `D` carrying the sign and the leading payload bits of a NaN of format `S`,
/// with the quiet bit set (what x86 conversion instructions produce).
template <FloatFormat S, FloatFormat D>
constexpr std::uint64_t quiet_nan_bits(std::uint64_t sign, std::uint64_t mant) noexcept {
  std::uint64_t payload = 0;
  if constexpr (S.mant >= D.mant)  // one shift per direction: clang warns on the other's count
    payload = mant >> (S.mant - D.mant);
  else
    payload = mant << (D.mant - S.mant);
  return (sign << D.sign_shift()) | (D.exp_max() << D.mant) | (std::uint64_t{1} << (D.mant - 1)) |
         payload;
}

/// Rounds `sig * 2^-shift` to the nearest integer, ties to even. `shift` >= 1.
constexpr std::uint64_t round_shift_rne(std::uint64_t sig, int shift) noexcept {
  if (shift >= 64) return 0;  // sig < 2^63 here, so the value is below one half
  const std::uint64_t q = sig >> shift;
  const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t half = std::uint64_t{1} << (shift - 1);
  return (rem > half || (rem == half && (q & 1) != 0)) ? q + 1 : q;
}

/// Encodes sign * sig * 2^exp2 (sig < 2^63, an exact value) in format D, rounding once to
/// nearest even; subnormal results are kept, overflow gives ±inf.
template <FloatFormat D>
constexpr std::uint64_t encode_rne(std::uint64_t sign, std::uint64_t sig, int exp2) noexcept {
  const std::uint64_t s = sign << D.sign_shift();
  if (sig == 0) return s;
  const int top = static_cast<int>(std::bit_width(sig)) - 1;  // value = 1.xxx * 2^(top + exp2)
  int biased = top + exp2 + D.bias();
  int shift = top - D.mant;  // bits of sig below the destination's last significand bit
  if (biased < 1) {          // subnormal result: the last bit is worth 2^(1 - bias - mant)
    shift += 1 - biased;
    biased = 1;
  }
  if (static_cast<std::uint64_t>(biased) >= D.exp_max()) return s | (D.exp_max() << D.mant);
  std::uint64_t r = shift > 0 ? round_shift_rne(sig, shift) : sig << -shift;
  // r carries the implicit bit (2^mant) when normal; adding it to (biased - 1) << mant yields the
  // exponent field, and a carry out of the significand rolls into the exponent (up to inf).
  r += static_cast<std::uint64_t>(biased - 1) << D.mant;
  return s | r;
}

/// Converts the bit pattern of a value in format S to format D (narrowing or widening).
template <FloatFormat S, FloatFormat D>
constexpr std::uint64_t convert_float_bits(std::uint64_t bits) noexcept {
  const std::uint64_t sign = (bits >> S.sign_shift()) & 1;
  const std::uint64_t e = (bits >> S.mant) & S.exp_max();
  const std::uint64_t m = bits & S.mant_mask();
  if (e == S.exp_max()) {
    if (m == 0) return (sign << D.sign_shift()) | (D.exp_max() << D.mant);  // ±inf
    return quiet_nan_bits<S, D>(sign, m);
  }
  const std::uint64_t sig = e == 0 ? m : m | (std::uint64_t{1} << S.mant);
  const int exp2 = (e == 0 ? 1 : static_cast<int>(e)) - S.bias() - S.mant;
  return encode_rne<D>(sign, sig, exp2);
}

/// An integer value (sign and magnitude) in format D, rounded once to nearest even.
template <FloatFormat D>
constexpr std::uint64_t int_to_float_bits(bool negative, std::uint64_t magnitude) noexcept {
  // encode_rne wants sig < 2^63: drop the lowest bit into a sticky position first.
  if (magnitude >> 63) return encode_rne<D>(negative, (magnitude >> 1) | (magnitude & 1), 1);
  return encode_rne<D>(negative, magnitude, 0);
}

/// The bits of a binary32 (float) or binary64 (double) value.
template <class Wide>
using wide_bits_t = std::conditional_t<sizeof(Wide) == 4, std::uint32_t, std::uint64_t>;
template <class Wide>
inline constexpr FloatFormat wide_format = sizeof(Wide) == 4 ? binary32 : binary64;

/// The pattern in 16-bit format F of a float or double, rounded once to nearest even.
template <FloatFormat F, class Wide>
constexpr std::uint16_t half_bits_from(Wide v) noexcept {
  return static_cast<std::uint16_t>(
      convert_float_bits<wide_format<Wide>, F>(std::bit_cast<wide_bits_t<Wide>>(v)));
}

/// The float or double holding the value of pattern `b` in 16-bit format F (exact).
template <class Wide, FloatFormat F>
constexpr Wide wide_from_half_bits(std::uint16_t b) noexcept {
  return std::bit_cast<Wide>(
      static_cast<wide_bits_t<Wide>>(convert_float_bits<F, wide_format<Wide>>(b)));
}

/// IEEE comparison of two 16-bit patterns sharing a layout (sign in bit 15): NaN is unordered
/// with everything, -0 equals +0.
template <FloatFormat F>
constexpr std::partial_ordering compare_half_bits(std::uint16_t a, std::uint16_t b) noexcept {
  constexpr std::uint16_t inf = static_cast<std::uint16_t>(F.exp_max() << F.mant);
  const int ma = a & 0x7fff;
  const int mb = b & 0x7fff;
  if (ma > inf || mb > inf) return std::partial_ordering::unordered;
  // Sign-magnitude to a monotonic integer key (both zeros map to 0).
  const int ka = (a & 0x8000) != 0 ? -ma : ma;
  const int kb = (b & 0x8000) != 0 ? -mb : mb;
  return ka <=> kb;
}

}  // namespace detail

/// What f16 and bf16 share: a 16-bit pattern in format F, converted to and from float and double
/// and compared as IEEE 754 values. `Half` is the derived type (f16 or bf16).
template <class Half, FloatFormat F>
struct HalfFloat {
  std::uint16_t raw = 0;  ///< the bit pattern

  /// Zero.
  constexpr HalfFloat() noexcept = default;
  /// @name From float and double
  ///@{

  /// Rounds to nearest even (once, also from double); overflow gives ±inf; NaN stays NaN (quiet).
  explicit constexpr HalfFloat(float v) noexcept : raw(detail::half_bits_from<F>(v)) {}
  /// As from float: rounded once from the double.
  explicit constexpr HalfFloat(double v) noexcept : raw(detail::half_bits_from<F>(v)) {}
  ///@}

  /// @name Bit patterns
  ///@{

  /// The value whose bit pattern is `bits` (bits(): this value's pattern).
  static constexpr Half from_bits(std::uint16_t bits) noexcept {
    Half h;
    h.raw = bits;
    return h;
  }
  /// This value's bit pattern.
  constexpr std::uint16_t bits() const noexcept { return raw; }
  ///@}

  /// @name To float and double
  ///@{

  /// Exact (a signalling NaN comes back quiet).
  explicit constexpr operator float() const noexcept {
    return detail::wide_from_half_bits<float, F>(raw);
  }
  /// Exact, as to float.
  explicit constexpr operator double() const noexcept {
    return detail::wide_from_half_bits<double, F>(raw);
  }
  ///@}

  /// @name Comparisons
  ///@{

  /// IEEE 754: NaN is unordered and unequal to everything; -0 == +0.
  friend constexpr bool operator==(Half a, Half b) noexcept {
    return detail::compare_half_bits<F>(a.raw, b.raw) == 0;
  }
  friend constexpr std::partial_ordering operator<=>(Half a, Half b) noexcept {
    return detail::compare_half_bits<F>(a.raw, b.raw);
  }
  ///@}
};

/// IEEE 754 binary16. A storage type: arithmetic goes through float.
struct f16 : HalfFloat<f16, float_formats::binary16> {
  /// Zero, or the nearest f16 to a float or double (see HalfFloat).
  using HalfFloat::HalfFloat;
};

/// bfloat16: the top half of a binary32. A storage type: arithmetic goes through float.
struct bf16 : HalfFloat<bf16, float_formats::bfloat16> {
  /// Zero, or the nearest bf16 to a float or double (see HalfFloat).
  using HalfFloat::HalfFloat;
};

static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2);

}  // namespace strided

namespace std {

/// std::numeric_limits for strided::f16: the constants of IEEE 754 binary16.
template <>
class numeric_limits<strided::f16> {
  using T = strided::f16;
  static constexpr T b(std::uint16_t v) noexcept { return T::from_bits(v); }

 public:
  /// @name The members of std::numeric_limits
  ///@{

  /// As for float, with binary16's values where the formats differ.
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int radix = 2;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr bool is_iec559 = true;
  static constexpr int digits = 11;
  static constexpr int digits10 = 3;
  static constexpr int max_digits10 = 5;
  static constexpr int min_exponent = -13;
  static constexpr int min_exponent10 = -4;
  static constexpr int max_exponent = 16;
  static constexpr int max_exponent10 = 4;
  static constexpr T min() noexcept { return b(0x0400); }  // 2^-14
  static constexpr T lowest() noexcept { return b(0xfbff); }
  static constexpr T max() noexcept { return b(0x7bff); }          // 65504
  static constexpr T epsilon() noexcept { return b(0x1400); }      // 2^-10
  static constexpr T round_error() noexcept { return b(0x3800); }  // 0.5
  static constexpr T infinity() noexcept { return b(0x7c00); }
  static constexpr T quiet_NaN() noexcept { return b(0x7e00); }
  static constexpr T signaling_NaN() noexcept { return b(0x7d00); }
  static constexpr T denorm_min() noexcept { return b(0x0001); }  // 2^-24
  ///@}
};

/// std::numeric_limits for strided::bf16: the constants of bfloat16 (float's exponent range,
/// 8 significant bits).
template <>
class numeric_limits<strided::bf16> {
  using T = strided::bf16;
  static constexpr T b(std::uint16_t v) noexcept { return T::from_bits(v); }

 public:
  /// @name The members of std::numeric_limits
  ///@{

  /// As for float, with bfloat16's values where the formats differ.
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool is_exact = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr bool has_signaling_NaN = true;
  static constexpr std::float_denorm_style has_denorm = std::denorm_present;
  static constexpr bool has_denorm_loss = false;
  static constexpr std::float_round_style round_style = std::round_to_nearest;
  static constexpr bool is_bounded = true;
  static constexpr bool is_modulo = false;
  static constexpr int radix = 2;
  static constexpr bool traps = false;
  static constexpr bool tinyness_before = false;
  static constexpr bool is_iec559 = false;  // not an IEEE 754 interchange format
  static constexpr int digits = 8;
  static constexpr int digits10 = 2;
  static constexpr int max_digits10 = 4;
  static constexpr int min_exponent = -125;
  static constexpr int min_exponent10 = -37;
  static constexpr int max_exponent = 128;
  static constexpr int max_exponent10 = 38;
  static constexpr T min() noexcept { return b(0x0080); }  // 2^-126
  static constexpr T lowest() noexcept { return b(0xff7f); }
  static constexpr T max() noexcept { return b(0x7f7f); }          // (2 - 2^-7) * 2^127
  static constexpr T epsilon() noexcept { return b(0x3c00); }      // 2^-7
  static constexpr T round_error() noexcept { return b(0x3f00); }  // 0.5
  static constexpr T infinity() noexcept { return b(0x7f80); }
  static constexpr T quiet_NaN() noexcept { return b(0x7fc0); }
  static constexpr T signaling_NaN() noexcept { return b(0x7fa0); }
  static constexpr T denorm_min() noexcept { return b(0x0001); }  // 2^-133
  ///@}
};

}  // namespace std
