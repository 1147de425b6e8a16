// The extended view algebra: stepped and reversed slices, flips, squeeze/unsqueeze, select,
// flatten/unflatten, movedim, diagonal and split/chunk/unbind, as free constexpr functions on
// Layout (namespace strided::layout_ops). Tensor's members of the same names call them. Each one
// returns new layouts and touches no data; none can produce a layout reaching an element its
// input did not reach.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

/// An omitted slice bound (Python's `None`). As `stop`: past the last element in the step's
/// direction (the axis end for a positive step, before index 0 for a negative one). As `start`:
/// the first element in the step's direction (0, or the last index for a negative step).
inline constexpr std::ptrdiff_t end = std::numeric_limits<std::ptrdiff_t>::min();

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
    if (bound == end) return is_start ? (s > 0 ? 0 : n - 1) : (s > 0 ? n : -1);
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

/// Write access to a layout's parts. The functions below only derive sub-layouts of a valid
/// layout (every element of the result is an element of the input, the rank is checked), so
/// Layout's invariants hold without from_parts's re-checks; building the result in a copy of the
/// input, in place, keeps each view op as cheap as Layout::transpose.
struct LayoutAccess {
  static constexpr Shape& shape(Layout& l) noexcept { return l.shape_; }
  static constexpr Strides& strides(Layout& l) noexcept { return l.strides_; }
  static constexpr std::size_t& offset(Layout& l) noexcept { return l.offset_; }
  /// Removes axis `dim`.
  static constexpr void erase(Layout& l, std::size_t dim) {
    l.shape_.erase(dim);
    l.strides_.erase(dim);
  }
};

}  // namespace detail

namespace layout_ops {

/// Elements start, start + step, ... before stop along `dim`, with Python's semantics: negative
/// bounds count from the end, out-of-range bounds clamp, a negative step walks backwards, `end`
/// is an omitted bound. A zero step is invalid_argument.
constexpr Result<Layout> slice(const Layout& in, std::size_t dim, std::ptrdiff_t start,
                               std::ptrdiff_t stop = end, std::ptrdiff_t step = 1) {
  return detail::guard_allocations("slice", [&]() -> Result<Layout> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("slice", dim, in.shape());
    if (step == 0) return ShapeError::invalid_argument("slice", "step must not be zero");
    using A = detail::LayoutAccess;
    const detail::SliceRange r = detail::slice_range(in.shape()[dim], start, stop, step);
    const std::ptrdiff_t stride = in.strides()[dim];
    Layout out = in;
    if (!in.empty() && r.count > 0) {
      const auto moved = detail::moved_offset(in.offset(), r.start, stride);
      if (!moved) return ShapeError::size_overflow("slice", in.shape());
      A::offset(out) = *moved;
    }
    A::shape(out)[dim] = r.count;
    A::strides(out)[dim] = detail::mul_or(stride, step, stride);  // exact when count >= 2
    return out;
  });
}

/// Reverses every axis named in `dims` (each at most once: duplicate_axis otherwise): for each,
/// the offset moves to the axis's last element and its stride changes sign.
constexpr Result<Layout> flip(const Layout& in, const Shape& dims) {
  return detail::guard_allocations("flip", [&]() -> Result<Layout> {
    using A = detail::LayoutAccess;
    std::uint64_t seen = 0;  // rank <= 64: one bit per axis
    for (std::size_t axis : dims) {
      if (axis >= in.rank()) return ShapeError::axis_out_of_range("flip", axis, in.shape());
      const std::uint64_t bit = std::uint64_t{1} << axis;
      if ((seen & bit) != 0) return ShapeError::duplicate_axis("flip", axis, dims);
      seen |= bit;
    }
    Layout out = in;
    for (std::size_t axis : dims) {
      const std::size_t size = in.shape()[axis];
      const std::ptrdiff_t stride = in.strides()[axis];
      if (!in.empty() && size > 1) {
        const auto moved = detail::moved_offset(A::offset(out), size - 1, stride);
        if (!moved || stride == std::numeric_limits<std::ptrdiff_t>::min())
          return ShapeError::size_overflow("flip", in.shape());
        A::offset(out) = *moved;
      }
      A::strides(out)[axis] = detail::mul_or(stride, -1, stride);
    }
    return out;
  });
}

