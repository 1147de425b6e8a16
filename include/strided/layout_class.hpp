// Layout's class: shape + strides + offset, the members defined in the class body, and the
// declarations of the view operations that strided/layout_reshape.hpp and
// strided/layout_views.hpp define. strided/layout.hpp includes all three. No inline function here
// calls a member defined in those headers, so this one compiles alone.
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
/// Not called `end`: with `using namespace strided;` a variable of that name would hide
/// `std::end` from an unqualified `end(v)`.
inline constexpr std::ptrdiff_t slice_end = std::numeric_limits<std::ptrdiff_t>::min();

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

/// built_copy's general path, out of line and cold: `out` becomes changed_copy's answer.
template <class T, class LayoutOf, class Change>
[[gnu::cold, gnu::noinline]] constexpr void rebuild_declined(Result<T>& out, const char* op,
                                                             const T& source, LayoutOf& layout_of,
                                                             Change& change) {
  out = changed_copy(op, source, layout_of, change);
}

template <class T, class LayoutOf, class Build, class Change>
[[gnu::always_inline]] constexpr Result<T> built_copy_inline(const char* op, const T& source,
                                                             LayoutOf& layout_of, Build& build,
                                                             Change& change) {
  Result<T> out(std::in_place, source);  // the one object returned: never moved after
  if (!build(layout_of(*out), layout_of(source))) [[unlikely]]
    rebuild_declined(out, op, source, layout_of, change);
  return out;
}

/// changed_copy for an op with a common case `build(out, from)`, a Layout::*_from member: it
/// writes the view into `out`, the layout of the copy, from `from`, the source's, without
/// allocating or building an error, and returns false to decline (an error, or a case it leaves
/// to the general path); changed_copy then starts over with `change`, which gives the answer or
/// the error. Up to inline_rank the copy cannot allocate either, so the common case runs outside
/// the allocation guard, whose try block keeps GCC from inlining the op, and the general path
/// is out of line.
template <class T, class LayoutOf, class Build, class Change>
[[gnu::always_inline]] constexpr Result<T> built_copy(const char* op, const T& source,
                                                      LayoutOf&& layout_of, Build&& build,
                                                      Change&& change) {
  return layout_of(source).rank() <= inline_rank
             ? built_copy_inline(op, source, layout_of, build, change)
             : changed_copy(op, source, layout_of, std::forward<Change>(change));
}

}  // namespace detail

template <class Derived>
class ViewOps;
template <class Derived>
class BroadcastOps;

/// Where each element of an n-dimensional array lives in a flat buffer: element `i` is at
/// `offset + sum(i[k] * strides[k])`. Strides count elements and are signed (0 = broadcast).
///
/// Invariants, checked when a layout is built: rank <= max_rank, the element count fits
/// std::size_t, and every index the layout reaches fits std::ptrdiff_t.
class Layout {
 public:
  /// The layout of a scalar: rank 0, one element at offset 0.
  constexpr Layout() = default;
  /// Copies; allocates only past inline_rank axes. Always inlined, as Tensor's and AxisVector's
  /// copies: each view op starts with one, and GCC otherwise calls it from some ops and not others.
  [[gnu::always_inline]] constexpr Layout(const Layout&) = default;
  /// Moves (the inline entries are copied).
  constexpr Layout(Layout&&) noexcept = default;
  /// Copy-assigns; allocates only past the capacity this layout has.
  constexpr Layout& operator=(const Layout&) = default;
  /// Move-assigns.
  constexpr Layout& operator=(Layout&&) noexcept = default;

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

  /// Same shape, strides and offset: the same elements at the same storage indices. (Two layouts
  /// can also reach the same elements in the same order with different strides, e.g. along an axis
  /// of size 1; such layouts are not equal.)
  friend constexpr bool operator==(const Layout&, const Layout&) noexcept = default;

