// Channel-last <-> channel-first copies (plans of kind deinterleave / interleave, see plan.hpp):
// every index of the outer axes is one row of pixels handed to a SIMD (de)interleave kernel.
#pragma once

#include <cstddef>
#include <utility>

#include "strided/detail/copy/loops.hpp"
#include "strided/detail/copy/plan.hpp"
#include "strided/detail/simd/interleave.hpp"

namespace strided::detail::copy_impl {

/// Calls row(s, d) with the start of every row of pixels: once per index of the plan's axes other
/// than the pixel and channel axes (axes[0] and axes[i_axes[0]]).
template <class Row>
inline void for_each_pixel_row(const PlanNest& p, const TransposeGroups& g, Row&& row) {
  PlanLoops o;
  for (std::size_t k = 1; k < p.rank; ++k)
    if (k != g.i_axes[0]) push_axis(o, p.axes[k]);
  for_each_index(o, p.src + p.src_offset, p.dst + p.dst_offset, std::forward<Row>(row));
}

/// axes[0]: pixels (packed in the source), i_axes[0]: channels (planes in the destination).
inline void run_deinterleave(const PlanNest& p, const TransposeGroups& g) {
  const PlanAxis& pixels = p.axes[0];
  const PlanAxis& channels = p.axes[g.i_axes[0]];
  const simd::DeinterleaveFn kernel = simd::deinterleave_kernel(channels.n, p.elem_size);
  for_each_pixel_row(
      p, g, [&](const std::byte* s, std::byte* d) { kernel(s, d, channels.ds, pixels.n); });
}

/// axes[0]: channels (packed in the destination), i_axes[0]: pixels (planes in the source).
inline void run_interleave(const PlanNest& p, const TransposeGroups& g) {
  const PlanAxis& channels = p.axes[0];
  const PlanAxis& pixels = p.axes[g.i_axes[0]];
  const simd::InterleaveFn kernel = simd::interleave_kernel(channels.n, p.elem_size);
  for_each_pixel_row(
      p, g, [&](const std::byte* s, std::byte* d) { kernel(s, channels.ss, d, pixels.n); });
}

}  // namespace strided::detail::copy_impl
