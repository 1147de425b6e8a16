// Layout: shape + strides + offset, and all the view algebra on it. Every operation returns a new
// layout and touches no data, so each is constexpr and allocation-free up to rank 6.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/layout_math.hpp"
#include "strided/error.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

/// A reshape (or unflatten) size to infer from the element count; at most one per shape, e.g.
/// `reshape({2, strided::infer})`. (A size of SIZE_MAX cannot otherwise occur in a valid shape
/// with elements.)
inline constexpr std::size_t infer = static_cast<std::size_t>(-1);

namespace detail {

/// `shape` with its `infer` entry (if any) replaced by the size that makes the product `numel`.
/// A second `infer`, or other sizes multiplying to 0, is invalid_argument; a product that does
/// not divide `numel` is element_count_mismatch (reported with the shape as written).
constexpr Result<Shape> resolve_infer(const Shape& shape, std::size_t numel, const char* op) {
  std::size_t inferred = shape.size(), count = 0;
  bool zero = false;  // a zero size makes the product 0 whatever the order (no overflow)
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == infer) {
      inferred = k;
      ++count;
    }
    zero = zero || shape[k] == 0;
  }
  if (count > 1) return ShapeError::invalid_argument(op, "only one axis size can be inferred");
  if (count == 0) return shape;
  if (zero)
    return ShapeError::invalid_argument(op,
                                        "cannot infer an axis when the other sizes multiply to 0");
  std::size_t others = 1;
  for (std::size_t k = 0; k < shape.size(); ++k)
    if (k != inferred && __builtin_mul_overflow(others, shape[k], &others))
      return ShapeError::size_overflow(op, shape);
  if (numel % others != 0) return ShapeError::infer_mismatch(op, numel, others, shape);
  Shape out = shape;
  out[inferred] = numel / others;
  return out;
}

}  // namespace detail

/// An omitted slice bound (Python's `None`). As `stop`: past the last element in the step's
/// direction (the axis end for a positive step, before index 0 for a negative one). As `start`:
/// the first element in the step's direction (0, or the last index for a negative step).
inline constexpr std::ptrdiff_t end = std::numeric_limits<std::ptrdiff_t>::min();

namespace detail {

/// `source` copied straight into the Result that is returned and changed there by
/// change(layout_of(copy)), a Layout::*_in_place member whose error replaces the copy. Moving the
/// copy after the change would reload what was just stored, which cost more than the view op.
template <class T, class LayoutOf, class Change>
constexpr Result<T> changed_copy(const char* op, const T& source, LayoutOf&& layout_of,
                                 Change&& change) {
  return guard_allocations(op, [&]() -> Result<T> {
    Result<T> out(std::in_place, source);
    if (auto changed = change(layout_of(*out)); !changed) out = std::move(changed).error();
    return out;
  });
}

}  // namespace detail

/// Where each element of an n-dimensional array lives in a flat buffer: element `i` is at
/// `offset + sum(i[k] * strides[k])`. Strides count elements and are signed (0 = broadcast).
///
/// Invariants, checked when a layout is built: rank <= max_rank, the element count fits
/// std::size_t, and every index the layout reaches fits std::ptrdiff_t.
class Layout {
 public:
  /// The layout of a scalar: rank 0, one element at offset 0.
  constexpr Layout() = default;

  /// Row-major layout of `shape` starting at `offset`.
  static constexpr Result<Layout> contiguous(const Shape& shape, std::size_t offset = 0) {
    return detail::guard_allocations("contiguous", [&]() -> Result<Layout> {
      if (shape.size() > max_rank) return ShapeError::rank_too_large("contiguous", shape.size());
      const auto n = detail::checked_numel(shape);
      auto strides = detail::row_major_strides(shape);
      if (!n || !strides || *n > static_cast<std::size_t>(detail::max_index) ||
          offset > static_cast<std::size_t>(detail::max_index) - (*n == 0 ? 0 : *n - 1))
        return ShapeError::size_overflow("contiguous", shape);
      return Layout(shape, std::move(*strides), offset);
    });
  }

