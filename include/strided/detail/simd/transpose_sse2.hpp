// SSE2 transpose micro-kernels (x86-64 baseline): 16 x 16 bytes and 8 x 8 two-byte elements.
//
// Both use the "perfect shuffle" network: log2(N) rounds of
//   out[2i] = unpacklo(in[i], in[i + N/2]),  out[2i+1] = unpackhi(in[i], in[i + N/2])
// with the element-width unpack. Each round moves one bit of the column index into the register
// index and one bit of the row index into the lane index, so after log2(N) rounds the two have
// swapped: the tile is transposed. (128-bit unpacks never cross lanes, so this is exact here.)
#pragma once

#include <cstddef>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

#if STRIDED_X86
#include <emmintrin.h>

namespace strided::detail::simd {

template <std::size_t N, class Unpack>
[[gnu::always_inline]] inline void perfect_shuffle_128(__m128i (&r)[N], Unpack unpack) {
  STRIDED_UNROLLED
  for (std::size_t round = 1; round < N; round *= 2) {
    __m128i o[N];
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < N / 2; ++i) unpack(r[i], r[i + N / 2], o[2 * i], o[2 * i + 1]);
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < N; ++i) r[i] = o[i];
  }
}

/// A tile of N x N elements of ES bytes (16 x 16 bytes, 8 x 8 u16): one register per row, then
/// log2(N) rounds of unpacks.
template <std::size_t ES>
void transpose_tile_sse2(const std::byte* src, const std::ptrdiff_t* src_rows, std::byte* dst,
                         const std::ptrdiff_t* dst_rows, std::size_t) {
  constexpr std::size_t n = 16 / ES;
  __m128i r[n];
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < n; ++i)
    r[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + src_rows[i]));
  perfect_shuffle_128(r, [](__m128i a, __m128i b, __m128i& lo, __m128i& hi) {
    if constexpr (ES == 1) {
      lo = _mm_unpacklo_epi8(a, b);
      hi = _mm_unpackhi_epi8(a, b);
    } else {
      lo = _mm_unpacklo_epi16(a, b);
      hi = _mm_unpackhi_epi16(a, b);
    }
  });
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < n; ++i)
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + dst_rows[i]), r[i]);
}

}  // namespace strided::detail::simd

#endif  // STRIDED_X86
