// fmt::formatter (and std::formatter where <format> exists) for Tensor<T>, over the text engine:
//   {}      Display: PyTorch's str(t) without the dtype        strided::to_string(t)
//   {:.N}   Display with N decimals                            strided::display(t, {.precision=N})
//   {:?}    Debug: structure and a bounded preview of values   strided::to_debug_string(t)
//   {:#?}   Debug, one field per line                          strided::to_debug_string(t, true)
// Any other spec is a format error: at compile time where the library checks format strings
// (fmt::format("..."), std::format("...")), else fmt::format_error / std::format_error.
// Shape and Strides format as `[8, 3, 3, 3]` (string specs such as {:>20} apply to the whole text).
// Needs fmt (link strided::fmt); tensor.hpp alone gives operator<< and to_string without it.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "strided/detail/format.hpp"
#include "strided/tensor.hpp"

#if __has_include(<format>)
#include <format>
#endif

namespace strided::detail {

/// A parsed format spec for Tensor: which form, and the precision of `{:.N}` (-1: default).
struct TextSpec {
  enum class Form { display, debug, pretty_debug };
  Form form = Form::display;
  int precision = -1;

  template <class T>
  std::string render(const Tensor<T>& t) const {
    switch (form) {
      case Form::debug:
        return to_debug_string(t);
      case Form::pretty_debug:
        return to_debug_string(t, true);
      case Form::display:
        break;
    }
    PrintOptions options;
    if (precision >= 0) options.precision = precision;
    return display(t, options);
  }

  /// Writes the text of `t` to `out` (fmt's or std's formatter output).
  template <class T, class Out>
  Out write(const Tensor<T>& t, Out out) const {
    const std::string text = render(t);
    return std::copy(text.begin(), text.end(), out);
  }
};

/// Parses `[.N] | ? | #?` up to the closing brace and returns the position reached; `ok` turns
/// false when the spec is invalid.
template <class It>
constexpr It parse_text_spec(It it, It end, TextSpec& spec, bool& ok) {
  ok = true;
  if (it == end || *it == '}') return it;
  if (*it == '.') {
    ++it;
    if (it == end || *it < '0' || *it > '9') {
      ok = false;
      return it;
    }
    int value = 0;
    for (; it != end && *it >= '0' && *it <= '9'; ++it) {
      value = value * 10 + (*it - '0');
      if (value > 1000) {  // more decimals than any double has digits: a mistake, not a request
        ok = false;
        return it;
      }
    }
    spec.precision = value;
  } else if (*it == '?') {
    spec.form = TextSpec::Form::debug;
    ++it;
  } else if (*it == '#') {
    ++it;
    if (it == end || *it != '?') {
      ok = false;
      return it;
    }
    spec.form = TextSpec::Form::pretty_debug;
    ++it;
  }
  if (it != end && *it != '}') ok = false;
  return it;
}

inline constexpr const char* text_spec_error =
    "invalid format spec for strided::Tensor: use {}, {:.N}, {:?} or {:#?}";

}  // namespace strided::detail

/// fmt::format("{}", t): Display; {:.N} sets the precision; {:?} Debug, {:#?} pretty Debug.
/// Any other spec is a compile-time error.
template <strided::Printable T>
struct fmt::formatter<strided::Tensor<T>> {
  /// Parses {}, {:.N}, {:?} or {:#?}.
  FMT_CONSTEXPR auto parse(fmt::format_parse_context& ctx) -> decltype(ctx.begin()) {
    bool ok = true;
    auto it = strided::detail::parse_text_spec(ctx.begin(), ctx.end(), spec_, ok);
#if FMT_VERSION >= 110000
    if (!ok) fmt::report_error(strided::detail::text_spec_error);
#else
    if (!ok) ctx.on_error(strided::detail::text_spec_error);
#endif
    return it;
  }

  /// Writes the text of `t` under the parsed spec.
  template <class FormatContext>
  auto format(const strided::Tensor<T>& t, FormatContext& ctx) const -> decltype(ctx.out()) {
    return spec_.write(t, ctx.out());
  }

 private:
  strided::detail::TextSpec spec_;
};

/// fmt::format("{}", t.shape()): `[8, 3, 3, 3]`; string specs such as {:>20} apply to the whole
/// text. Full specialisations, so they win over fmt's range formatter when <fmt/ranges.h> is
/// included too.
template <>
struct fmt::formatter<strided::Shape> : fmt::formatter<fmt::string_view> {
  /// Writes strided::to_string(shape) under the string spec.
  template <class FormatContext>
  auto format(const strided::Shape& shape, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::string text = strided::to_string(shape);
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
  }
};

/// fmt::format("{}", t.strides()): `[9, 3, -1]`, under the same string specs.
template <>
struct fmt::formatter<strided::Strides> : fmt::formatter<fmt::string_view> {
  /// Writes strided::to_string(strides) under the string spec.
  template <class FormatContext>
  auto format(const strided::Strides& strides, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::string text = strided::to_string(strides);
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(text), ctx);
  }
};

#if defined(__cpp_lib_format)
/// std::format("{}", shape): `[8, 3, 3, 3]` (a full specialisation: it wins over C++23's ranges).
template <>
struct std::formatter<strided::Shape, char> : std::formatter<std::string_view, char> {
  /// Writes strided::to_string(shape) under the string spec.
  template <class FormatContext>
  auto format(const strided::Shape& shape, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::string text = strided::to_string(shape);
    return std::formatter<std::string_view, char>::format(std::string_view(text), ctx);
  }
};

/// std::format("{}", strides): `[9, 3, -1]`.
template <>
struct std::formatter<strided::Strides, char> : std::formatter<std::string_view, char> {
  /// Writes strided::to_string(strides) under the string spec.
  template <class FormatContext>
  auto format(const strided::Strides& strides, FormatContext& ctx) const -> decltype(ctx.out()) {
    const std::string text = strided::to_string(strides);
    return std::formatter<std::string_view, char>::format(std::string_view(text), ctx);
  }
};

/// std::format("{}", t), with the same specs as the fmt::formatter.
template <strided::Printable T>
struct std::formatter<strided::Tensor<T>, char> {
  /// Parses {}, {:.N}, {:?} or {:#?}.
  constexpr auto parse(std::format_parse_context& ctx) -> decltype(ctx.begin()) {
    bool ok = true;
    auto it = strided::detail::parse_text_spec(ctx.begin(), ctx.end(), spec_, ok);
#if defined(__cpp_exceptions)
    if (!ok) throw std::format_error(strided::detail::text_spec_error);
#else
    if (!ok) std::abort();  // not a constant expression: still a compile-time error in std::format
#endif
    return it;
  }

  /// Writes the text of `t` under the parsed spec.
  template <class FormatContext>
  auto format(const strided::Tensor<T>& t, FormatContext& ctx) const -> decltype(ctx.out()) {
    return spec_.write(t, ctx.out());
  }

 private:
  strided::detail::TextSpec spec_;
};
#endif