  /// Any layout, checked for rank, overflow and matching lengths (not against a buffer: that is
  /// Tensor's job, see Tensor::from_shared and Tensor::as_strided).
  static constexpr Result<Layout> from_parts(Shape shape, Strides strides, std::size_t offset,
                                             const char* op = "layout") {
    return detail::guard_allocations(op, [&]() -> Result<Layout> {
      if (shape.size() > max_rank) return ShapeError::rank_too_large(op, shape.size());
      if (strides.size() != shape.size())
        return ShapeError::rank_mismatch(op, shape.size(), strides.size());
      const auto n = detail::checked_numel(shape);
      const auto reach = detail::checked_reach(shape, strides);
      if (!n || !reach || offset > static_cast<std::size_t>(detail::max_index) ||
          static_cast<std::ptrdiff_t>(offset) > detail::max_index - reach->high)
        return ShapeError::size_overflow(op, shape);
      return Layout(std::move(shape), std::move(strides), offset);
    });
  }

  /// Size of each axis.
  constexpr const Shape& shape() const noexcept { return shape_; }
  /// Step in elements along each axis (signed).
  constexpr const Strides& strides() const noexcept { return strides_; }
  /// Storage index of element [0, ..., 0].
  constexpr std::size_t offset() const noexcept { return offset_; }
  /// Number of axes.
  constexpr std::size_t rank() const noexcept { return shape_.size(); }
  /// Number of elements (the invariant guarantees it fits).
  constexpr std::size_t numel() const noexcept { return detail::checked_numel(shape_).value_or(0); }
  /// True when some axis has size 0 (no elements).
  constexpr bool empty() const noexcept {
    for (std::size_t size : shape_)
      if (size == 0) return true;
    return false;
  }

  /// Row-major contiguity, ignoring the strides of size-1 axes (PyTorch's rule). A layout with no
  /// elements is contiguous.
  constexpr bool is_contiguous() const noexcept {
    if (empty()) return true;
    std::ptrdiff_t expected = 1;
    for (std::size_t k = rank(); k-- > 0;) {
      if (shape_[k] == 1) continue;
      if (strides_[k] != expected) return false;
      expected *= static_cast<std::ptrdiff_t>(shape_[k]);
    }
    return true;
  }

  /// Lowest and highest storage index reached, relative to offset() (0, 0 when empty).
  constexpr detail::Reach reach() const noexcept {
    return detail::checked_reach(shape_, strides_).value_or(detail::Reach{});
  }

  /// Storage index of `index`. Precondition: index.size() == rank() and each entry in range.
  constexpr std::size_t storage_index(std::span<const std::size_t> index) const noexcept {
    std::ptrdiff_t at = static_cast<std::ptrdiff_t>(offset_);
    for (std::size_t k = 0; k < index.size(); ++k)
      at += static_cast<std::ptrdiff_t>(index[k]) * strides_[k];
    return static_cast<std::size_t>(at);
  }

  /// Checks that every element lies in a buffer of `storage_len` elements.
  constexpr Result<void> check_storage(std::size_t storage_len, const char* op) const {
    return detail::guard_allocations(op, [&]() -> Result<void> {
      if (empty()) return {};
      const detail::Reach r = reach();
      const auto start = static_cast<std::ptrdiff_t>(offset_);
      if (start + r.low < 0) return ShapeError::storage_below_zero(op, storage_len, shape_);
      const auto last = static_cast<std::size_t>(start + r.high);
      if (last >= storage_len)
        return ShapeError::storage_out_of_bounds(op, last, storage_len, shape_);
      return {};
    });
  }

 private:
  /// A copy of this layout changed by `change` (one of the *_in_place members). (Defined before
  /// its callers: clang 14 cannot evaluate a constexpr member template defined further down.)
  template <class Change>
  constexpr Result<Layout> derived(const char* op, Change&& change) const {
    return detail::changed_copy(
        op, *this, [](Layout& l) -> Layout& { return l; }, std::forward<Change>(change));
  }

 public:
  /// @name View operations
  /// Each returns a new layout and touches no data. The `_in_place` form of each changes this
  /// layout instead and leaves it unchanged when it returns an error (`Tensor`'s views use it to
  /// build their result where it is returned). The extended operations, from `slice` on, are
  /// defined in `<strided/layout_views.hpp>`, which this header includes.
  ///@{

