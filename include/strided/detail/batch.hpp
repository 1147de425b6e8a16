// The tensor-level engine of batching: checks for one member ("leaf") of a sample structure, and
// the build of one batched tensor from n tensors. strided/batch.hpp walks pair / tuple / user
// sample structures and calls these once per leaf. The engine (batch_shape, batch_layout,
// fill_batch) works on untyped parts and is defined in batch-inl.hpp (libstrided in the compiled
// mode).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
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

/// The axis check of one leaf of the first sample. stack inserts an axis, so it accepts
/// axis <= rank and reports the rank and shape of the result (as NumPy does); concat needs
/// axis < rank, so concatenating rank-0 tensors is axis_out_of_range as well.
STRIDED_FUNC Result<void, DataError> check_batch_axis(const BatchOp& op, std::size_t count,
                                                      const Shape& first);

/// The shape check of one leaf of sample `index` against the same leaf of sample 0. stack needs
/// equal shapes; concat equal ranks and equal extents off the joined axis. The concat error's
/// expected() is the first part's shape with the joined extent of the offending part, so that it
/// names exactly the shape that part should have had.
STRIDED_FUNC Result<void, DataError> check_batch_sample(const BatchOp& op, std::size_t index,
                                                        const Shape& first, const Shape& actual);

/// One tensor of a batch, untyped: its first element (null when it is empty: an empty view's
/// offset may lie past its buffer) and its layout. The engine below sees only these, so that it
/// is compiled once rather than for every element type and sample structure.
struct BatchPart {
  const std::byte* first = nullptr;
  const Layout* layout = nullptr;
};

/// The parts of get(0) ... get(count - 1), each a const Tensor<T>& that outlives them.
template <Element T, class Get>
std::vector<BatchPart> batch_parts(std::size_t count, Get& get) {
  std::vector<BatchPart> parts(count);
  for (std::size_t i = 0; i < count; ++i) {
    const Tensor<T>& t = get(i);
    const T* first = t.empty() ? nullptr : t.storage().get() + t.offset();
    parts[i] = {reinterpret_cast<const std::byte*>(first), &t.layout()};
  }
  return parts;
}

/// The shape of the batch of `parts`, whose axis and shapes have been checked (check_batch_axis,
/// check_batch_sample): the checked sum of the joined extents for concat (size_overflow).
STRIDED_FUNC Result<Shape, DataError> batch_shape(const BatchOp& op,
                                                  std::span<const BatchPart> parts);

/// The row-major layout of that batch: size_overflow or rank_too_large otherwise.
STRIDED_FUNC Result<Layout, DataError> batch_layout(const BatchOp& op,
                                                    std::span<const BatchPart> parts);

/// Copies `parts` into `out`, a buffer of `layout` (from batch_layout) of `elem_size`-byte
/// elements. Each one goes straight into its place through the copy engine: for stack, into the
/// slice at index i of the new axis (the result's strides without that axis); for concat, into
/// the run of the joined axis that starts after the extents before it. Contiguous samples
/// stacked or joined along axis 0 are one memcpy each. A large batch along axis 0 with at least
/// as many samples as chunks is split across samples; otherwise each copy is split by the copy
/// engine itself.
STRIDED_FUNC void fill_batch(const BatchOp& op, std::span<const BatchPart> parts,
                             const Layout& layout, std::byte* out, std::size_t elem_size);

/// Builds one batched tensor: its layout, a fresh buffer (allocation_failed when there is none),
/// then fill_batch.
template <Element T, class Get>
Result<Tensor<T>, DataError> build_batch_leaf(const BatchOp& op, std::size_t count, Get&& get) {
  const std::vector<BatchPart> parts = batch_parts<T>(count, get);
  auto layout = batch_layout(op, parts);
  if (!layout) return std::move(layout).error();
  const std::size_t numel = layout->numel();
  std::shared_ptr<T> buffer = try_allocate_buffer<T>(numel);
  if (buffer == nullptr)
    return DataError::from_shape(ShapeError::allocation_failed(op.name, numel));
  fill_batch(op, parts, *layout, reinterpret_cast<std::byte*>(buffer.get()), sizeof(T));
  auto made = Tensor<T>::from_shared(std::move(buffer), numel, std::move(*layout));
  if (!made) return DataError::from_shape(made.error().in(op.name));
  return std::move(*made);
}

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/batch-inl.hpp"
#endif
