// The extended view algebra, the definitions of Layout's members declared in
// strided/layout_class.hpp (strided/layout.hpp includes all): stepped and reversed slices,
// flips, squeeze/unsqueeze, select, flatten/unflatten, movedim, diagonal and split/chunk/unbind.
// Each one changes shape, strides and offset only; none can produce a layout reaching an element
// its input did not reach, so Layout's invariants hold without from_parts's re-checks.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/error.hpp"
#include "strided/layout_class.hpp"
#include "strided/layout_reshape.hpp"  // flatten and unflatten reshape
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

namespace detail {

// Slice bounds and offsets are computed in 128 bits: an axis may hold more than PTRDIFF_MAX
// elements (a broadcast), and Python's bound clamping must not overflow on extreme arguments.
__extension__ typedef __int128 view_int;

/// The first index a slice visits and how many it visits (Python's PySlice_AdjustIndices).
struct SliceRange {
  std::size_t start = 0;
  std::size_t count = 0;
};

constexpr SliceRange slice_range(std::size_t size, std::ptrdiff_t start, std::ptrdiff_t stop,
                                 std::ptrdiff_t step) noexcept {
  const view_int n = size, s = step;
  auto adjust = [&](std::ptrdiff_t bound, bool is_start) -> view_int {
    if (bound == slice_end) return is_start ? (s > 0 ? 0 : n - 1) : (s > 0 ? n : -1);
    view_int v = bound;
    if (v < 0) {
      v += n;
      if (v < 0) v = s < 0 ? -1 : 0;
    } else if (v >= n) {
      v = s < 0 ? n - 1 : n;
    }
    return v;
  };
  const view_int first = adjust(start, true), last = adjust(stop, false);
  const view_int gap = s < 0 ? first - last : last - first;  // in [.., size + 1]
  if (gap <= 0) return {};
  // 64-bit division: a 128-bit one is a library call and would dominate the cost of a slice.
  const auto magnitude = static_cast<std::size_t>(s < 0 ? -s : s);
  return {static_cast<std::size_t>(first), static_cast<std::size_t>(gap - 1) / magnitude + 1};
}

/// offset + index * stride: the storage index of an element the layout reaches, so it lies in
/// [0, PTRDIFF_MAX] whenever the layout is valid; nullopt otherwise.
constexpr std::optional<std::size_t> moved_offset(std::size_t offset, std::size_t index,
                                                  std::ptrdiff_t stride) noexcept {
  const view_int at = view_int(offset) + view_int(index) * stride;
  if (at < 0 || at > max_index) return std::nullopt;
  return static_cast<std::size_t>(at);
}

/// a * b, or `fallback` when it overflows. Used for the stride of an axis of size <= 1, which
/// never multiplies an index and so may hold any value.
constexpr std::ptrdiff_t mul_or(std::ptrdiff_t a, std::ptrdiff_t b,
                                std::ptrdiff_t fallback) noexcept {
  std::ptrdiff_t out = 0;
  return __builtin_mul_overflow(a, b, &out) ? fallback : out;
}

}  // namespace detail

constexpr Result<Layout> Layout::slice(std::size_t dim, std::ptrdiff_t start, std::ptrdiff_t stop,
                                       std::ptrdiff_t step) const {
  return derived("slice", [&](Layout& l) { return l.slice_in_place(dim, start, stop, step); });
}

constexpr Result<Layout> Layout::flip(const Shape& dims) const {
  return derived("flip", [&](Layout& l) { return l.flip_in_place(dims); });
}

constexpr Result<Layout> Layout::flip(std::size_t dim) const { return flip(Shape{dim}); }

constexpr Result<Layout> Layout::squeeze() const {
  return derived("squeeze", [](Layout& l) { return l.squeeze_in_place(); });
}

constexpr Result<Layout> Layout::squeeze(std::size_t dim) const {
  return derived("squeeze", [&](Layout& l) { return l.squeeze_in_place(dim); });
}

constexpr Result<Layout> Layout::unsqueeze(std::size_t dim) const {
  return derived("unsqueeze", [&](Layout& l) { return l.unsqueeze_in_place(dim); });
}

constexpr Result<Layout> Layout::select(std::size_t dim, std::size_t index) const {
  return derived("select", [&](Layout& l) { return l.select_in_place(dim, index); });
}