  /// Swaps axes d0 and d1.
  constexpr Result<Layout> transpose(std::size_t d0, std::size_t d1) const {
    return derived("transpose", [&](Layout& l) { return l.transpose_in_place(d0, d1); });
  }
  /// Reorders the axes: output axis k is input axis perm[k] (ONNX Transpose convention).
  constexpr Result<Layout> permute(const Shape& perm) const {
    return derived("permute", [&](Layout& l) { return l.permute_in_place(perm); });
  }
  /// Keeps [start, start + length) of axis `dim`.
  constexpr Result<Layout> narrow(std::size_t dim, std::size_t start, std::size_t length) const {
    return derived("narrow", [&](Layout& l) { return l.narrow_in_place(dim, start, length); });
  }
  /// The same elements under a new shape, without copying: possible when every run of old axes
  /// merged into one new axis is stride-compatible (NumPy's no-copy reshape, PyTorch's view()).
  /// One size may be `infer`.
  constexpr Result<Layout> reshape(const Shape& requested) const {
    return derived("reshape", [&](Layout& l) { return l.reshape_in_place(requested); });
  }
  /// reshape() with every size taken literally (no `infer`): for callers whose shapes may hold
  /// a genuine size of SIZE_MAX, such as a broadcast axis.
  constexpr Result<Layout> reshape_exact(const Shape& new_shape) const {
    return derived("reshape", [&](Layout& l) { return l.reshape_exact_in_place(new_shape); });
  }
  /// Broadcasts to `target` by NumPy's rules: right-aligned, size-1 axes and new leading axes get
  /// stride 0. A target of lower rank is incompatible.
  constexpr Result<Layout> broadcast_to(const Shape& target) const {
    return derived("broadcast_to", [&](Layout& l) { return l.broadcast_to_in_place(target); });
  }
  /// Elements start, start + step, ... before stop along `dim`, with Python's semantics: negative
  /// bounds count from the end, out-of-range bounds clamp, a negative step walks backwards, `end`
  /// is an omitted bound. A zero step is invalid_argument.
  constexpr Result<Layout> slice(std::size_t dim, std::ptrdiff_t start, std::ptrdiff_t stop = end,
                                 std::ptrdiff_t step = 1) const {
    return derived("slice", [&](Layout& l) { return l.slice_in_place(dim, start, stop, step); });
  }
  /// Reverses every axis named in `dims` (each at most once: duplicate_axis otherwise): for each,
  /// the offset moves to the axis's last element and its stride changes sign.
  constexpr Result<Layout> flip(const Shape& dims) const {
    return derived("flip", [&](Layout& l) { return l.flip_in_place(dims); });
  }
  /// Reverses axis `dim`.
  constexpr Result<Layout> flip(std::size_t dim) const { return flip(Shape{dim}); }
  /// Removes every axis of size 1.
  constexpr Result<Layout> squeeze() const {
    return derived("squeeze", [](Layout& l) { return l.squeeze_in_place(); });
  }
  /// Removes axis `dim`, which must have size 1 (invalid_argument otherwise, as NumPy; PyTorch
  /// silently returns the input instead).
  constexpr Result<Layout> squeeze(std::size_t dim) const {
    return derived("squeeze", [&](Layout& l) { return l.squeeze_in_place(dim); });
  }
  /// Inserts an axis of size 1 before axis `dim` (dim == rank appends). Its stride is PyTorch's:
  /// size * stride of the axis it precedes, 1 at the end (any value would do).
  constexpr Result<Layout> unsqueeze(std::size_t dim) const {
    return derived("unsqueeze", [&](Layout& l) { return l.unsqueeze_in_place(dim); });
  }
  /// The sub-layout at `index` along `dim`, without that axis (NumPy's integer index).
  constexpr Result<Layout> select(std::size_t dim, std::size_t index) const {
    return derived("select", [&](Layout& l) { return l.select_in_place(dim, index); });
  }
  /// Merges axes first..last (inclusive) into one, as a zero-copy reshape (non_contiguous_reshape
  /// when the axes are not stride-compatible). A rank-0 layout flattens to shape [1].
  constexpr Result<Layout> flatten(std::size_t first, std::size_t last) const {
    return derived("flatten", [&](Layout& l) { return l.flatten_in_place(first, last); });
  }
  /// Splits axis `dim` into axes of `sizes` (one of them may be `infer`); their product must be
  /// the axis size (element_count_mismatch). Always a view: splitting an axis needs no copy.
  constexpr Result<Layout> unflatten(std::size_t dim, const Shape& sizes) const {
    return derived("unflatten", [&](Layout& l) { return l.unflatten_in_place(dim, sizes); });
  }
  /// Moves axis `src` to position `dst`, keeping the order of the others.
  constexpr Result<Layout> movedim(std::size_t src, std::size_t dst) const {
    return derived("movedim", [&](Layout& l) { return l.movedim_in_place(src, dst); });
  }
  /// The diagonal of axes d0 and d1 (offset > 0: above the main diagonal, along d1; < 0: below),
  /// as a new last axis; d0 and d1 are removed (NumPy's and PyTorch's convention). An offset past
  /// the matrix gives an empty axis.
  constexpr Result<Layout> diagonal(std::ptrdiff_t offset = 0, std::size_t d0 = 0,
                                    std::size_t d1 = 1) const {
    return derived("diagonal", [&](Layout& l) { return l.diagonal_in_place(offset, d0, d1); });
  }
  /// Pieces of `size` elements along `dim`, the last one shorter when `size` does not divide the
  /// axis (PyTorch's split). An axis of size 0 gives one empty piece; otherwise a zero size is
  /// invalid_argument.
  Result<std::vector<Layout>> split(std::size_t dim, std::size_t size) const;
  /// At most `n` pieces of equal size ceil(axis / n) along `dim`, the last one possibly shorter,
  /// so fewer than `n` when they run out (PyTorch's chunk). An axis of size 0 gives `n` empty
  /// pieces. n == 0 is invalid_argument.
  Result<std::vector<Layout>> chunk(std::size_t dim, std::size_t n) const;
  /// Every index of `dim` selected in turn: the axis's sub-layouts, in order.
  Result<std::vector<Layout>> unbind(std::size_t dim) const;

