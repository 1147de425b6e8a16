// The library's one odometer: the index space of a loop nest, innermost loop fastest, with one
// storage offset carried per operand. The copy kernels' outer loops (copy/loops.hpp), for_each_run
// (runs.hpp), map's chunks (zip.hpp) and the element walks of comparison and printing (walk.hpp)
// all step it. Each caller keeps its innermost run in a loop of its own and steps the odometer
// once per run:
//
//   Odometer<N> at(nest, 1);  // loop 0 is the run
//   do run(at.offset(0), ...); while (at.next());
//
// so that the run's loop is the caller's to vectorise, and the offsets reach the run by value
// from an odometer in the caller's frame, which the compiler can keep in registers.
#pragma once

#include <array>
#include <cstddef>
#include <span>

namespace strided::detail {

/// Loops a nest holds at most: every rank a layout may have (max_rank) and every copy plan's.
inline constexpr std::size_t max_loops = 64;

/// A loop nest over N operands, innermost loop first: loop k has extent[k] >= 1 indices, along
/// which operand m moves by stride[m][k]. Only loops [0, rank) are meaningful.
template <std::size_t N>
struct LoopNest {
  std::size_t rank = 0;
  std::array<std::size_t, max_loops> extent{};
  std::array<std::array<std::ptrdiff_t, max_loops>, N> stride{};

  /// Appends a loop outside the others.
  void push_outer(std::size_t n, const std::array<std::ptrdiff_t, N>& step) noexcept {
    extent[rank] = n;
    for (std::size_t m = 0; m != N; ++m) stride[m][rank] = step[m];
    ++rank;
  }
};

/// Sets `nest` to the axes `extent` (outermost first, at most max_loops) along which operand m
/// moves by stride_of(m, k): axes of extent 1 dropped, and neighbouring axes merged wherever every
/// operand walks them as one progression (outer stride == inner stride * inner extent). The
/// nest visits the indices in the axes' row-major order, as before merging.
template <std::size_t N, class StrideOf>
void merge_loops(LoopNest<N>& nest, std::span<const std::size_t> extent,
                 StrideOf&& stride_of) noexcept {
  nest.rank = 0;
  for (std::size_t k = extent.size(); k-- > 0;) {
    if (extent[k] == 1) continue;
    bool merges = nest.rank > 0;
    const std::size_t in = nest.rank - 1;
    for (std::size_t m = 0; merges && m != N; ++m)
      merges = stride_of(m, k) == nest.stride[m][in] * static_cast<std::ptrdiff_t>(nest.extent[in]);
    if (merges) {
      nest.extent[in] *= extent[k];
      continue;
    }
    std::array<std::ptrdiff_t, N> step;
    for (std::size_t m = 0; m != N; ++m) step[m] = stride_of(m, k);
    nest.push_outer(extent[k], step);
  }
}

/// Walks the indices of loops [first, rank) of a nest (which outlives it), innermost first,
/// starting at index 0 with offset(m) == start[m]. Offsets are integers: a caller forms an
/// address only from the offsets it is handed, all of which lie inside the operands.
template <std::size_t N>
class Odometer {
 public:
  explicit Odometer(const LoopNest<N>& nest, std::size_t first = 0,
                    const std::array<std::ptrdiff_t, N>& start = {}) noexcept
      : nest_(nest), first_(first), at_(start) {
    for (std::size_t k = first; k < nest.rank; ++k) index_[k] = 0;
  }

  /// Operand m's offset at the current index.
  std::ptrdiff_t offset(std::size_t m) const noexcept { return at_[m]; }
  /// The current index along loop k (first <= k < rank).
  std::size_t index(std::size_t k) const noexcept { return index_[k]; }

  /// Moves to the next index; false (and back at index 0) after the last one.
  bool next() noexcept {
    for (std::size_t k = first_; k < nest_.rank; ++k) {  // bump the innermost loop, carry outwards
      if (++index_[k] < nest_.extent[k]) {
        for (std::size_t m = 0; m != N; ++m) at_[m] += nest_.stride[m][k];
        return true;
      }
      const auto back = static_cast<std::ptrdiff_t>(nest_.extent[k] - 1);
      for (std::size_t m = 0; m != N; ++m) at_[m] -= back * nest_.stride[m][k];
      index_[k] = 0;
    }
    return false;
  }

 private:
  const LoopNest<N>& nest_;
  std::size_t first_;
  std::array<std::ptrdiff_t, N> at_;
  std::array<std::size_t, max_loops> index_;
};

}  // namespace strided::detail