/// Reverses axis `dim`.
constexpr Result<Layout> flip(const Layout& in, std::size_t dim) { return flip(in, Shape{dim}); }

/// Removes every axis of size 1.
constexpr Result<Layout> squeeze(const Layout& in) {
  return detail::guard_allocations("squeeze", [&]() -> Result<Layout> {
    Layout out = in;
    for (std::size_t k = in.rank(); k-- > 0;)
      if (in.shape()[k] == 1) detail::LayoutAccess::erase(out, k);
    return out;
  });
}

/// Removes axis `dim`, which must have size 1 (invalid_argument otherwise, as NumPy; PyTorch
/// silently returns the input instead).
constexpr Result<Layout> squeeze(const Layout& in, std::size_t dim) {
  return detail::guard_allocations("squeeze", [&]() -> Result<Layout> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("squeeze", dim, in.shape());
    if (in.shape()[dim] != 1)
      return ShapeError::invalid_axis_argument("squeeze", "only an axis of size 1 can be squeezed",
                                               dim, in.shape());
    Layout out = in;
    detail::LayoutAccess::erase(out, dim);
    return out;
  });
}

/// Inserts an axis of size 1 before axis `dim` (dim == rank appends). Its stride is PyTorch's:
/// size * stride of the axis it precedes, 1 at the end (any value would do).
constexpr Result<Layout> unsqueeze(const Layout& in, std::size_t dim) {
  return detail::guard_allocations("unsqueeze", [&]() -> Result<Layout> {
    if (dim > in.rank()) return ShapeError::axis_out_of_range("unsqueeze", dim, in.shape());
    if (in.rank() >= max_rank) return ShapeError::rank_too_large("unsqueeze", in.rank() + 1);
    std::ptrdiff_t stride = 1;
    if (dim < in.rank() && in.shape()[dim] <= static_cast<std::size_t>(detail::max_index))
      stride = detail::mul_or(static_cast<std::ptrdiff_t>(in.shape()[dim]), in.strides()[dim], 0);
    Layout out = in;
    detail::LayoutAccess::shape(out).insert(dim, 1);
    detail::LayoutAccess::strides(out).insert(dim, stride);
    return out;
  });
}

/// The sub-layout at `index` along `dim`, without that axis (NumPy's integer index).
constexpr Result<Layout> select(const Layout& in, std::size_t dim, std::size_t index) {
  return detail::guard_allocations("select", [&]() -> Result<Layout> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("select", dim, in.shape());
    if (index >= in.shape()[dim])
      return ShapeError::index_out_of_range("select", dim, index, in.shape());
    Layout out = in;
    if (!in.empty()) {
      const auto moved = detail::moved_offset(in.offset(), index, in.strides()[dim]);
      if (!moved) return ShapeError::size_overflow("select", in.shape());
      detail::LayoutAccess::offset(out) = *moved;
    }
    detail::LayoutAccess::erase(out, dim);
    return out;
  });
}