  constexpr Result<void> transpose_in_place(std::size_t d0, std::size_t d1) {
    if (d0 >= rank()) return ShapeError::axis_out_of_range("transpose", d0, shape_);
    if (d1 >= rank()) return ShapeError::axis_out_of_range("transpose", d1, shape_);
    std::swap(shape_[d0], shape_[d1]);
    std::swap(strides_[d0], strides_[d1]);
    return {};
  }

  constexpr Result<void> permute_in_place(const Shape& perm) {
    std::size_t failed_at = 0;
    if (&perm != &shape_ && perm.size() == rank()) {
      failed_at = permute_gather(perm);
      if (failed_at == rank()) return {};
    }
    return detail::guard_allocations("permute", [&]() -> Result<void> {
      if (&perm == &shape_) return permute_in_place(Shape(perm));  // the gather rewrites it
      if (perm.size() != rank()) return ShapeError::rank_mismatch("permute", rank(), perm.size());
      return permute_error(perm[failed_at], perm);
    });
  }

  constexpr Result<void> narrow_in_place(std::size_t dim, std::size_t start, std::size_t length) {
    if (dim >= rank()) return ShapeError::axis_out_of_range("narrow", dim, shape_);
    if (start > shape_[dim] || length > shape_[dim] - start)
      return ShapeError::range_out_of_range("narrow", dim, start, length, shape_);
    const std::size_t size = shape_[dim];
    shape_[dim] = length;  // first: a layout left without elements may keep any offset
    if (advance_offset(start, strides_[dim])) return {};
    shape_[dim] = size;
    return ShapeError::size_overflow("narrow", shape_);
  }

  constexpr Result<void> reshape_in_place(const Shape& requested) {
    if (reshape_row_major(requested)) return {};
    return detail::guard_allocations("reshape", [&]() -> Result<void> {
      if (std::find(requested.begin(), requested.end(), infer) == requested.end())
        return reshape_general(requested);  // without copying the shape
      auto resolved = detail::resolve_infer(requested, numel(), "reshape");
      if (!resolved) return std::move(resolved).error();
      return reshape_exact_in_place(*resolved);
    });
  }

  constexpr Result<void> reshape_exact_in_place(const Shape& new_shape) {
    if (reshape_row_major(new_shape)) return {};
    return detail::guard_allocations("reshape",
                                     [&]() -> Result<void> { return reshape_general(new_shape); });
  }

