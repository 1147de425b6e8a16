// Visiting the elements of a layout in logical (row-major) order, for the engines that read
// elements one at a time (comparison, printing, reference checks). The copy kernels have their
// own walker over a plan's byte strides (copy/loops.hpp: for_each_offset), innermost axis first.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "strided/layout.hpp"

namespace strided::detail {

/// An odometer over the indices of a shape in row-major order (the last axis fastest), carrying
/// N storage offsets along: one per layout walked in step (N = 0 walks the indices alone).
template <std::size_t N>
class StridedWalk {
 public:
  /// Starts at index [0, ..., 0]; offset(m) starts at start[m] and moves by strides[m][k] along
  /// axis k. Every stride span has shape.size() entries and, as `shape`, outlives the walk.
  StridedWalk(std::span<const std::size_t> shape,
              std::array<std::span<const std::ptrdiff_t>, N> strides,
              std::array<std::ptrdiff_t, N> start)
      : shape_(shape), strides_(strides), at_(start), index_(shape.size(), 0) {}

  /// The current index, outermost axis first.
  std::span<const std::size_t> index() const noexcept { return index_.span(); }
  /// The current element's storage index in layout m.
  std::size_t offset(std::size_t m) const noexcept { return static_cast<std::size_t>(at_[m]); }

  /// Moves to the next index; false (and back at [0, ..., 0]) after the last one.
  bool next() noexcept {
    for (std::size_t k = shape_.size(); k-- > 0;) {  // bump the innermost axis, carry outwards
      if (++index_[k] < shape_[k]) {
        for (std::size_t m = 0; m != N; ++m) at_[m] += strides_[m][k];
        return true;
      }
      const auto back = static_cast<std::ptrdiff_t>(shape_[k] - 1);
      for (std::size_t m = 0; m != N; ++m) at_[m] -= back * strides_[m][k];
      index_[k] = 0;
    }
    return false;
  }

 private:
  std::span<const std::size_t> shape_;
  std::array<std::span<const std::ptrdiff_t>, N> strides_;
  std::array<std::ptrdiff_t, N> at_;
  Shape index_;
};

/// Calls `visit(storage_index)` for every element of `layout`, in row-major order, and stops
/// early when `visit` returns false. Returns false if it stopped early.
template <class Visit>
bool for_each_storage_index(const Layout& layout, Visit&& visit) {
  if (layout.empty()) return true;
  StridedWalk<1> walk(layout.shape().span(), {layout.strides().span()},
                      {static_cast<std::ptrdiff_t>(layout.offset())});
  do {
    if (!visit(walk.offset(0))) return false;
  } while (walk.next());
  return true;
}

/// Calls `visit(i, j)` with the storage indices of the same logical element in two layouts of
/// equal shape, in row-major order; stops early when `visit` returns false.
template <class Visit>
bool for_each_storage_index_pair(const Layout& a, const Layout& b, Visit&& visit) {
  if (a.empty()) return true;
  StridedWalk<2> walk(
      a.shape().span(), {a.strides().span(), b.strides().span()},
      {static_cast<std::ptrdiff_t>(a.offset()), static_cast<std::ptrdiff_t>(b.offset())});
  do {
    if (!visit(walk.offset(0), walk.offset(1))) return false;
  } while (walk.next());
  return true;
}

}  // namespace strided::detail
