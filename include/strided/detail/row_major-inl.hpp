// The definitions of detail/row_major.hpp: included by it in the header-only mode, compiled into
// libstrided (src/tensor.cpp) in the compiled mode.
#pragma once

#include <cstddef>
#include <utility>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/layout_math.hpp"
#include "strided/detail/row_major.hpp"
#include "strided/layout.hpp"
#include "strided/shape_error.hpp"

namespace strided::detail {

STRIDED_FUNC Result<Layout> row_major_layout(const Shape& shape) {
  return Layout::contiguous(shape);
}

STRIDED_FUNC Result<Layout> row_major_layout_for(const char* op, const Shape& shape,
                                                 std::size_t len) {
  return guard_allocations(op, [&]() -> Result<Layout> {
    auto layout = Layout::contiguous(shape);
    if (!layout) return std::move(layout).error();
    if (layout->numel() != len) return ShapeError::element_count_mismatch(op, len, shape);
    return layout;
  });
}

STRIDED_FUNC Result<void> check_buffer(const char* op, bool is_null, std::size_t len,
                                       const Layout& layout) {
  // No guard of its own: check_storage guards and labels its work, and this error allocates
  // nothing.
  if (is_null && len != 0)
    return ShapeError::invalid_argument(op, "null buffer with a non-zero length");
  return layout.check_storage(len, op);
}

STRIDED_FUNC void copy_row_major(const std::byte* base, const Layout& layout, std::byte* dst,
                                 std::size_t elem_size) {
  if (layout.empty()) return;
  const Strides dst_strides = *row_major_strides(layout.shape());
  const auto offset = static_cast<std::ptrdiff_t>(layout.offset() * elem_size);
  copy_strided({.shape = layout.shape(),
                .src = base + offset,
                .src_strides = layout.strides(),
                .dst = dst,
                .dst_strides = dst_strides,
                .elem_size = elem_size});
}

}  // namespace strided::detail
