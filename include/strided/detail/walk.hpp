// Visiting the elements of a layout in logical (row-major) order, for the engines that read
// elements one at a time (comparison, printing, reference checks). Both walks here step the
// library's one odometer (odometer.hpp), which the copy kernels, runs and map step too.
#pragma once

#include <array>
#include <cstddef>
#include <span>

#include "strided/detail/odometer.hpp"
#include "strided/layout.hpp"

namespace strided::detail {

/// An odometer over the indices of a shape in row-major order (the last axis fastest), carrying
/// N storage offsets along: one per layout walked in step (N = 0 walks the indices alone). Every
/// axis is a loop of its own, so that the index along each is known.
template <std::size_t N>
class StridedWalk {
 public:
  /// Starts at index [0, ..., 0]; offset(m) starts at start[m] and moves by strides[m][k] along
  /// axis k. Every stride span has shape.size() entries.
  StridedWalk(std::span<const std::size_t> shape,
              const std::array<std::span<const std::ptrdiff_t>, N>& strides,
              const std::array<std::ptrdiff_t, N>& start)
      : odometer_(axis_loops(loops_, shape, strides), 0, start) {}
  StridedWalk(const StridedWalk&) = delete;  // the odometer refers to loops_
  StridedWalk& operator=(const StridedWalk&) = delete;

  /// The current index along axis k (outermost first).
  std::size_t index(std::size_t k) const noexcept { return odometer_.index(loops_.rank - 1 - k); }
  /// The current element's storage index in layout m.
  std::size_t offset(std::size_t m) const noexcept {
    return static_cast<std::size_t>(odometer_.offset(m));
  }

  /// Moves to the next index; false (and back at [0, ..., 0]) after the last one.
  bool next() noexcept { return odometer_.next(); }

 private:
  // One loop per axis, the last axis innermost.
  static const LoopNest<N>& axis_loops(LoopNest<N>& loops, std::span<const std::size_t> shape,
                                       const std::array<std::span<const std::ptrdiff_t>, N>& s) {
    for (std::size_t k = shape.size(); k-- > 0;) {
      std::array<std::ptrdiff_t, N> step{};
      for (std::size_t m = 0; m != N; ++m) step[m] = s[m][k];
      loops.push_outer(shape[k], step);
    }
    return loops;
  }

  LoopNest<N> loops_;  // before odometer_, which is built on it
  Odometer<N> odometer_;
};

/// Calls visit(offsets) (one storage index per layout) for every element of the layouts of shape
/// `shape` in row-major order, and stops early when `visit` returns false. Returns false if it
/// stopped early. The walk runs along merged axes: size-1 axes dropped, progressions joined.
template <std::size_t N, class Visit>
bool for_each_storage_offsets(std::span<const std::size_t> shape,
                              const std::array<const Layout*, N>& layouts, Visit&& visit) {
  LoopNest<N> nest;
  merge_loops(nest, shape,
              [&layouts](std::size_t m, std::size_t k) { return layouts[m]->strides()[k]; });
  std::array<std::ptrdiff_t, N> start{};
  for (std::size_t m = 0; m != N; ++m) start[m] = static_cast<std::ptrdiff_t>(layouts[m]->offset());
  if (nest.rank == 0) return visit(start);
  Odometer<N> at(nest, 1, start);  // the outer loops; loop 0 runs here
  do {
    std::array<std::ptrdiff_t, N> o{};
    for (std::size_t m = 0; m != N; ++m) o[m] = at.offset(m);
    for (std::size_t i = 0; i != nest.extent[0]; ++i) {
      if (!visit(o)) return false;
      for (std::size_t m = 0; m != N; ++m) o[m] += nest.stride[m][0];
    }
  } while (at.next());
  return true;
}

/// Calls `visit(storage_index)` for every element of `layout`, in row-major order, and stops
/// early when `visit` returns false. Returns false if it stopped early.
template <class Visit>
bool for_each_storage_index(const Layout& layout, Visit&& visit) {
  if (layout.empty()) return true;
  return for_each_storage_offsets<1>(
      layout.shape().span(), {&layout},
      [&visit](std::array<std::ptrdiff_t, 1> o) { return visit(static_cast<std::size_t>(o[0])); });
}

/// Calls `visit(i, j)` with the storage indices of the same logical element in two layouts of
/// equal shape, in row-major order; stops early when `visit` returns false.
template <class Visit>
bool for_each_storage_index_pair(const Layout& a, const Layout& b, Visit&& visit) {
  if (a.empty()) return true;
  return for_each_storage_offsets<2>(
      a.shape().span(), {&a, &b}, [&visit](std::array<std::ptrdiff_t, 2> o) {
        return visit(static_cast<std::size_t>(o[0]), static_cast<std::size_t>(o[1]));
      });
}

}  // namespace strided::detail
