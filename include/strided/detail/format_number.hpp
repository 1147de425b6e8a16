// Number-to-text primitives of the text engine: locale-free (std::to_chars), independent of any
// stream state, and matching Python's str.format for the forms PyTorch's printer uses.
#pragma once

#include <charconv>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

#include "strided/detail/parse_float.hpp"
#include "strided/element.hpp"
#include "strided/half.hpp"

namespace strided::detail {

/// Python spells non-finite values `nan`, `inf`, `-inf` whatever the NaN's sign bit (to_chars
/// would write `-nan`). Appends that spelling and returns true when `v` is not finite.
inline bool append_non_finite(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "nan";
  } else if (std::isinf(v)) {
    out += v < 0 ? "-inf" : "inf";
  } else {
    return false;
  }
  return true;
}

/// Appends `v` through std::to_chars with the given format and precision. The buffer is sized for
/// the longest fixed form of a double (309 integral digits) plus the requested decimals.
inline void append_chars(std::string& out, double v, std::chars_format fmt, int precision) {
  const std::size_t start = out.size();
  out.resize(start + 330 + static_cast<std::size_t>(precision));
  char* first = out.data() + start;
  const auto [end, ec] = std::to_chars(first, out.data() + out.size(), v, fmt, precision);
  out.resize(ec == std::errc() ? static_cast<std::size_t>(end - out.data()) : start);
}

/// Python's "{:.Nf}".format(v): fixed notation with `precision` decimals, correctly rounded.
inline void append_fixed(std::string& out, double v, int precision) {
  if (!append_non_finite(out, v)) append_chars(out, v, std::chars_format::fixed, precision);
}

/// Python's "{:.Ne}".format(v): one digit, `precision` decimals, exponent of at least two digits.
inline void append_scientific(std::string& out, double v, int precision) {
  if (!append_non_finite(out, v)) append_chars(out, v, std::chars_format::scientific, precision);
}

/// Decimal digits of an integer (int8/uint8 print as numbers, not characters).
template <std::integral I>
void append_integer(std::string& out, I v) {
  using Wide = std::conditional_t<std::is_signed_v<I>, long long, unsigned long long>;
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, static_cast<Wide>(v));
  if (ec == std::errc()) out.append(buf, end);
}

/// The shortest decimal text that reads back as the same float or double (std::to_chars without
/// precision); non-finite values as Python spells them.
template <std::floating_point F>
void append_shortest(std::string& out, F v) {
  if (append_non_finite(out, static_cast<double>(v))) return;
  char buf[40];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  if (ec == std::errc()) out.append(buf, end);
}

/// The shortest decimal text that reads back (through float) as the same 16-bit value H: the
/// fewest significant digits that round-trip, then printed in std::to_chars' shortest style.
template <class H>
void append_shortest_half(std::string& out, H v) {
  const float f = static_cast<float>(v);
  if (append_non_finite(out, static_cast<double>(f))) return;
  char buf[48];
  for (int digits = 0; digits < 9; ++digits) {  // 9 significant digits round-trip any float
    const auto [end, ec] =
        std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific, digits);
    if (ec != std::errc()) break;
    // parse_float, not std::from_chars<float>: libc++ before 20 lacks the latter.
    const std::optional<float> back = parse_float(std::string_view(buf, end));
    if (back && H(*back).bits() == v.bits()) {
      append_shortest(out, *back);
      return;
    }
  }
  append_shortest(out, f);
}

}  // namespace strided::detail
