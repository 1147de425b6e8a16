// Cache-blocked transpose (HPTT-style macro-kernel) for plans whose unit-stride axes differ.
//
// The plan's axes split into three sets: the destination-contiguous group J (axes[0, nj)), the
// source-contiguous group I (i_axes), and the outer axes. For each outer index the I x J
// problem is a 2-D transpose in which I is contiguous in the source and J in the destination;
// it is cut into B x B macro-tiles (both sides stay in L1), each cut into W x W register tiles
// handled by a SIMD micro-kernel. Row offsets of a macro-tile come from small tables built per
// tile, so groups may span several axes (rank-22 permutes) at no cost to the 2-D case.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/copy/loops.hpp"
#include "strided/detail/copy/plan.hpp"
#include "strided/detail/simd/transpose_dispatch.hpp"

namespace strided::detail::copy_impl {

inline constexpr std::size_t max_block = 256;

/// Offsets (bytes, source or destination side) of the linear group indices [start, start + len)
/// of the group made of axes idx[0, count) (innermost first).
struct Group {
  std::array<const PlanAxis*, plan_max_rank> ax{};
  std::size_t count = 0;
  std::size_t extent = 1;
};

template <bool UseSrc>
void group_offsets(const Group& g, std::size_t start, std::size_t len, std::ptrdiff_t* out) {
  std::array<std::size_t, plan_max_rank> digit{};
  std::ptrdiff_t off = 0;
  std::size_t rest = start;
  for (std::size_t k = 0; k < g.count; ++k) {
    const PlanAxis& a = *g.ax[k];
    digit[k] = rest % a.n;
    rest /= a.n;
    off += static_cast<std::ptrdiff_t>(digit[k]) * (UseSrc ? a.ss : a.ds);
  }
  const PlanAxis& a0 = *g.ax[0];
  const std::ptrdiff_t step0 = UseSrc ? a0.ss : a0.ds;
  for (std::size_t t = 0; t < len; ++t) {
    out[t] = off;
    off += step0;
    if (++digit[0] < a0.n) continue;
    for (std::size_t k = 0; k < g.count; ++k) {  // carry
      const PlanAxis& a = *g.ax[k];
      const std::ptrdiff_t st = UseSrc ? a.ss : a.ds;
      if (k > 0) {
        off += st;
        if (++digit[k] < a.n) break;
      }
      digit[k] = 0;
      off -= st * static_cast<std::ptrdiff_t>(a.n);
    }
  }
}

/// One bi x bj macro-tile: full W x W register tiles, then the ragged edges element by element.
inline void transpose_macro_tile(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                                 const std::ptrdiff_t* dst_i, std::size_t bi, std::size_t bj,
                                 std::size_t es, simd::TileKernel k) {
  const std::size_t w = k.w;
  const std::size_t iw = bi - bi % w, jw = bj - bj % w;
  for (std::size_t i = 0; i < iw; i += w)
    for (std::size_t j = 0; j < jw; j += w) k.fn(s + i * es, src_j + j, d + j * es, dst_i + i, es);
  for (std::size_t i = 0; i < bi; ++i) {
    const std::size_t j_first = i < iw ? jw : 0;
    for (std::size_t j = j_first; j < bj; ++j)
      std::memcpy(d + dst_i[i] + j * es, s + src_j[j] + i * es, es);
  }
}

/// Macro-tile edge: the largest multiple of W with both B x B tiles in half of a 48 KiB L1.
inline std::size_t macro_edge(std::size_t es, std::size_t w) noexcept {
  std::size_t b = w;
  while (2 * b <= max_block && (2 * b) * (2 * b) * es * 2 <= 24 * 1024) b *= 2;
  return b;
}

inline void run_transpose(const CopyPlan& p) {
  const std::size_t es = p.elem_size;
  const simd::TileKernel kern = simd::tile_kernel(es);
  Group gj, gi;
  std::array<bool, plan_max_rank> used{};
  for (std::size_t k = 0; k < p.nj; ++k) {
    gj.ax[gj.count++] = &p.axes[k];
    gj.extent *= p.axes[k].n;
    used[k] = true;
  }
  for (std::size_t k = 0; k < p.ni; ++k) {
    gi.ax[gi.count++] = &p.axes[p.i_axes[k]];
    gi.extent *= p.axes[p.i_axes[k]].n;
    used[p.i_axes[k]] = true;
  }
  OuterAxes o;
  for (std::size_t k = 0; k < p.rank; ++k)
    if (!used[k]) o.ptr[o.count++] = &p.axes[k];
  const std::size_t b = macro_edge(es, kern.w);
  for_each_index(o.ptr.data(), o.count, p.src + p.src_offset, p.dst + p.dst_offset,
                 [&](const std::byte* s0, std::byte* d0) {
                   std::array<std::ptrdiff_t, max_block> src_j, dst_i;
                   for (std::size_t ib = 0; ib < gi.extent; ib += b) {
                     const std::size_t bi = std::min(b, gi.extent - ib);
                     group_offsets<false>(gi, ib, bi, dst_i.data());
                     for (std::size_t jb = 0; jb < gj.extent; jb += b) {
                       const std::size_t bj = std::min(b, gj.extent - jb);
                       group_offsets<true>(gj, jb, bj, src_j.data());
                       transpose_macro_tile(s0 + ib * es, src_j.data(), d0 + jb * es, dst_i.data(),
                                            bi, bj, es, kern);
                     }
                   }
                 });
}

}  // namespace strided::detail::copy_impl