constexpr Result<Layout> Layout::flatten(std::size_t first, std::size_t last) const {
  return derived("flatten", [&](Layout& l) { return l.flatten_in_place(first, last); });
}

constexpr Result<Layout> Layout::unflatten(std::size_t dim, const Shape& sizes) const {
  return unflatten_of(*this, itself, dim, sizes);
}

constexpr Result<Layout> Layout::movedim(std::size_t src, std::size_t dst) const {
  return derived("movedim", [&](Layout& l) { return l.movedim_in_place(src, dst); });
}

constexpr Result<Layout> Layout::diagonal(std::ptrdiff_t offset, std::size_t d0,
                                          std::size_t d1) const {
  return diagonal_of(*this, itself, offset, d0, d1);
}

constexpr Result<void> Layout::flip_in_place(std::size_t dim) { return flip_in_place(Shape{dim}); }

constexpr Result<void> Layout::slice_in_place(std::size_t dim, std::ptrdiff_t start,
                                              std::ptrdiff_t stop, std::ptrdiff_t step) {
  if (dim >= rank()) return ShapeError::axis_out_of_range("slice", dim, shape_);
  if (step == 0) return ShapeError::invalid_argument("slice", "step must not be zero");
  const detail::SliceRange r = detail::slice_range(shape_[dim], start, stop, step);
  const std::ptrdiff_t stride = strides_[dim];
  if (!empty() && r.count > 0) {
    const auto moved = detail::moved_offset(offset_, r.start, stride);
    if (!moved) return ShapeError::size_overflow("slice", shape_);
    offset_ = *moved;
  }
  shape_[dim] = r.count;
  strides_[dim] = detail::mul_or(stride, step, stride);  // exact when count >= 2
  return {};
}

constexpr Result<void> Layout::flip_in_place(const Shape& dims) {
  std::uint64_t seen = 0;  // rank <= 64: one bit per axis
  for (std::size_t axis : dims) {
    if (axis >= rank()) return ShapeError::axis_out_of_range("flip", axis, shape_);
    const std::uint64_t bit = std::uint64_t{1} << axis;
    if ((seen & bit) != 0) return ShapeError::duplicate_axis("flip", axis, dims);
    seen |= bit;
  }
  std::size_t offset = offset_;  // committed only when every axis has moved it
  for (std::size_t axis : dims) {
    const std::ptrdiff_t stride = strides_[axis];
    if (empty() || shape_[axis] <= 1) continue;
    const auto moved = detail::moved_offset(offset, shape_[axis] - 1, stride);
    if (!moved || stride == std::numeric_limits<std::ptrdiff_t>::min())
      return ShapeError::size_overflow("flip", shape_);
    offset = *moved;
  }
  offset_ = offset;
  for (std::size_t axis : dims) strides_[axis] = detail::mul_or(strides_[axis], -1, strides_[axis]);
  return {};
}

constexpr Result<void> Layout::squeeze_in_place() {
  for (std::size_t k = rank(); k-- > 0;)
    if (shape_[k] == 1) erase_axis(k);
  return {};
}

constexpr Result<void> Layout::squeeze_in_place(std::size_t dim) {
  if (dim >= rank()) return ShapeError::axis_out_of_range("squeeze", dim, shape_);
  if (shape_[dim] != 1)
    return ShapeError::invalid_axis_argument("squeeze", dim, shape_,
                                             "only an axis of size 1 can be squeezed");
  erase_axis(dim);
  return {};
}

constexpr bool Layout::unsqueeze_plain(std::size_t dim) noexcept {
  const std::size_t n = rank();
  if (dim > n || n + 1 > shape_.capacity() || n + 1 > strides_.capacity() || n + 1 > max_rank)
    return false;
  std::ptrdiff_t stride = 1;
  if (dim < n && shape_[dim] <= static_cast<std::size_t>(detail::max_index))
    stride = detail::mul_or(static_cast<std::ptrdiff_t>(shape_[dim]), strides_[dim], 0);
  shape_.insert(dim, 1);  // within the capacity: cannot allocate
  strides_.insert(dim, stride);
  return true;
}

