// TensorSpan<T>: a mutable strided view over the caller's memory (pointer + shape + signed
// strides + offset), the destination of Tensor::copy_to, cast_into and the other *_into forms.
// The one mutable view of the library: a Tensor never changes, a TensorSpan is where results go.
// docs/destinations.md has the rules beside NumPy's np.copyto and PyTorch's copy_.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/row_major.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"
#include "strided/view_ops.hpp"

namespace strided {

namespace detail {

/// True when no two indices of `layout` reach one element. Conservative: the axes of size > 1,
/// smallest |stride| first, must nest (each |stride| exceeds the reach of the smaller axes), which
/// every slice, permutation, flip and reshape of a dense buffer satisfies; an interleaving that
/// happens to be disjoint (shape [3, 2], strides [2, 3]) is rejected too.
inline bool is_non_overlapping(const Layout& layout) {
  if (layout.empty()) return true;
  std::size_t sizes[max_rank];
  std::ptrdiff_t steps[max_rank];
  std::size_t n = 0;
  for (std::size_t k = 0; k < layout.rank(); ++k) {
    if (layout.shape()[k] == 1) continue;
    sizes[n] = layout.shape()[k];
    steps[n++] = layout.strides()[k] < 0 ? -layout.strides()[k] : layout.strides()[k];
  }
  // Insertion sort by step: at most max_rank axes.
  for (std::size_t i = 1; i < n; ++i)
    for (std::size_t j = i; j > 0 && steps[j] < steps[j - 1]; --j) {
      std::swap(steps[j], steps[j - 1]);
      std::swap(sizes[j], sizes[j - 1]);
    }
  std::ptrdiff_t reached = 0;  // the largest offset the smaller axes reach (fits: from_parts)
  for (std::size_t k = 0; k < n; ++k) {
    if (steps[k] <= reached) return false;
    reached += static_cast<std::ptrdiff_t>(sizes[k] - 1) * steps[k];
  }
  return true;
}

/// The bytes [first, last) a layout over `base` reaches; first == last when it reaches nothing.
struct ByteExtent {
  std::uintptr_t first = 0, last = 0;
};
inline ByteExtent byte_extent(const void* base, const Layout& layout, std::size_t elem_size) {
  if (layout.empty()) return {};
  const Reach r = layout.reach();
  const auto at = reinterpret_cast<std::uintptr_t>(base);
  const auto low = static_cast<std::ptrdiff_t>(layout.offset()) + r.low;
  const auto high = static_cast<std::ptrdiff_t>(layout.offset()) + r.high;
  return {at + static_cast<std::uintptr_t>(low) * elem_size,
          at + static_cast<std::uintptr_t>(high + 1) * elem_size};
}
/// The bytes of a dense span.
template <class X>
ByteExtent span_extent(std::span<X> s) {
  const auto at = reinterpret_cast<std::uintptr_t>(s.data());
  return {at, at + s.size_bytes()};
}
/// True when the two extents share a byte (conservative: an interleaving counts as overlap).
inline bool extents_overlap(ByteExtent a, ByteExtent b) noexcept {
  return a.first < a.last && b.first < b.last && a.first < b.last && b.first < a.last;
}

}  // namespace detail

/// A mutable strided view over memory the caller owns: element `i` of the view is
/// `data()[offset() + Σ i_k·strides()[k]]`. Built only by the checked factories (every element
/// lies inside the memory, no two indices reach one element), so writing through it is safe.
/// It does not own the memory: the caller keeps it alive while the span is used. Views (select,
/// narrow, permute, ...) narrow it down like a Tensor's, e.g. to slot k of a [B, C, H, W] batch.
template <Element T>
class TensorSpan : public ViewOps<TensorSpan<T>> {
 public:
  /// A row-major view of all of `memory`: element_count_mismatch unless memory.size() equals the
  /// product of `shape`.
  static Result<TensorSpan> dense(std::span<T> memory, const Shape& shape) {
    return detail::guard_allocations("TensorSpan::dense", [&]() -> Result<TensorSpan> {
      auto layout = detail::row_major_layout_for("TensorSpan::dense", shape, memory.size());
      if (!layout) return std::move(layout).error();
      return TensorSpan(memory, std::move(*layout));
    });
  }

  /// Any layout over `memory` (offset counted from memory.data(), as Tensor::as_strided's):
  /// size_overflow, storage_out_of_bounds when an element lies outside `memory`, memory_overlap
  /// when two indices reach one element (a zero stride on an axis of size > 1, ...).
  static Result<TensorSpan> from_parts(std::span<T> memory, Shape shape, Strides strides,
                                       std::size_t offset) {
    constexpr const char* op = "TensorSpan::from_parts";
    return detail::guard_allocations(op, [&]() -> Result<TensorSpan> {
      auto layout = Layout::from_parts(std::move(shape), std::move(strides), offset, op);
      if (!layout) return std::move(layout).error();
      if (auto fits = layout->check_storage(memory.size(), op); !fits) return fits.error();
      if (!detail::is_non_overlapping(*layout)) return ShapeError::self_overlap(op);
      return TensorSpan(memory, std::move(*layout));
    });
  }

  /// Size of each axis.
  const Shape& shape() const noexcept { return layout_.shape(); }
  /// Step in elements along each axis (signed).
  const Strides& strides() const noexcept { return layout_.strides(); }
  /// Index in memory() of element [0, ..., 0].
  std::size_t offset() const noexcept { return layout_.offset(); }
  /// Shape, strides and offset.
  const Layout& layout() const noexcept { return layout_; }
  /// Number of axes.
  std::size_t rank() const noexcept { return layout_.rank(); }
  /// Number of elements.
  std::size_t numel() const noexcept { return layout_.numel(); }
  /// True when some axis has size 0.
  bool empty() const noexcept { return layout_.empty(); }
  /// Row-major contiguity (Layout::is_contiguous).
  bool is_contiguous() const noexcept { return layout_.is_contiguous(); }
  /// The start of the memory the span was made over (offset() counts from it).
  T* data() const noexcept { return memory_.data(); }
  /// The memory the span was made over.
  std::span<T> memory() const noexcept { return memory_; }

  // Views: ViewOps (view_ops.hpp), the list Tensor and AnyTensor take theirs from; no
  // BroadcastOps, since a destination cannot write one element from two indices.

 private:
  TensorSpan(std::span<T> memory, Layout layout) noexcept
      : memory_(memory), layout_(std::move(layout)) {}

  friend class ViewOps<TensorSpan>;

  std::size_t storage_len() const noexcept { return memory_.size(); }

  // The same memory through `layout` (ViewOps), unless two indices would reach one element
  // (as_strided can ask for that; every other view op keeps the elements distinct).
  Result<TensorSpan> with_layout(Layout layout) const {
    if (!detail::is_non_overlapping(layout)) return ShapeError::self_overlap("TensorSpan");
    return TensorSpan(memory_, std::move(layout));
  }

  std::span<T> memory_;
  Layout layout_;
};

}  // namespace strided
