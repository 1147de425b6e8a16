// Display and Debug of a Tensor: display, to_string, to_debug_string and operator<< (the engine
// is strided/detail/format.hpp, which never sees Tensor; fmt and std::format are in
// strided/format.hpp). strided/tensor.hpp includes this header; this one declares Tensor alone,
// since each function here reads a tensor only through members its template body names.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <ostream>
#include <string>
#include <string_view>

#include "strided/detail/format.hpp"
#include "strided/detail/format_element_text.hpp"
#include "strided/element.hpp"
#include "strided/print_options.hpp"

namespace strided {

template <Element T>
class Tensor;

/// An element type a Tensor can print (operator<<, to_string, display, fmt / std::format): an
/// integer or bool, a floating type (float, double, f16, bf16, a user type whose element_traits
/// give to_f32), or a user type with an `operator<<` on std::ostream or, where the standard
/// library has std::format, a std::formatter.
template <class T>
concept Printable = detail::Printable<T>;

/// PyTorch's str(t) under `options` (no global state), without the `, dtype=...` suffix.
template <Printable T>
std::string display(const Tensor<T>& t, const PrintOptions& options) {
  return detail::format_display(t.storage().get(), t.layout(), options);
}

/// PyTorch's str(t) without the dtype: `tensor([[1, 2], [3, 4]])`, `tensor(3)`,
/// `tensor([], shape=[2, 0])`.
template <Printable T>
std::string to_string(const Tensor<T>& t) {
  return display(t, PrintOptions{});
}

/// `Tensor { shape: [2, 3], strides: [3, 1], offset: 0, storage_len: 6, data: [1, 2, ...] }`,
/// each list cut after 16 entries; `pretty`: one field per line.
template <Printable T>
std::string to_debug_string(const Tensor<T>& t, bool pretty = false) {
  return detail::format_debug(t.storage().get(), t.storage_len(), t.layout(), pretty);
}

/// Writes to_string(t). The stream's flags, precision and fill are neither read nor changed
/// (a width set with std::setw pads the whole text, as for any string).
template <Printable T>
std::ostream& operator<<(std::ostream& os, const Tensor<T>& t) {
  return os << std::string_view(to_string(t));
}

}  // namespace strided
