// The text of user element types that carry their own way of being written: `operator<<` on a
// std::ostream, or (where the standard library has <format>) a std::formatter. Display and Debug
// then print them like integers: each element's own text, right-aligned to the widest.
#pragma once

#include <concepts>
#include <ostream>
#include <streambuf>
#include <string>
#include <version>

#if defined(__cpp_lib_format)
#include <format>
#endif

#include "strided/detail/format_display.hpp"

namespace strided::detail {

/// A std::streambuf that appends to a string: an ostream over it writes one element's text
/// without <sstream>.
class StringSink final : public std::streambuf {
 public:
  explicit StringSink(std::string& out) noexcept : out_(out) {}

 protected:
  int_type overflow(int_type ch) override {
    if (!traits_type::eq_int_type(ch, traits_type::eof())) out_ += traits_type::to_char_type(ch);
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    out_.append(s, static_cast<std::size_t>(n));
    return n;
  }

 private:
  std::string& out_;
};

template <class T>
concept OstreamWritable = requires(std::ostream& os, const T& v) {
  { os << v } -> std::convertible_to<std::ostream&>;
};

#if defined(__cpp_lib_format)
template <class T>
concept StdFormattable = std::default_initializable<std::formatter<T, char>> &&
    requires(const T& v) {
  std::format("{}", v);
};
#else
template <class T>
concept StdFormattable = false;
#endif

/// operator<< wins when a type has both: it is what `std::cout << x` shows for one element.
template <class T>
requires(!std::integral<T> && !DisplayFloat<T> &&
         (OstreamWritable<T> || StdFormattable<T>)) struct ElementText<T> {
  static std::string text(const T& v) {
    std::string out;
    if constexpr (OstreamWritable<T>) {
      StringSink sink(out);
      std::ostream os(&sink);
      os << v;
    } else {
#if defined(__cpp_lib_format)
      out = std::format("{}", v);
#endif
    }
    return out;
  }
};

}  // namespace strided::detail