  constexpr Result<void> broadcast_to_in_place(const Shape& target) {
    if (broadcast_same_rank(target)) return {};
    return detail::guard_allocations("broadcast_to", [&]() -> Result<void> {
      if (target.size() > max_rank)
        return ShapeError::rank_too_large("broadcast_to", target.size());
      if (target.size() < rank())
        return ShapeError::broadcast_incompatible("broadcast_to", shape_, target);
      if (!detail::checked_numel(target)) return ShapeError::size_overflow("broadcast_to", target);
      const std::size_t lead = target.size() - rank();
      for (std::size_t k = 0; k < rank(); ++k)
        if (shape_[k] != target[lead + k] && shape_[k] != 1)
          return ShapeError::broadcast_incompatible("broadcast_to", shape_, target);
      shape_.reserve(target.size());  // the only steps that can throw, before any change
      strides_.reserve(target.size());
      strides_.resize(target.size());
      // Axis k moves to lead + k: from the innermost, each entry is read before it is written.
      for (std::size_t k = rank(); k-- > 0;)
        strides_[lead + k] = shape_[k] == target[lead + k] && shape_[k] != 1 ? strides_[k] : 0;
      for (std::size_t k = 0; k < lead; ++k) strides_[k] = 0;
      shape_ = target;
      return {};
    });
  }

  constexpr Result<void> slice_in_place(std::size_t dim, std::ptrdiff_t start,
                                        std::ptrdiff_t stop = end, std::ptrdiff_t step = 1);
  constexpr Result<void> flip_in_place(const Shape& dims);
  constexpr Result<void> flip_in_place(std::size_t dim) { return flip_in_place(Shape{dim}); }
  constexpr Result<void> squeeze_in_place();
  constexpr Result<void> squeeze_in_place(std::size_t dim);
  constexpr Result<void> unsqueeze_in_place(std::size_t dim);
  constexpr Result<void> select_in_place(std::size_t dim, std::size_t index);
  constexpr Result<void> flatten_in_place(std::size_t first, std::size_t last);
  constexpr Result<void> unflatten_in_place(std::size_t dim, const Shape& sizes);
  constexpr Result<void> movedim_in_place(std::size_t src, std::size_t dst);
  constexpr Result<void> diagonal_in_place(std::ptrdiff_t offset = 0, std::size_t d0 = 0,
                                           std::size_t d1 = 1);
  ///@}

 private:
  constexpr Layout(Shape shape, Strides strides, std::size_t offset)
      : shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {}

