// MessageText: the one appender every error message is written with, and what
// shape_errors::describe(m, details) appends a ShapeError's text to.
//
// A message is built only when an error is shown, yet every translation unit that can fail
// compiles its text. Written as chains of std::string operator+, each message inlined into
// kilobytes of string code, and ShapeError::message() alone was a large share of a small program's
// compile. The appenders here are kept out of line, so a message is a short row of calls.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "strided/shape.hpp"

namespace strided {

/// The text of an error message being built: `describe(m, details)` of strided::shape_errors
/// appends a ShapeError's description to it, `std::move(m).take()` returns the text.
class MessageText {
 public:
  /// Starts empty (a description, which its caller prefixes).
  MessageText() = default;
  /// Starts "op: ".
  [[gnu::noinline]] explicit MessageText(std::string_view op) {
    text_ += op;
    text_ += ": ";
  }

  /// Appends `piece`.
  [[gnu::noinline]] MessageText& operator<<(std::string_view piece) {
    text_ += piece;
    return *this;
  }
  /// Appends `value` in decimal.
  [[gnu::noinline]] MessageText& operator<<(std::size_t value) {
    text_ += std::to_string(value);
    return *this;
  }
  /// A list of sizes, `[2, 3]`.
  [[gnu::noinline]] MessageText& dims(std::span<const std::size_t> values) {
    detail::append_list(text_, values);
    return *this;
  }
  /// A shape as the caller of reshape/unflatten wrote it: SIZE_MAX is strided::infer there.
  [[gnu::noinline]] MessageText& dims_with_infer(std::span<const std::size_t> values) {
    detail::append_list(text_, values, {.max_value_text = "infer"});
    return *this;
  }
  /// Appends a signed `value` in decimal (`-1`).
  [[gnu::noinline]] MessageText& signed_value(std::ptrdiff_t value) {
    text_ += std::to_string(value);
    return *this;
  }

  /// The text written so far.
  std::string take() && { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace strided