constexpr Result<void> Layout::unsqueeze_in_place(std::size_t dim) {
  if (unsqueeze_plain(dim)) return {};
  if (dim > rank()) return ShapeError::axis_out_of_range("unsqueeze", dim, shape_);
  if (rank() >= max_rank) return ShapeError::rank_too_large("unsqueeze", rank() + 1);
  std::ptrdiff_t stride = 1;
  if (dim < rank() && shape_[dim] <= static_cast<std::size_t>(detail::max_index))
    stride = detail::mul_or(static_cast<std::ptrdiff_t>(shape_[dim]), strides_[dim], 0);
  return detail::guard_allocations("unsqueeze", [&]() -> Result<void> {
    shape_.reserve(rank() + 1);  // the only steps that can throw, before any change
    strides_.reserve(rank() + 1);
    shape_.insert(dim, 1);
    strides_.insert(dim, stride);
    return {};
  });
}

constexpr Result<void> Layout::select_in_place(std::size_t dim, std::size_t index) {
  if (dim >= rank()) return ShapeError::axis_out_of_range("select", dim, shape_);
  if (index >= shape_[dim]) return ShapeError::index_out_of_range("select", dim, index, shape_);
  // As narrow: a layout without elements keeps its offset only when the moved one would not fit.
  if (!advance_offset(index, strides_[dim])) return ShapeError::size_overflow("select", shape_);
  erase_axis(dim);
  return {};
}

constexpr bool Layout::flatten_plain(std::size_t first, std::size_t last) noexcept {
  const std::size_t n = rank();
  if (first > last || last >= n) return false;
  // Through pointers: a store to a size could alias the vectors' own counts for the compiler.
  std::size_t* sizes = shape_.data();
  std::ptrdiff_t* steps = strides_.data();
  bool plain = true, overflow = false;  // no branch per axis
  for (std::size_t k = 0; k < n; ++k) plain &= sizes[k] > 1;
  std::size_t merged = sizes[last];
  for (std::size_t k = first; k < last; ++k) {
    std::ptrdiff_t whole = 0;
    overflow |= __builtin_mul_overflow(merged, sizes[k], &merged);
    plain &=
        !__builtin_mul_overflow(steps[k + 1], static_cast<std::ptrdiff_t>(sizes[k + 1]), &whole) &
        (whole == steps[k]);
  }
  if (!plain || overflow) return false;
  sizes[first] = merged;
  steps[first] = steps[last];
  // erase, not a loop over the pointers, which GCC turns into two calls to memmove.
  shape_.erase(first + 1, last + 1);
  strides_.erase(first + 1, last + 1);
  return true;
}

constexpr Result<void> Layout::flatten_in_place(std::size_t first, std::size_t last) {
  if (flatten_plain(first, last)) return {};
  return detail::guard_allocations("flatten", [&]() -> Result<void> {
    if (rank() == 0) {
      if (first != 0) return ShapeError::axis_out_of_range("flatten", first, shape_);
      if (last != 0) return ShapeError::axis_out_of_range("flatten", last, shape_);
      shape_.push_back(1);  // within the inline capacity: cannot throw
      strides_.push_back(1);
      return {};
    }
    if (first >= rank()) return ShapeError::axis_out_of_range("flatten", first, shape_);
    if (last >= rank()) return ShapeError::axis_out_of_range("flatten", last, shape_);
    if (first > last)
      return ShapeError::invalid_argument("flatten", "the first axis must not come after the last");
    std::size_t merged = 1;  // may overflow when another axis is 0 (numel 0 fits regardless)
    for (std::size_t k = first; k <= last; ++k)
      if (__builtin_mul_overflow(merged, shape_[k], &merged))
        return ShapeError::size_overflow("flatten", shape_);
    if (detail::row_major_numel(shape_, strides_)) {
      // Row-major stays row-major: the merged axis takes the stride of the last one it merges.
      shape_[first] = merged;
      strides_[first] = strides_[last];
      shape_.erase(first + 1, last + 1);
      strides_.erase(first + 1, last + 1);
      return {};
    }
    Shape shape;
    for (std::size_t k = 0; k < first; ++k) shape.push_back(shape_[k]);
    shape.push_back(merged);
    for (std::size_t k = last + 1; k < rank(); ++k) shape.push_back(shape_[k]);
    return reshape_general(shape);  // not row-major: checked above
  });
}

