// The batching engine (declared in detail/batch.hpp): the checks, the batch's shape and layout,
// and the copies of the parts into it, on untyped parts. Included by detail/batch.hpp in the
// header-only mode, compiled into libstrided (src/copy.cpp) in the compiled mode.
#pragma once

#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "strided/detail/batch.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/parallel/parallel_for.hpp"

namespace strided::detail {

/// `shape` with `size` inserted before position `axis` (axis <= shape.size()).
inline Shape shape_with_axis(const Shape& shape, std::size_t axis, std::size_t size) {
  Shape out = shape;
  out.insert(axis, size);
  return out;
}

STRIDED_FUNC Result<void, DataError> check_batch_axis(const BatchOp& op, std::size_t count,
                                                      const Shape& first) {
  if (op.mode == BatchMode::stack) {
    if (op.axis <= first.size()) return {};
    return DataError::from_shape(
        ShapeError::axis_out_of_range(op.name, op.axis, shape_with_axis(first, 0, count)));
  }
  if (op.axis < first.size()) return {};
  return DataError::from_shape(ShapeError::axis_out_of_range(op.name, op.axis, first));
}

STRIDED_FUNC Result<void, DataError> check_batch_sample(const BatchOp& op, std::size_t index,
                                                        const Shape& first, const Shape& actual) {
  if (op.mode == BatchMode::stack) {
    if (actual == first) return {};
    return DataError::sample_shape_mismatch(op.name, index, first, actual);
  }
  Shape expected = first;
  if (actual.size() == first.size()) {
    expected[op.axis] = actual[op.axis];
    if (actual == expected) return {};
  }
  return DataError::sample_shape_mismatch(op.name, index, std::move(expected), actual);
}

STRIDED_FUNC Result<Shape, DataError> batch_shape(const BatchOp& op,
                                                  std::span<const BatchPart> parts) {
  const Shape& first = parts[0].layout->shape();
  if (op.mode == BatchMode::stack) return shape_with_axis(first, op.axis, parts.size());
  std::size_t total = 0;
  for (const BatchPart& part : parts) {
    if (__builtin_add_overflow(total, part.layout->shape()[op.axis], &total))
      return DataError::from_shape(ShapeError::size_overflow(op.name, first));
  }
  Shape out = first;
  out[op.axis] = total;
  return out;
}

STRIDED_FUNC Result<Layout, DataError> batch_layout(const BatchOp& op,
                                                    std::span<const BatchPart> parts) {
  auto shape = batch_shape(op, parts);
  if (!shape) return std::move(shape).error();
  auto layout = Layout::contiguous(*shape);
  if (!layout) return DataError::from_shape(layout.error().in(op.name));
  return std::move(*layout);
}

/// Copies one part to `dst`, whose strides (in elements) are `dst_strides`.
inline void copy_part(const BatchPart& part, std::byte* dst, const Strides& dst_strides,
                      std::size_t elem_size) {
  if (part.first == nullptr) return;  // empty
  const Layout& from = *part.layout;
  copy_strided({.shape = from.shape(),
                .src = part.first,
                .src_strides = from.strides(),
                .dst = dst,
                .dst_strides = dst_strides,
                .elem_size = elem_size});
}

/// Where each part starts along the batched axis, in elements of that axis: 1 per sample for
/// stack, the part's extent for concat.
inline std::vector<std::ptrdiff_t> part_starts(const BatchOp& op,
                                               std::span<const BatchPart> parts) {
  std::vector<std::ptrdiff_t> starts(parts.size());
  std::ptrdiff_t at = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    starts[i] = at;
    at += op.mode == BatchMode::stack
              ? 1
              : static_cast<std::ptrdiff_t>(parts[i].layout->shape()[op.axis]);
  }
  return starts;
}

STRIDED_FUNC void fill_batch(const BatchOp& op, std::span<const BatchPart> parts,
                             const Layout& layout, std::byte* out, std::size_t elem_size) {
  if (layout.empty()) return;
  const std::ptrdiff_t step = layout.strides()[op.axis] * static_cast<std::ptrdiff_t>(elem_size);
  Strides dst_strides = layout.strides();
  if (op.mode == BatchMode::stack) dst_strides.erase(op.axis);
  const std::vector<std::ptrdiff_t> starts = part_starts(op, parts);
  const std::size_t chunks = chunk_count(layout.numel() * elem_size);
  const std::size_t count = parts.size();
  if (op.axis == 0 && chunks > 1 && count >= chunks) {
    // Samples joined along axis 0 fill disjoint, consecutive ranges: groups go to the threads.
    parallel_for(chunks, [&](std::size_t c) {
      const std::size_t last = split_point(count, chunks, c + 1);
      for (std::size_t i = split_point(count, chunks, c); i < last; ++i)
        copy_part(parts[i], out + starts[i] * step, dst_strides, elem_size);
    });
    return;
  }
  for (std::size_t i = 0; i < count; ++i)
    copy_part(parts[i], out + starts[i] * step, dst_strides, elem_size);
}

}  // namespace strided::detail
