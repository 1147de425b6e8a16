// The naive reference the copy engine's tests compare against: one byte at a time, recursing
// over the axes in order, with no planning, no merging and no kernels.
#pragma once

#include <cstddef>

#include "strided/detail/copy/args.hpp"

namespace strided_test {

inline void reference_copy(const strided::detail::CopyArgs& a, std::size_t axis, const std::byte* s,
                           std::byte* d) {
  if (axis == a.shape.size()) {
    for (std::size_t b = 0; b < a.elem_size; ++b) d[b] = s[b];
    return;
  }
  const auto es = static_cast<std::ptrdiff_t>(a.elem_size);
  for (std::size_t i = 0; i < a.shape[axis]; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    reference_copy(a, axis + 1, s + k * a.src_strides[axis] * es, d + k * a.dst_strides[axis] * es);
  }
}

}  // namespace strided_test
