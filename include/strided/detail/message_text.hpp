// MessageText: the one appender every error message is written with.
//
// A message is built only when an error is shown, yet every translation unit that can fail
// compiles its text. Written as chains of std::string operator+, each message inlined into
// kilobytes of string code, and ShapeError::message() alone was a large share of a small program's
// compile. The appenders here are kept out of line, so a message is a short row of calls.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "strided/shape.hpp"

namespace strided::detail {

class MessageText {
 public:
  /// Starts empty (a description, which its caller prefixes).
  MessageText() = default;
  /// Starts "op: ".
  [[gnu::noinline]] explicit MessageText(std::string_view op) {
    text_ += op;
    text_ += ": ";
  }

  [[gnu::noinline]] MessageText& operator<<(std::string_view piece) {
    text_ += piece;
    return *this;
  }
  [[gnu::noinline]] MessageText& operator<<(std::size_t value) {
    text_ += std::to_string(value);
    return *this;
  }
  /// A list of sizes, `[2, 3]`.
  [[gnu::noinline]] MessageText& dims(std::span<const std::size_t> values) {
    append_list(text_, values);
    return *this;
  }
  /// A shape as the caller of reshape/unflatten wrote it: SIZE_MAX is strided::infer there.
  [[gnu::noinline]] MessageText& dims_with_infer(std::span<const std::size_t> values) {
    append_list(text_, values, {.max_value_text = "infer"});
    return *this;
  }
  [[gnu::noinline]] MessageText& signed_value(std::ptrdiff_t value) {
    text_ += std::to_string(value);
    return *this;
  }

  std::string take() && { return std::move(text_); }

 private:
  std::string text_;
};

}  // namespace strided::detail
