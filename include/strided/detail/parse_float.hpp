// Decimal text to the nearest float, correctly rounded (ties to even), without
// std::from_chars<float>: libc++ before version 20 lacks it (Apple's toolchains and Debian's
// clang 14 among them), and strtof depends on the C locale. The printer only reads back text it
// wrote itself (std::to_chars, at most 9 significant digits), so the accepted form is narrow:
//   [-]digits[.digits][e[+|-]digits]   with at most 19 significant digits.
//
// Method: a double estimate m * 10^e lands within a float ulp or two of the answer; the answer is
// then settled by comparing the decimal exactly (big integers) with the midpoints between the
// candidate float and its neighbours.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

namespace strided::detail {

/// The value (-1)^negative * mantissa * 10^exponent.
struct Decimal {
  bool negative = false;
  std::uint64_t mantissa = 0;
  int exponent = 0;
};

namespace parse_float_impl {

/// Reads [0-9]* into `d` (at most 19 significant digits); returns the count read, -1 on overflow.
/// Digits after the point lower the exponent.
inline int read_digits(std::string_view s, std::size_t& i, Decimal& d, bool fraction) {
  int count = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++count) {
    if (d.mantissa == 0 && s[i] == '0') {
      if (fraction) --d.exponent;
      continue;  // leading zeros are not significant
    }
    if (d.mantissa >= 1'000'000'000'000'000'000ull) return -1;
    d.mantissa = d.mantissa * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (fraction) --d.exponent;
  }
  return count;
}

/// Unsigned integer of up to 640 bits, little-endian 32-bit limbs: enough for m * 5^66 * 2^300.
class BigInt {
 public:
  explicit BigInt(std::uint64_t v) noexcept
      : limbs_{static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v >> 32)} {}
  void multiply(std::uint32_t f) noexcept {
    std::uint64_t carry = 0;
    for (std::uint32_t& limb : limbs_) {
      const std::uint64_t p = std::uint64_t{limb} * f + carry;
      limb = static_cast<std::uint32_t>(p);
      carry = p >> 32;
    }
  }
  void multiply_pow5(int n) noexcept {
    for (; n >= 13; n -= 13) multiply(1220703125u);  // 5^13, the largest power below 2^32
    for (; n > 0; --n) multiply(5);
  }
  void shift_left(int bits) noexcept {
    const auto words = static_cast<std::size_t>(bits / 32);
    const int rest = bits % 32;
    for (std::size_t i = limbs_.size(); i-- > 0;) {
      const std::uint64_t hi = i >= words ? limbs_[i - words] : 0;
      const std::uint64_t lo = i >= words + 1 ? limbs_[i - words - 1] : 0;
      limbs_[i] = static_cast<std::uint32_t>(((hi << 32 | lo) << rest) >> 32);
    }
  }
  friend int compare(const BigInt& a, const BigInt& b) noexcept {
    for (std::size_t i = a.limbs_.size(); i-- > 0;)
      if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    return 0;
  }

 private:
  std::array<std::uint32_t, 20> limbs_{};
};

/// Sign of mantissa * 10^exponent - x, exactly, for a finite double x > 0 and |exponent| <= 66.
inline int compare_exact(std::uint64_t mantissa, int exponent, double x) noexcept {
  int binary_exponent = 0;
  const double fraction = std::frexp(x, &binary_exponent);  // x = fraction * 2^binary_exponent
  BigInt lhs(mantissa);
  BigInt rhs(static_cast<std::uint64_t>(std::ldexp(fraction, 53)));  // x = rhs * 2^(be - 53)
  if (exponent >= 0)
    lhs.multiply_pow5(exponent);
  else
    rhs.multiply_pow5(-exponent);
  const int shift = exponent - (binary_exponent - 53);  // lhs carries 2^exponent
  if (shift >= 0)
    lhs.shift_left(shift);
  else
    rhs.shift_left(-shift);
  return compare(lhs, rhs);
}

/// Halfway between a float and the next one up (exact in double); above the largest float, the
/// point from which values round to infinity.
inline double midpoint_above(float f) noexcept {
  const float up = std::nextafter(f, std::numeric_limits<float>::infinity());
  if (std::isinf(up)) return double{f} + 0x1p103;  // half an ulp of FLT_MAX
  return (double{f} + double{up}) / 2;
}

inline bool odd(float f) noexcept { return (std::bit_cast<std::uint32_t>(f) & 1u) != 0; }

}  // namespace parse_float_impl

/// Parses the whole of `text` in the form above; nullopt for anything else.
inline std::optional<Decimal> parse_decimal(std::string_view text) noexcept {
  using parse_float_impl::read_digits;
  Decimal d;
  std::size_t i = 0;
  if (i < text.size() && text[i] == '-') {
    d.negative = true;
    ++i;
  }
  int digits = read_digits(text, i, d, false);
  if (digits < 0) return std::nullopt;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const int fraction = read_digits(text, i, d, true);
    if (fraction < 0) return std::nullopt;
    digits += fraction;
  }
  if (digits == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool minus = i < text.size() && text[i] == '-';
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
    int exponent = 0;
    const std::size_t start = i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i)
      if ((exponent = exponent * 10 + (text[i] - '0')) > 9999) return std::nullopt;
    if (i == start) return std::nullopt;
    d.exponent += minus ? -exponent : exponent;
  }
  if (i != text.size()) return std::nullopt;
  return d;
}

/// The float nearest to `d` (ties to even), as std::from_chars would give; nullopt when it
/// overflows float's range. Values below half the smallest subnormal become a signed zero.
inline std::optional<float> nearest_float(Decimal d) noexcept {
  using namespace parse_float_impl;
  const float sign = d.negative ? -1.0f : 1.0f;
  // Significant digits of the mantissa (<= 20): decide far-out exponents without big integers.
  int length = 0;
  for (std::uint64_t m = d.mantissa; m != 0; m /= 10) ++length;
  if (d.mantissa == 0 || d.exponent + length < -46) return sign * 0.0f;  // < 1e-46 < 2^-150
  if (d.exponent + length > 40) return std::nullopt;                     // >= 1e40 > FLT_MAX
  const int e = d.exponent;                                              // now within [-66, 40]
  float c = static_cast<float>(static_cast<double>(d.mantissa) * std::pow(10.0, e));
  if (std::isinf(c)) c = std::numeric_limits<float>::max();
  for (;;) {
    const int above = compare_exact(d.mantissa, e, midpoint_above(c));
    if (above > 0 || (above == 0 && odd(c))) {
      c = std::nextafter(c, std::numeric_limits<float>::infinity());
      if (std::isinf(c)) return std::nullopt;
      continue;
    }
    if (c == 0.0f) break;
    const float down = std::nextafter(c, 0.0f);
    const int below = compare_exact(d.mantissa, e, midpoint_above(down));
    if (below < 0 || (below == 0 && odd(c))) {
      c = down;
      continue;
    }
    break;
  }
  return sign * c;
}

/// parse_decimal then nearest_float.
inline std::optional<float> parse_float(std::string_view text) noexcept {
  const std::optional<Decimal> d = parse_decimal(text);
  if (!d) return std::nullopt;
  return nearest_float(*d);
}

}  // namespace strided::detail
