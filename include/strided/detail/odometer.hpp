// The one walker over the outer loops of a loop nest: the copy kernels (copy/loops.hpp), runs
// (runs.hpp) and map (zip.hpp) call their inner row once per index it visits. The walkers that
// visit elements one at a time in row-major order are walk.hpp's.
#pragma once

#include <array>
#include <cstddef>

namespace strided::detail {

/// Axes an odometer walks at most: every rank the library allows (strided::max_rank) and every
/// plan (plan_max_rank) fits.
inline constexpr std::size_t odometer_max_axes = 64;

/// Calls visit(at) for every index of `count` axes (at most odometer_max_axes), innermost axis
/// fastest, where at[m] is the offset of operand m: the sum over axes k of index[k] *
/// stride(k, m). extent(k) >= 1 is the extent of axis k. An odometer rather than recursion: ranks
/// reach 64 and the per-step cost matters when the inner work is small. The carry steps one past
/// an axis's end before stepping back, so offsets may leave the operands between visits: they are
/// integers, never pointers, until `visit` forms an address.
template <std::size_t M, class Extent, class Stride, class Visit>
void for_each_nest_offset(std::size_t count, Extent&& extent, Stride&& stride, Visit&& visit) {
  std::array<std::size_t, odometer_max_axes> index{};
  std::array<std::ptrdiff_t, M> at{};
  for (;;) {
    visit(static_cast<const std::array<std::ptrdiff_t, M>&>(at));
    std::size_t k = 0;
    for (; k < count; ++k) {
      const std::size_t n = extent(k);
      for (std::size_t m = 0; m < M; ++m) at[m] += stride(k, m);
      if (++index[k] < n) break;
      index[k] = 0;
      for (std::size_t m = 0; m < M; ++m) at[m] -= stride(k, m) * static_cast<std::ptrdiff_t>(n);
    }
    if (k == count) return;
  }
}

}  // namespace strided::detail
