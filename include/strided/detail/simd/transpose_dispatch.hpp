// Picks the transpose micro-kernel for an element size at the active ISA level.
//
//   level    1 byte          2 bytes            4 bytes          8 bytes
//   scalar   scalar 16x16    scalar 16x16       scalar 8x8       scalar 8x8
//   avx2     AVX2 64x64      AVX2 32x32         AVX2 16x16 or    AVX2 8x8 or
//            (lanes), else   (lanes), else      16 x 8 (WJ x WI) 8 x 4, else
//            SSE2 16x16      SSE2 8x8           else AVX2 8x8    AVX2 4x4
//   avx512   AVX-512 64x64   AVX-512 32x32      AVX-512 16x16    AVX-512 8x8
//            (lanes), else   (whole rows),      or 16 x 8 (only  else the avx2
//            SSE2 16x16      else AVX-512 16x16 8 rows: WJ x WI) kernels
//                            else SSE2 8x8      else AVX2 8x8
//   neon     NEON 16x16      NEON 8x8           NEON 4x4         NEON 2x2      (aarch64)
// Other sizes use the scalar kernels at every level (see transpose_scalar.hpp). When a tile side
// is shorter than the level's edge, the next narrower kernel is used.
#pragma once

#include <algorithm>
#include <cstddef>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_avx2.hpp"
#include "strided/detail/simd/transpose_avx512.hpp"
#include "strided/detail/simd/transpose_neon.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"
#include "strided/detail/simd/transpose_sse2.hpp"

namespace strided::detail::simd {

/// The widest kernel for `es`-byte elements whose tile fits max_i destination rows and max_j
/// source rows (both >= 2): groups of high-rank permutes can be as short as 4 or 8 elements, where
/// a 16-wide tile would never fit.
inline TileKernel tile_kernel(std::size_t es, std::size_t max_i, std::size_t max_j) noexcept {
  const std::size_t max_w = std::min(max_i, max_j);
#if STRIDED_X86
  const Isa isa = active_isa();
  if (isa == Isa::avx512) {
    if (es == 1 && max_w >= 64)
      return {&transpose_tile_avx512_lanes<1, false>,
              64,
              64,
              &transpose_tile_avx512_lanes<1, true>,
              &transpose_tile_avx512_whole_rows<1, false>,
              &transpose_tile_avx512_whole_rows<1, true>};
    if (es == 2 && max_w >= 32)
      return {&transpose_tile_avx512_whole_rows<2, false>, 32, 32,
              &transpose_tile_avx512_whole_rows<2, true>};
    if (es == 2 && max_w >= 16)
      return {&transpose_tile_avx512_u16<false>, 16, 16, &transpose_tile_avx512_u16<true>};
    if (es == 4 && max_w >= 16)
      return {&transpose_tile_avx512_zmm<4, false>, 16, 16, &transpose_tile_avx512_zmm<4, true>};
    if (es == 4 && max_i >= 8 && max_j >= 16)
      return {&transpose_tile_avx512_u32_8x16<false>, 8, 16, &transpose_tile_avx512_u32_8x16<true>};
    if (es == 8 && max_w >= 8)
      return {&transpose_tile_avx512_zmm<8, false>, 8, 8, &transpose_tile_avx512_zmm<8, true>};
  }
  if (isa != Isa::scalar) {  // at avx512: what the AVX-512 kernels above do not cover
    if (es == 1 && max_w >= 64)
      return {&transpose_tile_avx2_lanes<1, false, false>,
              64,
              64,
              &transpose_tile_avx2_lanes<1, true, false>,
              &transpose_tile_avx2_lanes<1, false, true>,
              &transpose_tile_avx2_lanes<1, true, true>};
    if (es == 2 && max_w >= 32)
      return {&transpose_tile_avx2_lanes<2, false, false>,
              32,
              32,
              &transpose_tile_avx2_lanes<2, true, false>,
              &transpose_tile_avx2_lanes<2, false, true>,
              &transpose_tile_avx2_lanes<2, true, true>};
    if (es == 4 && max_w >= 16)
      return {&transpose_tile_avx2_lines<4, 16, false>, 16, 16,
              &transpose_tile_avx2_lines<4, 16, true>};
    if (es == 4 && max_i >= 8 && max_j >= 16)
      return {&transpose_tile_avx2_lines<4, 8, false>, 8, 16,
              &transpose_tile_avx2_lines<4, 8, true>};
    if (es == 8 && max_w >= 8)
      return {&transpose_tile_avx2_lines<8, 8, false>, 8, 8,
              &transpose_tile_avx2_lines<8, 8, true>};
    if (es == 8 && max_i >= 4 && max_j >= 8)
      return {&transpose_tile_avx2_lines<8, 4, false>, 4, 8,
              &transpose_tile_avx2_lines<8, 4, true>};
    if (es == 1 && max_w >= 16) return {&transpose_tile_sse2<1>, 16, 16};
    if (es == 2 && max_w >= 8) return {&transpose_tile_sse2<2>, 8, 8};
    if (es == 4 && max_w >= 8) return {&transpose_tile_avx2_square<4>, 8, 8};
    if (es == 8 && max_w >= 4) return {&transpose_tile_avx2_square<8>, 4, 4};
  }
#endif
#if STRIDED_NEON
  if (active_isa() == Isa::neon && es <= 8 && (es & (es - 1)) == 0 && max_w >= 16 / es) {
    if (es == 1) return {&transpose_tile_neon<1>, 16, 16};
    if (es == 2) return {&transpose_tile_neon<2>, 8, 8};
    if (es == 4) return {&transpose_tile_neon<4>, 4, 4};
    return {&transpose_tile_neon<8>, 2, 2};
  }
#endif
  return scalar_tile_kernel(es, max_w);
}

/// The narrowest vector kernel for `es`-byte elements at the active level (16- or 32-byte rows),
/// or no kernel (fn == nullptr) at the scalar level and for other sizes: what a tile with one
/// side shorter than every vector kernel is padded to (see transpose_few_rows).
inline TileKernel narrowest_vector_kernel(std::size_t es) noexcept {
#if STRIDED_X86
  if (active_isa() != Isa::scalar) {
    switch (es) {
      case 1:
        return {&transpose_tile_sse2<1>, 16, 16};
      case 2:
        return {&transpose_tile_sse2<2>, 8, 8};
      case 4:
        return {&transpose_tile_avx2_square<4>, 8, 8};
      case 8:
        return {&transpose_tile_avx2_square<8>, 4, 4};
      default:
        return {};
    }
  }
#endif
#if STRIDED_NEON
  if (active_isa() == Isa::neon) {
    switch (es) {
      case 1:
        return {&transpose_tile_neon<1>, 16, 16};
      case 2:
        return {&transpose_tile_neon<2>, 8, 8};
      case 4:
        return {&transpose_tile_neon<4>, 4, 4};
      case 8:
        return {&transpose_tile_neon<8>, 2, 2};
      default:
        return {};
    }
  }
#endif
  static_cast<void>(es);
  return {};
}

}  // namespace strided::detail::simd