  /// Lowest and highest storage index reached, relative to offset() (0, 0 when empty).
  constexpr Reach reach() const noexcept {
    return detail::checked_reach(shape_, strides_).value_or(Reach{});
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
      const Reach r = reach();
      const auto start = static_cast<std::ptrdiff_t>(offset_);
      if (start + r.low < 0) return ShapeError::storage_below_zero(op, storage_len, shape_);
      const auto last = static_cast<std::size_t>(start + r.high);
      if (last >= storage_len)
        return ShapeError::storage_out_of_bounds(op, last, storage_len, shape_);
      return {};
    });
  }

 private:
  // The layout as its own holder, for derived and the *_of builders.
  static constexpr auto itself = [](auto& l) -> auto& { return l; };

  /// A copy of this layout changed by `change` (one of the *_in_place members). (Defined before
  /// its callers: clang 14 cannot evaluate a constexpr member template defined further down.)
  template <class Change>
  constexpr Result<Layout> derived(const char* op, Change&& change) const {
    return detail::changed_copy(op, *this, itself, std::forward<Change>(change));
  }

  /// An _in_place op's common case: build(old) makes this layout from `old`, a copy of it taken
  /// first, as a *_from member does; when build declines, the layout is restored from the copy.
  /// False past inline_rank, where the copy could allocate.
  template <class Build>
  constexpr bool rebuilt(Build&& build) {
    if (rank() > inline_rank) return false;
    const Layout old = *this;
    if (std::forward<Build>(build)(old)) return true;
    *this = old;
    return false;
  }

 public:
  /// @name Views built inside a holder
  /// For a type that holds a layout beside other members, as `Tensor` does: a copy of `holder`
  /// whose layout, `layout_of(copy)`, is the view, built where the result is returned.
  /// `layout_of` returns a reference to the layout of an `H&` and of a `const H&`. The common case
  /// is written from the holder's layout into the copy's without allocating or building an error;
  /// anything else (an error, more than inline_rank axes) takes the general path, which copies the
  /// holder again under the allocation guard and reports the error. An exception from H's copy
  /// constructor propagates (a `Tensor`'s copy throws none up to inline_rank axes). The layout's
  /// own `permute`, `reshape`, `broadcast_to`, `unflatten` and `diagonal` are these with itself as
  /// the holder.
  ///@{
  /// permute(perm) built inside a copy of `holder`.
  template <class H, class LayoutOf>
  static constexpr Result<H> permute_of(const H& holder, LayoutOf&& layout_of, const Shape& perm) {
    return detail::built_copy(
        "permute", holder, layout_of,
        [&](Layout& out, const Layout& from) { return out.permute_from(from, perm); },
        [&](Layout& l) { return l.permute_in_place(perm); });
  }
  /// reshape(requested) built inside a copy of `holder`.
  template <class H, class LayoutOf>
  static constexpr Result<H> reshape_of(const H& holder, LayoutOf&& layout_of,
                                        const Shape& requested) {
    return detail::built_copy(
        "reshape", holder, layout_of,
        [&](Layout& out, const Layout& from) { return out.reshape_from(from, requested); },
        [&](Layout& l) { return l.reshape_in_place(requested); });
  }
  /// broadcast_to(target) built inside a copy of `holder`.
  template <class H, class LayoutOf>
  static constexpr Result<H> broadcast_to_of(const H& holder, LayoutOf&& layout_of,
                                             const Shape& target) {
    return detail::built_copy(
        "broadcast_to", holder, layout_of,
        [&](Layout& out, const Layout& from) { return out.broadcast_from(from, target); },
        [&](Layout& l) { return l.broadcast_to_in_place(target); });
  }
  /// unflatten(dim, sizes) built inside a copy of `holder`.
  template <class H, class LayoutOf>
  static constexpr Result<H> unflatten_of(const H& holder, LayoutOf&& layout_of, std::size_t dim,
                                          const Shape& sizes) {
    return detail::built_copy(
        "unflatten", holder, layout_of,
        [&](Layout& out, const Layout& from) { return out.unflatten_from(from, dim, sizes); },
        [&](Layout& l) { return l.unflatten_in_place(dim, sizes); });
  }
  /// diagonal(offset, d0, d1) built inside a copy of `holder`.
  template <class H, class LayoutOf>
  static constexpr Result<H> diagonal_of(const H& holder, LayoutOf&& layout_of,
                                         std::ptrdiff_t offset, std::size_t d0, std::size_t d1) {
    return detail::built_copy(
        "diagonal", holder, layout_of,
        [&](Layout& out, const Layout& from) { return out.diagonal_from(from, offset, d0, d1); },
        [&](Layout& l) { return l.diagonal_in_place(offset, d0, d1); });
  }
  ///@}

  /// @name View operations
  /// Each returns a new layout and touches no data. reshape and broadcast_to are defined in
  /// `<strided/layout_reshape.hpp>`, the extended operations, from `slice` on, in
  /// `<strided/layout_views.hpp>`; `<strided/layout.hpp>` includes both.
  ///@{

  /// Swaps axes d0 and d1.
  constexpr Result<Layout> transpose(std::size_t d0, std::size_t d1) const {
    return derived("transpose", [&](Layout& l) { return l.transpose_in_place(d0, d1); });
  }
  /// Reorders the axes: output axis k is input axis perm[k] (ONNX Transpose convention).
  constexpr Result<Layout> permute(const Shape& perm) const {
    return permute_of(*this, itself, perm);
  }
  /// Keeps [start, start + length) of axis `dim`.
  constexpr Result<Layout> narrow(std::size_t dim, std::size_t start, std::size_t length) const {
    return derived("narrow", [&](Layout& l) { return l.narrow_in_place(dim, start, length); });
  }
  /// The same elements under a new shape, without copying: possible when every run of old axes
  /// merged into one new axis is stride-compatible (NumPy's no-copy reshape, PyTorch's view()).
  /// One size may be `infer`.
  constexpr Result<Layout> reshape(const Shape& requested) const;
  /// reshape() with every size taken literally (no `infer`): for callers whose shapes may hold
  /// a genuine size of SIZE_MAX, such as a broadcast axis.
  constexpr Result<Layout> reshape_exact(const Shape& new_shape) const;
  /// Broadcasts to `target` by NumPy's rules: right-aligned, size-1 axes and new leading axes get
  /// stride 0. A target of lower rank is incompatible.
  constexpr Result<Layout> broadcast_to(const Shape& target) const;
  /// Elements start, start + step, ... before stop along `dim`, with Python's semantics: negative
  /// bounds count from the end, out-of-range bounds clamp, a negative step walks backwards,
  /// `slice_end` is an omitted bound. A zero step is invalid_argument.
  constexpr Result<Layout> slice(std::size_t dim, std::ptrdiff_t start,
                                 std::ptrdiff_t stop = slice_end, std::ptrdiff_t step = 1) const;
  /// Reverses every axis named in `dims` (each at most once: duplicate_axis otherwise): for each,
  /// the offset moves to the axis's last element and its stride changes sign.
  constexpr Result<Layout> flip(const Shape& dims) const;
  /// Reverses axis `dim`.
  constexpr Result<Layout> flip(std::size_t dim) const;
  /// Removes every axis of size 1.
  constexpr Result<Layout> squeeze() const;
  /// Removes axis `dim`, which must have size 1 (invalid_argument otherwise, as NumPy; PyTorch
  /// silently returns the input instead).
  constexpr Result<Layout> squeeze(std::size_t dim) const;
  /// Inserts an axis of size 1 before axis `dim` (dim == rank appends). Its stride is PyTorch's:
  /// size * stride of the axis it precedes, 1 at the end (any value would do).
  constexpr Result<Layout> unsqueeze(std::size_t dim) const;
  /// The sub-layout at `index` along `dim`, without that axis (NumPy's integer index).
  constexpr Result<Layout> select(std::size_t dim, std::size_t index) const;
  /// Merges axes first..last (inclusive) into one, as a zero-copy reshape (non_contiguous_reshape
  /// when the axes are not stride-compatible). A rank-0 layout flattens to shape [1].
  constexpr Result<Layout> flatten(std::size_t first, std::size_t last) const;
  /// Splits axis `dim` into axes of `sizes` (one of them may be `infer`); their product must be
  /// the axis size (element_count_mismatch). Always a view: splitting an axis needs no copy.
  constexpr Result<Layout> unflatten(std::size_t dim, const Shape& sizes) const;
  /// Moves axis `src` to position `dst`, keeping the order of the others.
  constexpr Result<Layout> movedim(std::size_t src, std::size_t dst) const;
  /// The diagonal of axes d0 and d1 (offset > 0: above the main diagonal, along d1; < 0: below),
  /// as a new last axis; d0 and d1 are removed (NumPy's and PyTorch's convention). An offset past
  /// the matrix gives an empty axis.
  constexpr Result<Layout> diagonal(std::ptrdiff_t offset = 0, std::size_t d0 = 0,
                                    std::size_t d1 = 1) const;
  /// Pieces of `size` elements along `dim`, the last one shorter when `size` does not divide the
  /// axis (PyTorch's split). An axis of size 0 gives one empty piece; otherwise a zero size is
  /// invalid_argument.
  STRIDED_FUNC Result<std::vector<Layout>> split(std::size_t dim, std::size_t size) const;
  /// At most `n` pieces of equal size ceil(axis / n) along `dim`, the last one possibly shorter,
  /// so fewer than `n` when they run out (PyTorch's chunk). An axis of size 0 gives `n` empty
  /// pieces. n == 0 is invalid_argument.
  STRIDED_FUNC Result<std::vector<Layout>> chunk(std::size_t dim, std::size_t n) const;
  /// Every index of `dim` selected in turn: the axis's sub-layouts, in order.
  STRIDED_FUNC Result<std::vector<Layout>> unbind(std::size_t dim) const;
  ///@}

 private:
  // The views of the classes that hold a layout change a copy of it in place, through the
  // *_in_place members below, where their result is returned.
  template <class Derived>
  friend class ViewOps;
  template <class Derived>
  friend class BroadcastOps;

  // Each *_in_place member changes this layout into the view and leaves it unchanged when it
  // returns an error; the copying op of the same name is it applied to a copy.
  constexpr Result<void> transpose_in_place(std::size_t d0, std::size_t d1) {
    if (d0 >= rank()) return ShapeError::axis_out_of_range("transpose", d0, shape_);
    if (d1 >= rank()) return ShapeError::axis_out_of_range("transpose", d1, shape_);
    std::swap(shape_[d0], shape_[d1]);
    std::swap(strides_[d0], strides_[d1]);
    return {};
  }

  constexpr Result<void> permute_in_place(const Shape& perm) {
    if (&perm != &shape_ && rebuilt([&](const Layout& old) { return permute_from(old, perm); }))
      return {};
    return detail::guard_allocations_cold("permute", [&]() -> Result<void> {
      if (&perm == &shape_) return permute_in_place(Shape(perm));  // the gather rewrites it
      if (perm.size() != rank()) return ShapeError::rank_mismatch("permute", rank(), perm.size());
      std::uint64_t seen = 0;
      for (std::size_t axis : perm) {
        if (axis >= rank()) return ShapeError::axis_out_of_range("permute", axis, shape_);
        if ((seen >> axis & 1) != 0) return ShapeError::duplicate_axis("permute", axis, perm);
        seen |= std::uint64_t{1} << axis;
      }
      const Layout old = *this;  // past inline_rank: may throw, before any change
      permute_from(old, perm);   // a permutation, checked above
      return {};
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

  constexpr Result<void> reshape_in_place(const Shape& requested);
  constexpr Result<void> reshape_exact_in_place(const Shape& new_shape);
  constexpr Result<void> broadcast_to_in_place(const Shape& target);

  constexpr Result<void> slice_in_place(std::size_t dim, std::ptrdiff_t start,
                                        std::ptrdiff_t stop = slice_end, std::ptrdiff_t step = 1);
  constexpr Result<void> flip_in_place(const Shape& dims);
  constexpr Result<void> flip_in_place(std::size_t dim);
  constexpr Result<void> squeeze_in_place();
  constexpr Result<void> squeeze_in_place(std::size_t dim);
  constexpr Result<void> unsqueeze_in_place(std::size_t dim);
  constexpr Result<void> select_in_place(std::size_t dim, std::size_t index);
  constexpr Result<void> flatten_in_place(std::size_t first, std::size_t last);
  constexpr Result<void> unflatten_in_place(std::size_t dim, const Shape& sizes);
  constexpr Result<void> movedim_in_place(std::size_t src, std::size_t dst);
  constexpr Result<void> diagonal_in_place(std::ptrdiff_t offset = 0, std::size_t d0 = 0,
                                           std::size_t d1 = 1);

  constexpr Layout(Shape shape, Strides strides, std::size_t offset)
      : shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {}

  /// This layout, a copy of `from`, made `from` with its axes reordered by `perm`, in one pass
  /// that checks and gathers. False when `perm` is not a permutation of from's axes; this layout
  /// is then left changed, for the caller to discard or restore. `perm` must not be this
  /// layout's own shape.
  [[gnu::always_inline]] constexpr bool permute_from(const Layout& from,
                                                     const Shape& perm) noexcept {
    const std::size_t n = from.rank();
    if (perm.size() != n) return false;
    // Through pointers: a store to a size could alias the vectors' own counts for the compiler.
    const std::size_t *axes = perm.data(), *old_sizes = from.shape_.data();
    const std::ptrdiff_t* old_steps = from.strides_.data();
    std::size_t* sizes = shape_.data();
    std::ptrdiff_t* steps = strides_.data();
    std::uint64_t seen = 0;  // rank <= 64: one bit per axis
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t axis = axes[k];
      if (axis >= n || (seen >> axis & 1) != 0) return false;
      seen |= std::uint64_t{1} << axis;
      sizes[k] = old_sizes[axis];
      steps[k] = old_steps[axis];
    }
    return true;
  }

  /// This layout, a copy of `from`, made from.broadcast_to(target) for a target of from's rank or
  /// higher within the inline capacity, in one pass that checks each axis and writes it. False for
  /// any other target or any error; this layout is then left changed, for the caller to discard or
  /// restore.
  [[gnu::always_inline]] constexpr bool broadcast_from(const Layout& from,
                                                       const Shape& target) noexcept;

  /// This layout, a copy of `from`, made from.diagonal(offset, d0, d1). False for any error;
  /// this layout is then left changed, for the caller to discard or restore.
  [[gnu::always_inline]] constexpr bool diagonal_from(const Layout& from, std::ptrdiff_t offset,
                                                      std::size_t d0, std::size_t d1) noexcept;

  /// flatten_in_place when the merge keeps the stride of every axis it does not merge, which is
  /// what the reshape that flatten is gives when each merged axis steps over the next whole and
  /// no axis has size 0 or 1 (a reshape recomputes the strides of those), without the reshape's
  /// walk. False, with the layout unchanged, for anything else, which the general path handles.
  constexpr bool flatten_plain(std::size_t first, std::size_t last) noexcept;
  /// This layout, a copy of `from`, made from.unflatten(dim, sizes) when no axis, old or new,
  /// has size 0 or 1 (at most one new size `infer`) and the new rank is at most inline_rank:
  /// the split axis's stride times the sizes inside each new axis, which is what the reshape that
  /// unflatten is gives then, without building the new shape or an error. False for anything
  /// else; this layout is then left changed, for the caller to discard or restore. `sizes` must
  /// not be this layout's own shape.
  [[gnu::always_inline]] constexpr bool unflatten_from(const Layout& from, std::size_t dim,
                                                       const Shape& sizes) noexcept;
  /// unsqueeze_in_place when `dim` is in range and the new rank fits the vectors' capacity,
  /// without the guard the general path needs to grow them. False, unchanged, otherwise.
  constexpr bool unsqueeze_plain(std::size_t dim) noexcept;

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

  /// reshape_exact_in_place when reshape_from has declined: every other layout, and every
  /// error. Inside the caller's guard.
  constexpr Result<void> reshape_general(const Shape& new_shape);
  /// This layout, a copy of `from`, made from.reshape(new_shape) in the common case: `from` is
  /// row-major and `new_shape` has its count. False for anything else (`infer`, another count,
  /// an overflow, a layout that is not row-major, a new rank past inline_rank); this
  /// layout is then left changed, for the caller to discard or restore. Cannot allocate.
  [[gnu::always_inline]] constexpr bool reshape_from(const Layout& from, const Shape& new_shape);
  /// reshape_exact_in_place of a layout that is not row-major, once the counts match.
  constexpr Result<void> reshape_strided(const Shape& new_shape);
  /// PyTorch's computeStride: walk old and new axes from the innermost, chunk by chunk of old
  /// axes that are contiguous with each other; each chunk must be covered exactly by new axes.
  constexpr std::optional<Strides> view_strides(const Shape& new_shape) const;

  Shape shape_;
  Strides strides_;
  std::size_t offset_ = 0;
};

}  // namespace strided