  /// permute_in_place for a `perm` of this rank that is not the layout's own shape: one pass
  /// checks it and gathers each axis from a copy of the old entries on the stack (interleaved:
  /// two plain arrays, GCC copies with two calls to memcpy). Returns the rank when `perm` is a
  /// permutation; otherwise the position of its first entry out of range or repeated, with the
  /// layout unchanged. It cannot allocate, so it runs outside the allocation guard, inside which
  /// GCC keeps the op out of line.
  constexpr std::size_t permute_gather(const Shape& perm) noexcept {
    struct Axis {
      std::size_t size;
      std::ptrdiff_t stride;
    };
    std::array<Axis, max_rank> old;  // not initialised: entries [0, n) are written first
    // Through pointers: a store to a size could alias the vectors' own counts for the compiler.
    const std::size_t n = rank(), *axes = perm.data();
    std::size_t* sizes = shape_.data();
    std::ptrdiff_t* steps = strides_.data();
    for (std::size_t k = 0; k < n; ++k) old[k] = {sizes[k], steps[k]};
    std::uint64_t seen = 0;  // rank <= 64: one bit per axis
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t axis = axes[k];
      const std::uint64_t bit = axis < n ? std::uint64_t{1} << axis : 0;
      if (bit == 0 || (seen & bit) != 0) {
        for (std::size_t j = 0; j < k; ++j) {  // put back what was written
          sizes[j] = old[j].size;
          steps[j] = old[j].stride;
        }
        return k;
      }
      seen |= bit;
      sizes[k] = old[axis].size;
      steps[k] = old[axis].stride;
    }
    return n;
  }

  /// permute_in_place's error for `axis`, the first entry of `perm` out of range or repeated.
  constexpr ShapeError permute_error(std::size_t axis, const Shape& perm) const {
    if (axis >= rank()) return ShapeError::axis_out_of_range("permute", axis, shape_);
    return ShapeError::duplicate_axis("permute", axis, perm);
  }

  /// broadcast_to_in_place of a target of this rank, when it succeeds: the checks and the new
  /// strides in two passes over the axes, where the general path makes four (each pass over six
  /// axes costs about as much as the copy of the tensor a view op makes). False, with the layout
  /// unchanged, for any other target or any error, which the general path then reports.
  constexpr bool broadcast_same_rank(const Shape& target) noexcept {
    const std::size_t n = rank();
    if (target.size() != n) return false;
    // Through pointers: a store to a stride could alias the vectors' own counts for the compiler.
    const std::size_t* to = target.data();
    std::size_t* sizes = shape_.data();
    std::ptrdiff_t* steps = strides_.data();
    // The count's bound, not the product: a chain of dependent multiplications would take longer
    // than the rest of the op. The exact count only when that bound is too loose.
    bool compatible = true;  // no branch per axis
    std::size_t any_bits = 0;
    for (std::size_t k = 0; k < n; ++k) {
      compatible &= (sizes[k] == to[k]) | (sizes[k] == 1);
      any_bits |= to[k];
    }
    if (!compatible ||
        (!detail::sizes_below_bits(any_bits, n, std::numeric_limits<std::size_t>::digits) &&
         !detail::checked_numel(target)))
      return false;
    for (std::size_t k = 0; k < n; ++k) {  // to may be sizes itself: each entry read first
      steps[k] = sizes[k] == to[k] && sizes[k] != 1 ? steps[k] : 0;
      sizes[k] = to[k];
    }
    return true;
  }

  /// flatten_in_place when the merge keeps the stride of every axis it does not merge, which is
  /// what the reshape that flatten is gives when each merged axis steps over the next whole and
  /// no axis has size 0 or 1 (a reshape recomputes the strides of those), without the reshape's
  /// walk. False, with the layout unchanged, for anything else, which the general path handles.
  constexpr bool flatten_plain(std::size_t first, std::size_t last) noexcept;

  constexpr void erase_axis(std::size_t dim) noexcept {
    shape_.erase(dim);
    strides_.erase(dim);
  }

  /// offset += steps * stride, checked. A layout left without elements keeps any offset it can
  /// represent, since it reaches nothing.
  constexpr bool advance_offset(std::size_t steps, std::ptrdiff_t stride) {
    if (stride == 0) return true;  // a broadcast axis: any start is the same element
    std::ptrdiff_t delta = 0, moved = 0;
    if (steps > static_cast<std::size_t>(detail::max_index) ||
        __builtin_mul_overflow(static_cast<std::ptrdiff_t>(steps), stride, &delta) ||
        __builtin_add_overflow(static_cast<std::ptrdiff_t>(offset_), delta, &moved) || moved < 0)
      return empty();
    offset_ = static_cast<std::size_t>(moved);
    return true;
  }

  /// reshape_exact_in_place when reshape_row_major has not done it: every other layout, and every
  /// error. Inside the caller's guard.
  constexpr Result<void> reshape_general(const Shape& new_shape) {
    if (new_shape.size() > max_rank) return ShapeError::rank_too_large("reshape", new_shape.size());
    const auto n = detail::checked_numel(new_shape);
    if (!n) return ShapeError::size_overflow("reshape", new_shape);
    // The common case, a row-major layout, is recognised without a chain of products.
    const auto row_major_n = detail::row_major_numel(shape_, strides_);
    const std::size_t old_n = row_major_n ? *row_major_n : numel();
    if (*n != old_n) return ShapeError::element_count_mismatch("reshape", old_n, new_shape);
    // Row-major data stays row-major (and 0 or 1 element has no order to preserve).
    const bool row_major = *n <= 1 || row_major_n || is_contiguous();
    // Sizes >= 1 multiplying to at most PTRDIFF_MAX give strides that fit; otherwise check.
    const bool may_overflow = *n == 0 || *n > static_cast<std::size_t>(detail::max_index);
    if (row_major && may_overflow &&
        !detail::row_major_steps(new_shape, [](std::size_t, std::ptrdiff_t) {}))
      return ShapeError::size_overflow("reshape", new_shape);
    if (!row_major) return reshape_strided(new_shape);
    shape_.reserve(new_shape.size());  // the only steps that can throw, before any change
    strides_.reserve(new_shape.size());
    shape_ = new_shape;
    strides_.resize(rank());  // written in place: a temporary would be reloaded just after
    detail::row_major_steps(shape_,
                            [&](std::size_t k, std::ptrdiff_t step) { strides_[k] = step; });
    return {};
  }

  /// The common reshape, a row-major layout to a shape of the same count, in one pass over the
  /// new sizes that writes the strides and multiplies the count together. False, with the layout
  /// unchanged, for anything else (`infer`, another count, an overflow, a layout that is not
  /// row-major, a new rank past the vectors' capacity or past 63, which the count bound below
  /// rejects, so no rank above max_rank gets through): the general path then finds the answer
  /// or the error. It cannot allocate, so it runs outside the allocation guard, inside which GCC
  /// keeps the op out of line. Always inlined: GCC otherwise calls it (see inline_ in shape.hpp).
  [[gnu::always_inline]] constexpr bool reshape_row_major(const Shape& new_shape) {
    const auto old_n = detail::row_major_numel(shape_, strides_);
    if (!old_n || new_shape.size() > shape_.capacity() || new_shape.size() > strides_.capacity())
      return false;
    const std::size_t old_rank = rank();
    strides_.resize(new_shape.size());
    // The products are bounded (sizes_below_bits) by a check the chain of products does not wait
    // on, as it would on each one's overflow flag. Shapes past the bound (and infer) go to the
    // general path.
    std::size_t step = 1, any_bits = 0;
    for (std::size_t k = new_shape.size(); k-- > 0;) {
      strides_[k] = static_cast<std::ptrdiff_t>(step);
      step *= new_shape[k];  // wraps only past the bound, when the result is not used
      any_bits |= new_shape[k];
    }
    const bool fits = detail::sizes_below_bits(any_bits, new_shape.size(),
                                               std::numeric_limits<std::ptrdiff_t>::digits);
    if (fits && step == *old_n) {
      shape_ = new_shape;
      return true;
    }
    strides_.resize(old_rank);  // restore the row-major strides the layout had
    detail::row_major_steps(shape_, [&](std::size_t k, std::ptrdiff_t s) { strides_[k] = s; });
    return false;
  }

  /// reshape_exact_in_place of a layout that is not row-major, once the counts match.
  constexpr Result<void> reshape_strided(const Shape& new_shape) {
    std::optional<Strides> strides = view_strides(new_shape);
    if (!strides) return ShapeError::non_contiguous_reshape("reshape", shape_, new_shape);
    shape_ = new_shape;  // may throw (rank > 8) before the strides change
    strides_ = std::move(*strides);
    return {};
  }

  /// PyTorch's computeStride: walk old and new axes from the innermost, chunk by chunk of old
  /// axes that are contiguous with each other; each chunk must be covered exactly by new axes.
  constexpr std::optional<Strides> view_strides(const Shape& new_shape) const {
    Strides out(new_shape.size(), 0);
    std::ptrdiff_t view_d = static_cast<std::ptrdiff_t>(new_shape.size()) - 1;
    std::ptrdiff_t chunk_stride = strides_.back();
    std::size_t tensor_numel = 1, view_numel = 1;
    for (std::size_t d = rank(); d-- > 0;) {
      tensor_numel *= shape_[d];
      std::ptrdiff_t merged = 0;  // the stride axis d-1 needs to merge with the chunk
      const bool chunk_ends =
          d == 0 ||
          (shape_[d - 1] != 1 && (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(tensor_numel),
                                                         chunk_stride, &merged) ||
                                  strides_[d - 1] != merged));
      if (!chunk_ends) continue;
      while (view_d >= 0 &&
             (view_numel < tensor_numel || new_shape[static_cast<std::size_t>(view_d)] == 1)) {
        std::ptrdiff_t stride = 0;
        if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(view_numel), chunk_stride, &stride))
          return std::nullopt;
        out[static_cast<std::size_t>(view_d)] = stride;
        view_numel *= new_shape[static_cast<std::size_t>(view_d)];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_stride = strides_[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
    if (view_d != -1) return std::nullopt;
    return out;
  }

  Shape shape_;
  Strides strides_;
  std::size_t offset_ = 0;
};

/// The shape two shapes broadcast to (NumPy's rules), or broadcast_incompatible.
constexpr Result<Shape> broadcast_shape(const Shape& a, const Shape& b) {
  return detail::guard_allocations("broadcast_shape", [&]() -> Result<Shape> {
    const Shape& longer = a.size() >= b.size() ? a : b;
    const Shape& shorter = a.size() >= b.size() ? b : a;
    Shape out = longer;
    const std::size_t lead = longer.size() - shorter.size();
    for (std::size_t k = 0; k < shorter.size(); ++k) {
      const std::size_t x = longer[lead + k], y = shorter[k];
      if (x == y || y == 1) continue;
      if (x != 1) return ShapeError::broadcast_incompatible("broadcast_shape", a, b);
      out[lead + k] = y;
    }
    return out;
  });
}

}  // namespace strided

#include "strided/layout_views.hpp"  // the extended view operations' definitions