/// Merges axes first..last (inclusive) into one, as a zero-copy reshape (non_contiguous_reshape
/// when the axes are not stride-compatible). A rank-0 layout flattens to shape [1].
constexpr Result<Layout> flatten(const Layout& in, std::size_t first, std::size_t last) {
  return detail::guard_allocations("flatten", [&]() -> Result<Layout> {
    if (in.rank() == 0) {
      if (first != 0) return ShapeError::axis_out_of_range("flatten", first, in.shape());
      if (last != 0) return ShapeError::axis_out_of_range("flatten", last, in.shape());
      Layout out = in;
      detail::LayoutAccess::shape(out).push_back(1);
      detail::LayoutAccess::strides(out).push_back(1);
      return out;
    }
    if (first >= in.rank()) return ShapeError::axis_out_of_range("flatten", first, in.shape());
    if (last >= in.rank()) return ShapeError::axis_out_of_range("flatten", last, in.shape());
    if (first > last)
      return ShapeError::invalid_argument("flatten", "the first axis must not come after the last");
    Shape shape;
    for (std::size_t k = 0; k < first; ++k) shape.push_back(in.shape()[k]);
    std::size_t merged = 1;  // may overflow when another axis is 0 (numel 0 fits regardless)
    for (std::size_t k = first; k <= last; ++k)
      if (__builtin_mul_overflow(merged, in.shape()[k], &merged))
        return ShapeError::size_overflow("flatten", in.shape());
    shape.push_back(merged);
    for (std::size_t k = last + 1; k < in.rank(); ++k) shape.push_back(in.shape()[k]);
    auto out = in.reshape_exact(shape);
    if (!out) return out.error().in("flatten");
    return out;
  });
}

/// Splits axis `dim` into axes of `sizes` (one of them may be `infer`); their product must be
/// the axis size (element_count_mismatch). Always a view: splitting an axis needs no copy.
constexpr Result<Layout> unflatten(const Layout& in, std::size_t dim, const Shape& sizes) {
  return detail::guard_allocations("unflatten", [&]() -> Result<Layout> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("unflatten", dim, in.shape());
    if (sizes.empty()) return ShapeError::invalid_argument("unflatten", "sizes must not be empty");
    if (in.rank() - 1 + sizes.size() > max_rank)
      return ShapeError::rank_too_large("unflatten", in.rank() - 1 + sizes.size());
    auto resolved = detail::resolve_infer(sizes, in.shape()[dim], "unflatten");
    if (!resolved) return resolved.error();
    const auto n = detail::checked_numel(*resolved);
    if (!n) return ShapeError::size_overflow("unflatten", *resolved);
    if (*n != in.shape()[dim])
      return ShapeError::element_count_mismatch("unflatten", *resolved, in.shape()[dim]);
    Shape shape;
    for (std::size_t k = 0; k < in.rank(); ++k) {
      if (k != dim) {
        shape.push_back(in.shape()[k]);
        continue;
      }
      for (std::size_t size : *resolved) shape.push_back(size);
    }
    auto out = in.reshape_exact(shape);
    if (!out) return out.error().in("unflatten");
    return out;
  });
}

/// Moves axis `src` to position `dst`, keeping the order of the others.
constexpr Result<Layout> movedim(const Layout& in, std::size_t src, std::size_t dst) {
  return detail::guard_allocations("movedim", [&]() -> Result<Layout> {
    if (src >= in.rank()) return ShapeError::axis_out_of_range("movedim", src, in.shape());
    if (dst >= in.rank()) return ShapeError::axis_out_of_range("movedim", dst, in.shape());
    Shape perm;
    for (std::size_t k = 0; k < in.rank(); ++k)
      if (k != src) perm.push_back(k);
    perm.insert(dst, src);
    return in.permute(perm);
  });
}

