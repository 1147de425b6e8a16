// The tensor-level engine of batching: checks for one member ("leaf") of a sample structure, and
// the build of one batched tensor from n tensors. strided/batch.hpp walks pair / tuple / user
// sample structures and calls these once per leaf.
#pragma once

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "strided/detail/buffer.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"
#include "strided/tensor.hpp"

namespace strided::detail {

/// stack: a new axis of extent n is inserted; concat: an existing axis is joined.
enum class BatchMode { stack, concat };

/// One batching call: the public name it reports errors under, what it does, along which axis.
struct BatchOp {
  const char* name;
  BatchMode mode;
  std::size_t axis;
};

/// `shape` with `size` inserted before position `axis` (axis <= shape.size()).
inline Shape shape_with_axis(const Shape& shape, std::size_t axis, std::size_t size) {
  Shape out = shape;
  out.insert(axis, size);
  return out;
}

/// The axis check of one leaf of the first sample. stack inserts an axis, so it accepts
/// axis <= rank and reports the rank and shape of the result (as NumPy does); concat needs
/// axis < rank, so concatenating rank-0 tensors is axis_out_of_range as well.
inline Result<void, DataError> check_batch_axis(const BatchOp& op, std::size_t count,
                                                const Shape& first) {
  if (op.mode == BatchMode::stack) {
    if (op.axis <= first.size()) return {};
    return DataError::from_shape(
        ShapeError::axis_out_of_range(op.name, op.axis, shape_with_axis(first, 0, count)));
  }
  if (op.axis < first.size()) return {};
  return DataError::from_shape(ShapeError::axis_out_of_range(op.name, op.axis, first));
}

/// The shape check of one leaf of sample `index` against the same leaf of sample 0. stack needs
/// equal shapes; concat equal ranks and equal extents off the joined axis. The concat error's
/// expected() is the first part's shape with the joined extent of the offending part, so that it
/// names exactly the shape that part should have had.
inline Result<void, DataError> check_batch_sample(const BatchOp& op, std::size_t index,
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

/// The shape of the batched leaf: checked sum of the joined extents for concat.
template <Element T, class Get>
Result<Shape, DataError> batch_shape(const BatchOp& op, std::size_t count, Get& get) {
  const Shape& first = get(std::size_t{0}).shape();
  if (op.mode == BatchMode::stack) return shape_with_axis(first, op.axis, count);
  std::size_t total = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (__builtin_add_overflow(total, get(i).shape()[op.axis], &total))
      return DataError::from_shape(ShapeError::size_overflow(op.name, first));
  }
  Shape out = first;
  out[op.axis] = total;
  return out;
}

template <Element T>
void copy_into_batch(const Tensor<T>& sample, T* dst, const Strides& dst_strides) {
  if (sample.empty()) return;  // its offset may lie past its buffer: never form the pointer
  copy_strided({.shape = sample.shape(),
                .src = reinterpret_cast<const std::byte*>(sample.storage().get() + sample.offset()),
                .src_strides = sample.strides(),
                .dst = reinterpret_cast<std::byte*>(dst),
                .dst_strides = dst_strides,
                .elem_size = sizeof(T)});
}

/// The row-major layout of the batch of get(0) ... get(count - 1), whose axis and shapes have
/// been checked (check_batch_axis, check_batch_sample): size_overflow or rank_too_large otherwise.
template <Element T, class Get>
Result<Layout, DataError> batch_layout(const BatchOp& op, std::size_t count, Get& get) {
  auto shape = batch_shape<T>(op, count, get);
  if (!shape) return std::move(shape).error();
  auto layout = Layout::contiguous(*shape);
  if (!layout) return DataError::from_shape(layout.error().in(op.name));
  return std::move(*layout);
}

/// Samples joined along axis 0 fill disjoint, consecutive ranges of the batch: groups of them go
/// to the pool's threads. The tensors and their places are gathered on the calling thread first,
/// so user sample_traits are never called from a worker.
template <Element T, class Get>
void fill_batch_by_samples(std::size_t count, Get& get, T* out, std::ptrdiff_t step,
                           const Strides& dst_strides, BatchMode mode, std::size_t chunks) {
  std::vector<std::pair<const Tensor<T>*, std::ptrdiff_t>> places(count);
  std::ptrdiff_t at = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Tensor<T>& sample = get(i);
    places[i] = {&sample, at};
    at += mode == BatchMode::stack ? 1 : static_cast<std::ptrdiff_t>(sample.shape()[0]);
  }
  parallel_for(chunks, [&](std::size_t c) {
    const std::size_t last = split_point(count, chunks, c + 1);
    for (std::size_t i = split_point(count, chunks, c); i < last; ++i)
      copy_into_batch(*places[i].first, out + places[i].second * step, dst_strides);
  });
}

/// Copies get(0) ... get(count - 1) into `out`, a buffer of `layout` (from batch_layout). Each one
/// goes straight into its place through the copy engine: for stack, into the slice at index i of
/// the new axis (the result's strides without that axis); for concat, into the run of the joined
/// axis that starts after the extents before it. Contiguous samples stacked or joined along
/// axis 0 are one memcpy each. A large batch along axis 0 with at least as many samples as chunks
/// is split across samples; otherwise each copy is split by the copy engine itself.
template <Element T, class Get>
void fill_batch(const BatchOp& op, std::size_t count, Get& get, const Layout& layout, T* out) {
  if (layout.empty()) return;
  const Strides& out_strides = layout.strides();
  const std::ptrdiff_t step = out_strides[op.axis];
  Strides dst_strides = out_strides;
  if (op.mode == BatchMode::stack) dst_strides.erase(op.axis);
  const std::size_t chunks = chunk_count(layout.numel() * sizeof(T));
  if (op.axis == 0 && chunks > 1 && count >= chunks)
    return fill_batch_by_samples(count, get, out, step, dst_strides, op.mode, chunks);
  std::ptrdiff_t at = 0;  // index along the batched axis where the next sample starts
  for (std::size_t i = 0; i < count; ++i) {
    const Tensor<T>& sample = get(i);
    copy_into_batch(sample, out + at * step, dst_strides);
    at += op.mode == BatchMode::stack ? 1 : static_cast<std::ptrdiff_t>(sample.shape()[op.axis]);
  }
}

/// Builds one batched tensor: its layout, a fresh buffer (allocation_failed when there is none),
/// then fill_batch.
template <Element T, class Get>
Result<Tensor<T>, DataError> build_batch_leaf(const BatchOp& op, std::size_t count, Get&& get) {
  auto layout = batch_layout<T>(op, count, get);
  if (!layout) return std::move(layout).error();
  const std::size_t numel = layout->numel();
  std::shared_ptr<T> buffer = try_allocate_buffer<T>(numel);
  if (buffer == nullptr)
    return DataError::from_shape(ShapeError::allocation_failed(op.name, numel));
  fill_batch(op, count, get, *layout, buffer.get());
  auto made = Tensor<T>::from_shared(std::move(buffer), numel, std::move(*layout));
  if (!made) return DataError::from_shape(made.error().in(op.name));
  return std::move(*made);
}

}  // namespace strided::detail
