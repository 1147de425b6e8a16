// The reductions' front end: the axes a user names checked and turned into a mask, the result's
// shape, the empty-axis error, the caller's buffer checked, then the engine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/reduce-inl.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

namespace strided::detail::reduce {

/// The mask of the axes in `axes` (nullptr: every axis), each < rank and named once.
inline Result<std::uint64_t> axes_mask(const char* op, const Shape& shape, const Shape* axes) {
  const std::size_t rank = shape.size();
  if (axes == nullptr) return rank == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rank) - 1;
  std::uint64_t mask = 0;
  for (const std::size_t axis : *axes) {
    if (axis >= rank) return ShapeError::axis_out_of_range(op, axis, shape);
    const std::uint64_t bit = std::uint64_t{1} << axis;
    if ((mask & bit) != 0) return ShapeError::duplicate_axis(op, axis, *axes);
    mask |= bit;
  }
  return mask;
}

/// The shape of the result: the kept axes, and the reduced ones as 1 with keepdim.
inline Shape reduced_shape(const Shape& shape, std::uint64_t mask, bool keepdim) {
  Shape out;
  for (std::size_t k = 0; k != shape.size(); ++k) {
    if ((mask >> k & 1) == 0)
      out.push_back(shape[k]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

/// min / max / argmin / argmax have no identity: a reduced axis of size 0 is an error.
inline Result<void> check_nonempty(const char* op, const Shape& shape, std::uint64_t mask) {
  for (std::size_t k = 0; k != shape.size(); ++k)
    if ((mask >> k & 1) != 0 && shape[k] == 0)
      return ShapeError::invalid_axis_argument(op, k, shape,
                                               "cannot reduce an empty axis: the operation has "
                                               "no identity");
  return {};
}

/// The checks shared by both forms: the mask, or the first error.
inline Result<std::uint64_t> checked_mask(const char* op, const Shape& shape, const Shape* axes,
                                          bool nonempty) {
  auto mask = axes_mask(op, shape, axes);
  if (mask && nonempty)
    if (auto ok = check_nonempty(op, shape, *mask); !ok) return std::move(ok).error();
  return mask;
}

/// The *_into form: every check before the first write; allocates nothing.
template <class Op, class T, class R>
Result<void> run_into(const char* op_name, const Op& op, const Tensor<T>& t, const Shape* axes,
                      bool ordered, bool nonempty, std::span<R> out) {
  return guard_allocations(op_name, [&]() -> Result<void> {
    auto mask = checked_mask(op_name, t.shape(), axes, nonempty);
    if (!mask) return std::move(mask).error();
    std::size_t outputs = 1;
    for (std::size_t k = 0; k != t.rank(); ++k)
      if ((*mask >> k & 1) == 0) outputs *= t.shape()[k];
    if (out.size() != outputs)
      return ShapeError::element_count_mismatch(op_name, out.size(),
                                                reduced_shape(t.shape(), *mask, false));
    if (extents_overlap(byte_extent(t.storage().get(), t.layout(), sizeof(T)), span_extent(out)))
      return ShapeError::memory_overlap(op_name);
    reduce_into(op, t.storage().get(), t.layout(), *mask, ordered, out, false);
    return {};
  });
}

/// The form that returns a new tensor of the result's shape.
template <class R, class Op, class T>
Result<Tensor<R>> run(const char* op_name, const Op& op, const Tensor<T>& t, const Shape* axes,
                      bool keepdim, bool ordered, bool nonempty) {
  return guard_allocations(op_name, [&]() -> Result<Tensor<R>> {
    auto mask = checked_mask(op_name, t.shape(), axes, nonempty);
    if (!mask) return std::move(mask).error();
    auto layout = Layout::contiguous(reduced_shape(t.shape(), *mask, keepdim));
    if (!layout) return std::move(layout).error();
    const std::size_t n = layout->numel();
    auto buffer = try_allocate_buffer<R>(n);
    if (buffer == nullptr) return ShapeError::allocation_failed(op_name, n);
    reduce_into(op, t.storage().get(), t.layout(), *mask, ordered, std::span<R>(buffer.get(), n),
                true);
    return Tensor<R>::from_shared(std::move(buffer), n, std::move(*layout));
  });
}

}  // namespace strided::detail::reduce
