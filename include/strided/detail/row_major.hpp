// What Tensor's factories and materialisations do that does not depend on the element type: the
// row-major layout of a shape (with or without a length to match), a buffer's fit under a layout,
// and the row-major copy of a view. Written once for every element type, and in the compiled mode
// out of the user's translation units (libstrided, src/tensor.cpp): these run where a buffer is
// allocated or copied, beside which a call costs nothing, while the view ops keep Layout's inline
// constexpr algebra.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>

#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided::detail {

/// Layout::contiguous(shape): rank_too_large or size_overflow for a shape no layout can hold.
STRIDED_FUNC Result<Layout> row_major_layout(const Shape& shape);

/// The row-major layout of `shape` over exactly `len` elements: row_major_layout's errors, or
/// element_count_mismatch when the shape holds another count; every error is reported as `op`'s.
STRIDED_FUNC Result<Layout> row_major_layout_for(const char* op, const Shape& shape,
                                                 std::size_t len);

/// The checks of a buffer of `len` elements seen through `layout`, as `op`: invalid_argument for a
/// null buffer (`is_null`) that claims elements, storage_out_of_bounds when an element lies
/// outside the buffer.
STRIDED_FUNC Result<void> check_buffer(const char* op, bool is_null, std::size_t len,
                                       const Layout& layout);

/// Copies the elements of `layout` over `base` (element [0, ..., 0] at base + offset) to `dst`
/// in row-major order, `elem_size` bytes each: the copy engine, on the pool for large copies.
STRIDED_FUNC void copy_row_major(const std::byte* base, const Layout& layout, std::byte* dst,
                                 std::size_t elem_size);

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/row_major-inl.hpp"
#endif
