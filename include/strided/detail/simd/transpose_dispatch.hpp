// Picks the transpose micro-kernel for an element size at the active ISA level.
//
//   level    1 byte          2 bytes            4 bytes          8 bytes
//   scalar   scalar 16x16    scalar 16x16       scalar 8x8       scalar 8x8
//   avx2     SSE2 16x16      SSE2 8x8           AVX2 8x8         AVX2 4x4
//   avx512   SSE2 16x16      AVX-512 16x16      AVX-512 16x16    AVX-512 8x8
// Other sizes use the scalar kernels at every level (see transpose_scalar.hpp).
#pragma once

#include <cstddef>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_avx2.hpp"
#include "strided/detail/simd/transpose_avx512.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"
#include "strided/detail/simd/transpose_sse2.hpp"

namespace strided::detail::simd {

inline TileKernel tile_kernel(std::size_t es) noexcept {
#if STRIDED_X86
  const Isa isa = active_isa();
  if (isa == Isa::avx512) {
    switch (es) {
      case 1:
        return {&transpose_tile_sse2_u8, 16};
      case 2:
        return {&transpose_tile_avx512_u16, 16};
      case 4:
        return {&transpose_tile_avx512_u32, 16};
      case 8:
        return {&transpose_tile_avx512_u64, 8};
      default:
        break;
    }
  } else if (isa == Isa::avx2) {
    switch (es) {
      case 1:
        return {&transpose_tile_sse2_u8, 16};
      case 2:
        return {&transpose_tile_sse2_u16, 8};
      case 4:
        return {&transpose_tile_avx2_u32, 8};
      case 8:
        return {&transpose_tile_avx2_u64, 4};
      default:
        break;
    }
  }
#endif
  return scalar_tile_kernel(es);
}

}  // namespace strided::detail::simd
