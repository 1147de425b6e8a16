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

#include "strided/error.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

namespace detail {

inline constexpr auto max_index = std::numeric_limits<std::ptrdiff_t>::max();

/// The product of the sizes, or nullopt when it overflows std::size_t.
constexpr std::optional<std::size_t> checked_numel(std::span<const std::size_t> shape) noexcept {
  std::size_t n = 1;
  bool overflow = false;
  for (std::size_t size : shape) {
    if (size == 0) return 0;  // no elements, whatever the order of the other sizes
    overflow |= __builtin_mul_overflow(n, size, &n);
  }
  if (overflow) return std::nullopt;
  return n;
}

/// Lowest and highest storage index a layout reaches, relative to its offset.
struct Reach {
  std::ptrdiff_t low = 0;
  std::ptrdiff_t high = 0;
};

/// The reach of shape/strides, or nullopt when a term overflows std::ptrdiff_t. Meaningful only
/// for layouts with elements.
constexpr std::optional<Reach> checked_reach(std::span<const std::size_t> shape,
                                             std::span<const std::ptrdiff_t> strides) noexcept {
  Reach r;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0) return Reach{};
    if (strides[k] == 0) continue;  // a broadcast axis of any size reaches nothing new
    std::ptrdiff_t last = 0;
    if (shape[k] - 1 > static_cast<std::size_t>(max_index)) return std::nullopt;
    if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(shape[k] - 1), strides[k], &last))
      return std::nullopt;
    std::ptrdiff_t& side = last < 0 ? r.low : r.high;
    if (__builtin_add_overflow(side, last, &side)) return std::nullopt;
  }
  return r;
}

/// Row-major strides of `shape`, or nullopt when one overflows std::ptrdiff_t. Sizes multiply as
/// they are: an axis of size 0 makes every outer stride 0, as in the reference document (such a
/// layout reaches no element).
constexpr std::optional<Strides> row_major_strides(const Shape& shape) {
  Strides strides(shape.size(), 0);
  std::ptrdiff_t step = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    strides[k] = step;
    if (step == 0) continue;  // outside a size-0 axis every stride is 0, whatever the sizes
    if (shape[k] > static_cast<std::size_t>(max_index) ||
        __builtin_mul_overflow(step, static_cast<std::ptrdiff_t>(shape[k]), &step))
      return std::nullopt;
  }
  return strides;
}

}  // namespace detail

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
  if (numel % others != 0) return ShapeError::infer_mismatch(op, shape, numel, others);
  Shape out = shape;
  out[inferred] = numel / others;
  return out;
}

