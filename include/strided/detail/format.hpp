// The text engine: Display (PyTorch's str(t)) and Debug (structure + bounded preview), written
// with std::to_chars only. It works on a buffer pointer + Layout, never on Tensor, so that
// tensor.hpp can include it; the public entry points (operator<<, to_string, to_debug_string,
// display, PrintOptions) are in print.hpp (which tensor.hpp includes), the fmt/std formatters in
// format.hpp.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <string>

#include "strided/detail/format_debug.hpp"
#include "strided/detail/format_display.hpp"
#include "strided/detail/format_number.hpp"
#include "strided/half.hpp"
#include "strided/layout.hpp"
#include "strided/print_options.hpp"

// The compiled mode's libstrided holds the text engine of every built-in element type; a user
// type's is still instantiated where it is printed.
#if !STRIDED_HEADER_ONLY
#define STRIDED_DETAIL_FORMAT_OF(T, prefix)                                               \
  prefix template std::string strided::detail::format_display<T>(const T*, const Layout&, \
                                                                 const PrintOptions&);    \
  prefix template std::string strided::detail::format_debug<T>(const T*, std::size_t,     \
                                                               const Layout&, bool);
#define STRIDED_DETAIL_FORMAT_ALL(prefix)         \
  STRIDED_DETAIL_FORMAT_OF(bool, prefix)          \
  STRIDED_DETAIL_FORMAT_OF(std::uint8_t, prefix)  \
  STRIDED_DETAIL_FORMAT_OF(std::int8_t, prefix)   \
  STRIDED_DETAIL_FORMAT_OF(std::uint16_t, prefix) \
  STRIDED_DETAIL_FORMAT_OF(std::int16_t, prefix)  \
  STRIDED_DETAIL_FORMAT_OF(std::uint32_t, prefix) \
  STRIDED_DETAIL_FORMAT_OF(std::int32_t, prefix)  \
  STRIDED_DETAIL_FORMAT_OF(std::uint64_t, prefix) \
  STRIDED_DETAIL_FORMAT_OF(std::int64_t, prefix)  \
  STRIDED_DETAIL_FORMAT_OF(strided::f16, prefix)  \
  STRIDED_DETAIL_FORMAT_OF(strided::bf16, prefix) \
  STRIDED_DETAIL_FORMAT_OF(float, prefix)         \
  STRIDED_DETAIL_FORMAT_OF(double, prefix)
STRIDED_DETAIL_FORMAT_ALL(extern)
#endif
