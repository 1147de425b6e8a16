// Debug: the structure of a tensor and a bounded preview of its values, in the style of Rust's
// debug_struct. Every list (shape, strides, data) stops after 16 entries, so the text stays short
// whatever the rank or the element count.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include "strided/detail/format_display.hpp"
#include "strided/detail/format_number.hpp"
#include "strided/detail/walk.hpp"
#include "strided/layout.hpp"

namespace strided::detail {

inline constexpr std::size_t debug_preview_len = 16;

/// One element in its shortest round-trip form (bool as Rust's `true`/`false`).
template <Printable T>
void append_debug_value(std::string& out, const T& v) {
  if constexpr (std::same_as<T, bool>)
    out += v ? "true" : "false";
  else if constexpr (std::integral<T>)
    append_integer(out, v);
  else if constexpr (std::floating_point<T>)
    append_shortest(out, v);
  else if constexpr (std::same_as<T, f16> || std::same_as<T, bf16>)
    append_shortest_half(out, v);
  else if constexpr (TextElement<T>)
    out += ElementText<T>::text(v);
  else
    append_shortest(out, static_cast<float>(element_traits<T>::to_f32(v)));
}

/// `[a, b, ...]`: at most debug_preview_len entries, then `...` when there are more.
template <class I>
void append_preview(std::string& out, std::span<const I> values) {
  append_list(out, values, {.limit = debug_preview_len});
}

/// `Tensor { shape: [...], strides: [...], offset: N, storage_len: N, data: [...] }`; with
/// `pretty`, one field per line, indented by four spaces, each followed by a comma.
template <Printable T>
std::string format_debug(const T* data, std::size_t storage_len, const Layout& layout,
                         bool pretty) {
  std::string out = "Tensor {";
  bool first = true;
  auto field = [&](const char* name) {
    if (pretty)
      out += first ? "\n    " : ",\n    ";
    else
      out += first ? " " : ", ";
    first = false;
    out += name;
    out += ": ";
  };
  field("shape");
  append_preview(out, layout.shape().span());
  field("strides");
  append_preview(out, layout.strides().span());
  field("offset");
  append_integer(out, layout.offset());
  field("storage_len");
  append_integer(out, storage_len);
  field("data");
  StridedWalk<1> walk(layout.shape().span(), {layout.strides().span()},
                      {static_cast<std::ptrdiff_t>(layout.offset())});
  auto value = [&](std::string& text, std::size_t) {  // called in order: a walk step each
    append_debug_value(text, data[walk.offset(0)]);
    walk.next();
  };
  append_list_of(out, layout.numel(), value, {.limit = debug_preview_len});
  out += pretty ? ",\n}" : " }";
  return out;
}

}  // namespace strided::detail
