// Gather along an axis: the slices of a tensor at a list of indices, in one pass, into a fresh
// tensor or a caller's buffer (PyTorch's index_select, NumPy's take(axis=)); and gather_batch, a
// data loader's batch made from a dataset tensor [N, ...] and a list of sample indices.
// docs/operations.md has the rules beside NumPy's and PyTorch's.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "strided/data_error.hpp"
#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/gather.hpp"
#include "strided/detail/row_major.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

namespace strided {

namespace detail {

/// The checks of every gather, before anything is written: `axis` names an axis and each index
/// lies inside it. Returns the output's row-major layout.
template <Element T>
Result<Layout> gather_layout(const char* op, const Tensor<T>& t, std::size_t axis,
                             std::span<const std::int64_t> indices) {
  if (axis >= t.rank()) return ShapeError::axis_out_of_range(op, axis, t.shape());
  const std::size_t size = t.shape()[axis];
  for (const std::int64_t i : indices)
    if (i < 0 || static_cast<std::uint64_t>(i) >= size)
      return ShapeError::index_out_of_range(op, axis, static_cast<std::size_t>(i), t.shape());
  Shape shape = t.shape();
  shape[axis] = indices.size();
  return detail::row_major_layout(shape);
}

template <Element T>
void run_gather(const Tensor<T>& t, std::size_t axis, std::span<const std::int64_t> indices,
                const Layout& out, T* dst) {
  if (out.empty()) return;  // t's offset may lie past its buffer: never form the pointer
  gather_strided({.shape = t.shape(),
                  .src = reinterpret_cast<const std::byte*>(t.storage().get() + t.offset()),
                  .src_strides = t.strides(),
                  .axis = axis,
                  .indices = indices,
                  .dst = reinterpret_cast<std::byte*>(dst),
                  .elem_size = sizeof(T)});
}

/// The elements of a rank-1 index tensor, borrowed when it is contiguous.
inline Result<HostSlice<std::int64_t>> index_values(const char* op,
                                                    const Tensor<std::int64_t>& indices) {
  if (indices.rank() != 1) return ShapeError::rank_required(op, indices.rank(), 1);
  return indices.host_slice();
}

}  // namespace detail

/// @name Gather along an axis
/// NumPy `np.take(t, indices, axis=axis)`, PyTorch `torch.index_select(t, axis, indices)`: the
/// result has t's shape with extent indices.size() at `axis`, and its slice j along `axis` is t's
/// slice indices[j]. Indices come in any order and may repeat; an index must lie in
/// [0, t.shape()[axis]): like PyTorch's index_select (and unlike NumPy's take, which wraps), a
/// negative index is an error, as everywhere in strided. Any view is accepted (negative and zero
/// strides included). Errors: axis_out_of_range, index_out_of_range (the first bad index, with
/// the axis and its size), rank_mismatch for an index tensor of rank other than 1, size_overflow,
/// allocation_failed. Above the parallel threshold the copy uses every thread, with the same
/// result for any thread count.
///@{

/// Into a new row-major tensor.
template <Element T>
Result<Tensor<T>> index_select(const Tensor<T>& t, std::size_t axis,
                               std::span<const std::int64_t> indices) {
  return detail::guard_allocations("index_select", [&]() -> Result<Tensor<T>> {
    auto layout = detail::gather_layout("index_select", t, axis, indices);
    if (!layout) return std::move(layout).error();
    const std::size_t n = layout->numel();
    auto buffer = detail::try_allocate_buffer<T>(n);
    if (buffer == nullptr) return ShapeError::allocation_failed("index_select", n);
    detail::run_gather(t, axis, indices, *layout, buffer.get());
    return Tensor<T>::from_shared(std::move(buffer), n, std::move(*layout));
  });
}
/// The indices as a braced list: index_select(t, 0, {3, 1, 3}).
template <Element T>
Result<Tensor<T>> index_select(const Tensor<T>& t, std::size_t axis,
                               std::initializer_list<std::int64_t> indices) {
  return index_select(t, axis, std::span<const std::int64_t>(indices.begin(), indices.size()));
}
/// The indices as a rank-1 tensor of any layout.
template <Element T>
Result<Tensor<T>> index_select(const Tensor<T>& t, std::size_t axis,
                               const Tensor<std::int64_t>& indices) {
  return detail::guard_allocations("index_select", [&]() -> Result<Tensor<T>> {
    auto values = detail::index_values("index_select", indices);
    if (!values) return std::move(values).error();
    return index_select(t, axis, values->span());
  });
}

/// Into the caller's buffer `out` (row-major; its size must be the result's element count,
/// element_count_mismatch otherwise; memory_overlap when it overlaps t's memory or the indices).
/// Allocates nothing, and reports every error before writing.
template <Element T>
Result<void> index_select_into(const Tensor<T>& t, std::size_t axis,
                               std::span<const std::int64_t> indices, std::span<T> out) {
  return detail::guard_allocations("index_select_into", [&]() -> Result<void> {
    auto layout = detail::gather_layout("index_select_into", t, axis, indices);
    if (!layout) return std::move(layout).error();
    if (out.size() != layout->numel())
      return ShapeError::element_count_mismatch("index_select_into", out.size(), layout->shape());
    const auto into = detail::span_extent(out);
    if (detail::extents_overlap(detail::byte_extent(t.storage().get(), t.layout(), sizeof(T)),
                                into) ||
        detail::extents_overlap(detail::span_extent(indices), into))
      return ShapeError::memory_overlap("index_select_into");
    detail::run_gather(t, axis, indices, *layout, out.data());
    return {};
  });
}
/// The indices as a braced list: index_select_into(t, 0, {3, 1}, out).
template <Element T>
Result<void> index_select_into(const Tensor<T>& t, std::size_t axis,
                               std::initializer_list<std::int64_t> indices, std::span<T> out) {
  return index_select_into(t, axis, std::span<const std::int64_t>(indices.begin(), indices.size()),
                           out);
}
/// The indices as a rank-1 tensor of any layout (copied first when it is not contiguous).
template <Element T>
Result<void> index_select_into(const Tensor<T>& t, std::size_t axis,
                               const Tensor<std::int64_t>& indices, std::span<T> out) {
  return detail::guard_allocations("index_select_into", [&]() -> Result<void> {
    auto values = detail::index_values("index_select_into", indices);
    if (!values) return std::move(values).error();
    return index_select_into(t, axis, values->span(), out);
  });
}
///@}

namespace detail {

template <Element T>
Result<Tensor<T>, DataError> gather_member(const Tensor<T>& dataset,
                                           std::span<const std::int64_t> indices) {
  auto batch = index_select(dataset, 0, indices);
  if (!batch) return DataError::from_shape(std::move(batch).error().in("gather_batch"));
  return std::move(*batch);
}

// Each member of a tuple-like dataset gathered in order; the first error stops the rest.
template <class Batch, class... Members>
Result<Batch, DataError> gather_members(std::span<const std::int64_t> indices,
                                        const Members&... members) {
  std::optional<DataError> error;
  auto take = [&](const auto& m) {
    using Leaf = std::remove_cvref_t<decltype(m)>;
    if (error) return Leaf(m);
    auto r = gather_member(m, indices);
    if (!r) {
      error = std::move(r).error();
      return Leaf(m);
    }
    return Leaf(std::move(*r));
  };
  Batch batch{take(members)...};  // braces: left to right
  if (error) return std::move(*error);
  return batch;
}

}  // namespace detail

/// @name A batch from a dataset and sample indices
/// index_select(dataset, 0, indices) for a data loader: the samples `indices` of a dataset whose
/// axis 0 counts samples, in one pass. A std::pair or std::tuple of tensors (inputs, labels ...)
/// gathers each member with the same indices. Errors are DataError::shape wrapping the
/// ShapeError, reported as gather_batch's.
///@{

/// One tensor [N, ...] -> [indices.size(), ...].
template <Element T>
Result<Tensor<T>, DataError> gather_batch(const Tensor<T>& dataset,
                                          std::span<const std::int64_t> indices) {
  return detail::gather_member(dataset, indices);
}
/// A pair (inputs, labels) gathered member-wise.
template <Element A, Element B>
Result<std::pair<Tensor<A>, Tensor<B>>, DataError> gather_batch(
    const std::pair<Tensor<A>, Tensor<B>>& dataset, std::span<const std::int64_t> indices) {
  return detail::gather_members<std::pair<Tensor<A>, Tensor<B>>>(indices, dataset.first,
                                                                 dataset.second);
}
/// A tuple gathered member-wise.
template <Element... Ts>
Result<std::tuple<Tensor<Ts>...>, DataError> gather_batch(const std::tuple<Tensor<Ts>...>& dataset,
                                                          std::span<const std::int64_t> indices) {
  return std::apply(
      [&](const auto&... m) {
        return detail::gather_members<std::tuple<Tensor<Ts>...>>(indices, m...);
      },
      dataset);
}
///@}

}  // namespace strided