constexpr bool Layout::unflatten_from(const Layout& from, std::size_t dim,
                                      const Shape& sizes) noexcept {
  const std::size_t n = from.rank(), parts = sizes.size(), m = n - 1 + parts;
  // Every vector holds inline_rank entries without allocating: a bound that, unlike this copy's
  // capacities, is known without waiting for the copy's stores. Larger results take the general
  // path.
  if (dim >= n || parts == 0 || m > inline_rank) return false;
  // Read from `from`, not from this copy of it: the loads then need not wait for the copy's
  // stores. Through pointers: a store to a size could alias the vectors' own counts.
  const std::size_t *sizes_in = sizes.data(), *old_sizes = from.shape_.data();
  const std::ptrdiff_t* old_steps = from.strides_.data();
  std::size_t* out_sizes = shape_.data();
  std::ptrdiff_t* out_steps = strides_.data();
  // The smallest size, old or new, decides whether any is 0 or 1 (`infer`, the largest value,
  // never is): a compare and a select per axis, no branch.
  std::size_t known = 1, inferred = parts, smallest = infer;  // known: the sizes given's product
  bool twice = false, overflow = false;
  for (std::size_t k = 0; k < parts; ++k) {
    const std::size_t size = sizes_in[k];
    smallest = std::min(smallest, size);
    if (size == infer) {
      twice |= inferred != parts;
      inferred = k;
      continue;
    }
    overflow |= __builtin_mul_overflow(known, size, &known);
  }
  // One pass checks every old axis and moves those after dim out (the copy holds those before
  // it already; dim's own entry is overwritten below). The index is not affine in k, so GCC
  // keeps this a plain loop rather than a vector one behind a runtime overlap check.
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t to = k > dim ? k + parts - 1 : k;
    smallest = std::min(smallest, old_sizes[k]);
    out_sizes[to] = old_sizes[k];
    out_steps[to] = old_steps[k];
  }
  const bool plain = smallest > 1 && !twice;
  if (!plain || overflow) return false;
  const std::size_t whole = old_sizes[dim];
  const bool infers = inferred != parts;
  // A split by a power of two (the common case) shifts: a 64-bit division's latency would be on
  // the path of every stride written after it. known * missing <= whole either way.
  const bool shifts = (known & (known - 1)) == 0;
  const std::size_t missing = !infers  ? 1
                              : shifts ? whole >> __builtin_ctzll(known)
                                       : whole / known;
  if (known * missing != whole || (infers && missing < 2)) return false;
  shape_.resize_for_overwrite(m);  // within the capacity; every new entry is written
  strides_.resize_for_overwrite(m);
  // Each stride is step times sizes whose product is below `whole`: the layout reaches
  // step * (whole - 1), so none overflows.
  std::ptrdiff_t inner = old_steps[dim];
  for (std::size_t k = parts; k-- > 0;) {
    const std::size_t size = k == inferred ? missing : sizes_in[k];
    out_sizes[dim + k] = size;
    out_steps[dim + k] = inner;
    if (k != 0) inner *= static_cast<std::ptrdiff_t>(size);
  }
  return true;
}

constexpr Result<void> Layout::unflatten_in_place(std::size_t dim, const Shape& sizes) {
  // A result past inline_rank skips the quick path's copy: unflatten_from would decline it.
  if (&sizes != &shape_ && rank() + sizes.size() <= inline_rank + 1 &&
      rebuilt([&](const Layout& old) { return unflatten_from(old, dim, sizes); }))
    return {};
  return detail::guard_allocations_cold("unflatten", [&]() -> Result<void> {
    if (dim >= rank()) return ShapeError::axis_out_of_range("unflatten", dim, shape_);
    if (sizes.empty()) return ShapeError::invalid_argument("unflatten", "sizes must not be empty");
    if (rank() - 1 + sizes.size() > max_rank)
      return ShapeError::rank_too_large("unflatten", rank() - 1 + sizes.size());
    auto resolved = detail::resolve_infer(sizes, shape_[dim], "unflatten");
    if (!resolved) return std::move(resolved).error();
    const auto n = detail::checked_numel(*resolved);
    if (!n) return ShapeError::size_overflow("unflatten", *resolved);
    if (*n != shape_[dim])
      return ShapeError::element_count_mismatch("unflatten", shape_[dim], *resolved);
    Shape shape;
    for (std::size_t k = 0; k < rank(); ++k) {
      if (k != dim) {
        shape.push_back(shape_[k]);
        continue;
      }
      for (std::size_t size : *resolved) shape.push_back(size);
    }
    return reshape_exact_in_place(shape);
  });
}