/// The diagonal of axes d0 and d1 (offset > 0: above the main diagonal, along d1; < 0: below),
/// as a new last axis; d0 and d1 are removed (NumPy's and PyTorch's convention). An offset past
/// the matrix gives an empty axis.
constexpr Result<Layout> diagonal(const Layout& in, std::ptrdiff_t offset = 0, std::size_t d0 = 0,
                                  std::size_t d1 = 1) {
  return detail::guard_allocations("diagonal", [&]() -> Result<Layout> {
    if (d0 >= in.rank()) return ShapeError::axis_out_of_range("diagonal", d0, in.shape());
    if (d1 >= in.rank()) return ShapeError::axis_out_of_range("diagonal", d1, in.shape());
    if (d0 == d1) return ShapeError::duplicate_axis("diagonal", d0, Shape{d0, d1});
    const detail::view_int n0 = in.shape()[d0], n1 = in.shape()[d1], off = offset;
    const detail::view_int row = off < 0 ? -off : 0, col = off > 0 ? off : 0;
    const detail::view_int len = std::max<detail::view_int>(0, std::min(n0 - row, n1 - col));
    using A = detail::LayoutAccess;
    Layout out = in;
    if (!in.empty() && len > 0) {
      const auto down =
          detail::moved_offset(in.offset(), static_cast<std::size_t>(row), in.strides()[d0]);
      const auto moved =
          down ? detail::moved_offset(*down, static_cast<std::size_t>(col), in.strides()[d1])
               : std::nullopt;
      if (!moved) return ShapeError::size_overflow("diagonal", in.shape());
      A::offset(out) = *moved;
    }
    std::ptrdiff_t step = 0;  // exact when len >= 2: the layout reaches it
    if (__builtin_add_overflow(in.strides()[d0], in.strides()[d1], &step)) step = 0;
    A::erase(out, std::max(d0, d1));
    A::erase(out, std::min(d0, d1));
    A::shape(out).push_back(static_cast<std::size_t>(len));
    A::strides(out).push_back(step);
    return out;
  });
}

/// Pieces of `size` elements along `dim`, the last one shorter when `size` does not divide the
/// axis (PyTorch's split). An axis of size 0 gives one empty piece; otherwise a zero size is
/// invalid_argument.
inline Result<std::vector<Layout>> split(const Layout& in, std::size_t dim, std::size_t size) {
  return detail::guard_allocations("split", [&]() -> Result<std::vector<Layout>> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("split", dim, in.shape());
    const std::size_t total = in.shape()[dim];
    std::vector<Layout> out;
    if (total == 0) {
      out.push_back(in);
      return out;
    }
    if (size == 0) return ShapeError::invalid_argument("split", "the piece size must not be zero");
    out.reserve(total / size + 1);
    for (std::size_t start = 0; start < total; start += std::min(size, total - start)) {
      auto piece = in.narrow(dim, start, std::min(size, total - start));
      if (!piece) return piece.error().in("split");
      out.push_back(std::move(*piece));
    }
    return out;
  });
}

/// At most `n` pieces of equal size ceil(axis / n) along `dim`, the last one possibly shorter,
/// so fewer than `n` when they run out (PyTorch's chunk). An axis of size 0 gives `n` empty
/// pieces. n == 0 is invalid_argument.
inline Result<std::vector<Layout>> chunk(const Layout& in, std::size_t dim, std::size_t n) {
  return detail::guard_allocations("chunk", [&]() -> Result<std::vector<Layout>> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("chunk", dim, in.shape());
    if (n == 0)
      return ShapeError::invalid_argument("chunk", "the number of chunks must not be zero");
    const std::size_t total = in.shape()[dim];
    if (total == 0) return std::vector<Layout>(n, in);
    auto out = split(in, dim, total / n + (total % n != 0 ? 1 : 0));
    if (!out) return out.error().in("chunk");
    return out;
  });
}

/// Every index of `dim` selected in turn: the axis's sub-layouts, in order.
inline Result<std::vector<Layout>> unbind(const Layout& in, std::size_t dim) {
  return detail::guard_allocations("unbind", [&]() -> Result<std::vector<Layout>> {
    if (dim >= in.rank()) return ShapeError::axis_out_of_range("unbind", dim, in.shape());
    std::vector<Layout> out;
    out.reserve(in.shape()[dim]);
    for (std::size_t i = 0; i < in.shape()[dim]; ++i) {
      auto piece = select(in, dim, i);
      if (!piece) return piece.error().in("unbind");
      out.push_back(std::move(*piece));
    }
    return out;
  });
}

}  // namespace layout_ops

}  // namespace strided