struct LayoutAccess;  // the view algebra of layout_views.hpp (builds sub-layouts in place)

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
      if (start + r.low < 0)
        return ShapeError::storage_out_of_bounds(op, shape_, 0, storage_len, true);
      const auto last = static_cast<std::size_t>(start + r.high);
      if (last >= storage_len)
        return ShapeError::storage_out_of_bounds(op, shape_, last, storage_len, false);
      return {};
    });
  }

  /// Swaps axes d0 and d1.
  constexpr Result<Layout> transpose(std::size_t d0, std::size_t d1) const {
    return detail::guard_allocations("transpose", [&]() -> Result<Layout> {
      if (d0 >= rank()) return ShapeError::axis_out_of_range("transpose", d0, shape_);
      if (d1 >= rank()) return ShapeError::axis_out_of_range("transpose", d1, shape_);
      Layout out = *this;
      std::swap(out.shape_[d0], out.shape_[d1]);
      std::swap(out.strides_[d0], out.strides_[d1]);
      return out;
    });
  }

  /// Reorders the axes: output axis k is input axis perm[k] (ONNX Transpose convention).
  constexpr Result<Layout> permute(const Shape& perm) const {
    return detail::guard_allocations("permute", [&]() -> Result<Layout> {
      if (perm.size() != rank()) return ShapeError::rank_mismatch("permute", rank(), perm.size());
      std::uint64_t seen = 0;  // rank <= 64: one bit per axis
      for (std::size_t axis : perm) {
        if (axis >= rank()) return ShapeError::axis_out_of_range("permute", axis, shape_);
        const std::uint64_t bit = std::uint64_t{1} << axis;
        if ((seen & bit) != 0) return ShapeError::duplicate_axis("permute", axis, perm);
        seen |= bit;
      }
      Layout out = *this;
      for (std::size_t k = 0; k < rank(); ++k) {
        out.shape_[k] = shape_[perm[k]];
        out.strides_[k] = strides_[perm[k]];
      }
      return out;
    });
  }

  /// Keeps [start, start + length) of axis `dim`.
  constexpr Result<Layout> narrow(std::size_t dim, std::size_t start, std::size_t length) const {
    return detail::guard_allocations("narrow", [&]() -> Result<Layout> {
      if (dim >= rank()) return ShapeError::axis_out_of_range("narrow", dim, shape_);
      if (start > shape_[dim] || length > shape_[dim] - start)
        return ShapeError::range_out_of_range("narrow", dim, start, length, shape_);
      Layout out = *this;
      out.shape_[dim] = length;
      if (!out.advance_offset(start, strides_[dim]))
        return ShapeError::size_overflow("narrow", shape_);
      return out;
    });
  }

  /// The same elements under a new shape, without copying: possible when every run of old axes
  /// merged into one new axis is stride-compatible (NumPy's no-copy reshape, PyTorch's view()).
  /// One size may be `infer`.
  constexpr Result<Layout> reshape(const Shape& requested) const {
    return detail::guard_allocations("reshape", [&]() -> Result<Layout> {
      if (std::find(requested.begin(), requested.end(), infer) == requested.end())
        return reshape_exact(requested);  // the common case, without copying the shape
      auto resolved = detail::resolve_infer(requested, numel(), "reshape");
      if (!resolved) return std::move(resolved).error();
      return reshape_exact(*resolved);
    });
  }

  /// reshape() with every size taken literally (no `infer`): for callers whose shapes may hold
  /// a genuine size of SIZE_MAX, such as a broadcast axis.
  constexpr Result<Layout> reshape_exact(const Shape& new_shape) const {
    return detail::guard_allocations("reshape", [&]() -> Result<Layout> {
      if (new_shape.size() > max_rank)
        return ShapeError::rank_too_large("reshape", new_shape.size());
      const auto n = detail::checked_numel(new_shape);
      if (!n) return ShapeError::size_overflow("reshape", new_shape);
      const std::size_t old_n = numel();
      if (*n != old_n) return ShapeError::element_count_mismatch("reshape", new_shape, old_n);
      if (*n <= 1 || is_contiguous()) {
        // Row-major data stays row-major (and 0 or 1 element has no order to preserve).
        auto strides = detail::row_major_strides(new_shape);
        if (!strides) return ShapeError::size_overflow("reshape", new_shape);
        return Layout(new_shape, std::move(*strides), offset_);
      }
      std::optional<Strides> strides = view_strides(new_shape);
      if (!strides) return ShapeError::non_contiguous_reshape("reshape", shape_, new_shape);
      return Layout(new_shape, std::move(*strides), offset_);
    });
  }

  /// Broadcasts to `target` by NumPy's rules: right-aligned, size-1 axes and new leading axes get
  /// stride 0. A target of lower rank is incompatible.
  constexpr Result<Layout> broadcast_to(const Shape& target) const {
    return detail::guard_allocations("broadcast_to", [&]() -> Result<Layout> {
      if (target.size() > max_rank)
        return ShapeError::rank_too_large("broadcast_to", target.size());
      if (target.size() < rank())
        return ShapeError::broadcast_incompatible("broadcast_to", shape_, target);
      if (!detail::checked_numel(target)) return ShapeError::size_overflow("broadcast_to", target);
      const std::size_t lead = target.size() - rank();
      Layout out(target, Strides(target.size(), 0), offset_);
      for (std::size_t k = 0; k < rank(); ++k) {
        if (shape_[k] == target[lead + k])
          out.strides_[lead + k] = shape_[k] == 1 ? 0 : strides_[k];
        else if (shape_[k] != 1)
          return ShapeError::broadcast_incompatible("broadcast_to", shape_, target);
      }
      return out;
    });
  }

 private:
  constexpr Layout(Shape shape, Strides strides, std::size_t offset)
      : shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset) {}

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

  friend struct detail::LayoutAccess;

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