constexpr Result<void> Layout::movedim_in_place(std::size_t src, std::size_t dst) {
  if (src >= rank()) return ShapeError::axis_out_of_range("movedim", src, shape_);
  if (dst >= rank()) return ShapeError::axis_out_of_range("movedim", dst, shape_);
  shape_.move_entry(src, dst);
  strides_.move_entry(src, dst);
  return {};
}

constexpr bool Layout::diagonal_from(const Layout& from, std::ptrdiff_t offset, std::size_t d0,
                                     std::size_t d1) noexcept {
  const std::size_t n = from.rank();
  if (d0 >= n || d1 >= n || d0 == d1) return false;
  const std::size_t* old_sizes = from.shape_.data();
  const std::ptrdiff_t* old_steps = from.strides_.data();
  // The diagonal starts `shift` down d0 (offset < 0) or along d1 (offset > 0).
  const std::size_t shift =
      offset < 0 ? 0 - static_cast<std::size_t>(offset) : static_cast<std::size_t>(offset);
  const std::size_t row = offset < 0 ? shift : 0, col = offset > 0 ? shift : 0;
  const std::size_t n0 = old_sizes[d0], n1 = old_sizes[d1];
  const std::size_t len = n0 > row && n1 > col ? std::min(n0 - row, n1 - col) : 0;
  if (shift != 0 && len != 0 && !from.empty()) {
    const auto down = detail::moved_offset(from.offset_, row, old_steps[d0]);
    const auto moved = down ? detail::moved_offset(*down, col, old_steps[d1]) : std::nullopt;
    if (!moved) return false;
    offset_ = *moved;
  }
  std::ptrdiff_t step = 0;  // exact when len >= 2: the layout reaches it
  if (__builtin_add_overflow(old_steps[d0], old_steps[d1], &step)) step = 0;
  // One pass over this layout's own entries (a copy of from's: reading them, not from's, spares
  // GCC a check that the two do not overlap) from the first of d0 and d1 closes their gaps.
  // Through pointers: a store to a size could alias the vectors' own counts for the compiler.
  std::size_t* sizes = shape_.data();
  std::ptrdiff_t* steps = strides_.data();
  const std::size_t hi = std::max(d0, d1);
  std::size_t kept = std::min(d0, d1);
  for (std::size_t k = kept + 1; k < n; ++k) {
    if (k == hi) continue;
    sizes[kept] = sizes[k];
    steps[kept] = steps[k];
    ++kept;
  }
  sizes[n - 2] = len;  // the diagonal, last
  steps[n - 2] = step;
  shape_.resize(n - 1);  // shrinking: cannot throw
  strides_.resize(n - 1);
  return true;
}

constexpr Result<void> Layout::diagonal_in_place(std::ptrdiff_t offset, std::size_t d0,
                                                 std::size_t d1) {
  if (rebuilt([&](const Layout& old) { return diagonal_from(old, offset, d0, d1); })) return {};
  return detail::guard_allocations_cold("diagonal", [&]() -> Result<void> {
    if (d0 >= rank()) return ShapeError::axis_out_of_range("diagonal", d0, shape_);
    if (d1 >= rank()) return ShapeError::axis_out_of_range("diagonal", d1, shape_);
    if (d0 == d1) return ShapeError::duplicate_axis("diagonal", d0, Shape{d0, d1});
    const Layout old = *this;  // past inline_rank: may throw, before any change
    if (diagonal_from(old, offset, d0, d1)) return {};
    *this = old;
    // The first element's offset: one the layout reaches whenever the diagonal has elements, so
    // this error needs a layout that breaks the invariant; kept rather than trusted.
    return ShapeError::size_overflow("diagonal", shape_);
  });
}

}  // namespace strided

#if STRIDED_HEADER_ONLY
#include "strided/layout_pieces-inl.hpp"
#endif
