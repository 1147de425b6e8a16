// AVX-512 transpose micro-kernels: 16 x 16 four-byte (zmm), 8 x 8 eight-byte (zmm), 16 x 16
// two-byte (ymm, AVX-512BW+VL) elements, and the "lanes" kernels for 64 x 64 bytes and 32 x 32
// two-byte elements (below).
//
// vpermt2 permutes across the whole register, so the perfect-shuffle network of
// transpose_sse2.hpp applies directly: log2(N) rounds of
//   out[2i] = interleave_low(in[i], in[i + N/2]),  out[2i+1] = interleave_high(...).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

#if STRIDED_X86
#include <immintrin.h>

#define STRIDED_AVX512_TARGET [[gnu::target(STRIDED_AVX512_FEATURES)]]

namespace strided::detail::simd {

// Stream = true: non-temporal store, the caller guarantees alignment to the register width.
STRIDED_AVX512_TARGET inline void store_row(std::byte* p, __m512i v, bool stream) {
  if (stream)
    _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
  else
    _mm512_storeu_si512(p, v);
}

STRIDED_AVX512_TARGET inline void store_row(std::byte* p, __m256i v, bool stream) {
  if (stream)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  else
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

/// The perfect-shuffle network of transpose_sse2.hpp on any register type: log2(N) rounds of
///   out[2i] = f.lo(in[i], in[i + N/2]),  out[2i+1] = f.hi(in[i], in[i + N/2]).
template <class Reg, std::size_t N, class Interleave>
STRIDED_AVX512_TARGET [[gnu::always_inline]] inline void perfect_shuffle_avx512(
    Reg (&r)[N], const Interleave& f) {
  STRIDED_UNROLLED
  for (std::size_t round = 1; round < N; round *= 2) {
    Reg o[N];
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < N / 2; ++i) {
      o[2 * i] = f.lo(r[i], r[i + N / 2]);
      o[2 * i + 1] = f.hi(r[i], r[i + N / 2]);
    }
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < N; ++i) r[i] = o[i];
  }
}

/// Lane-crossing interleaves with the kernel's index vectors: vpermt2w on ymm, vpermt2d / vpermt2q
/// on zmm (`LaneBits` 32 or 64). (A vector type as a template argument loses its attributes.)
struct Vpermt2w {
  __m256i lo_idx, hi_idx;
  STRIDED_AVX512_TARGET __m256i lo(__m256i a, __m256i b) const {
    return _mm256_permutex2var_epi16(a, lo_idx, b);
  }
  STRIDED_AVX512_TARGET __m256i hi(__m256i a, __m256i b) const {
    return _mm256_permutex2var_epi16(a, hi_idx, b);
  }
};
template <int LaneBits>
struct Vpermt2Zmm {
  __m512i lo_idx, hi_idx;
  STRIDED_AVX512_TARGET __m512i lo(__m512i a, __m512i b) const { return permute(a, lo_idx, b); }
  STRIDED_AVX512_TARGET __m512i hi(__m512i a, __m512i b) const { return permute(a, hi_idx, b); }
  STRIDED_AVX512_TARGET static __m512i permute(__m512i a, __m512i idx, __m512i b) {
    if constexpr (LaneBits == 32)
      return _mm512_permutex2var_epi32(a, idx, b);
    else
      return _mm512_permutex2var_epi64(a, idx, b);
  }
};
using Vpermt2d = Vpermt2Zmm<32>;
using Vpermt2q = Vpermt2Zmm<64>;

/// In-lane interleaves of 1- or 2-byte elements (vpunpckl/h bw / wd on zmm).
template <std::size_t ES>
struct UnpackInLane {
  STRIDED_AVX512_TARGET __m512i lo(__m512i a, __m512i b) const {
    if constexpr (ES == 1)
      return _mm512_unpacklo_epi8(a, b);
    else
      return _mm512_unpacklo_epi16(a, b);
  }
  STRIDED_AVX512_TARGET __m512i hi(__m512i a, __m512i b) const {
    if constexpr (ES == 1)
      return _mm512_unpackhi_epi8(a, b);
    else
      return _mm512_unpackhi_epi16(a, b);
  }
};

/// A tile of zmm rows: 16 x 16 u32 (vpermt2d rounds) or 8 x 8 u64 (vpermt2q rounds).
template <std::size_t ES, bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_zmm(const std::byte* src,
                                                     const std::ptrdiff_t* src_rows, std::byte* dst,
                                                     const std::ptrdiff_t* dst_rows, std::size_t) {
  constexpr std::size_t n = 64 / ES;
  // idx[k] = k/2 (+n: the second operand when k is odd); the high half starts at n/2.
  std::conditional_t<ES == 4, Vpermt2d, Vpermt2q> interleave;
  if constexpr (ES == 4) {
    interleave = {_mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23),
                  _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31)};
  } else {
    interleave = {_mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11),
                  _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15)};
  }
  __m512i r[n];
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < n; ++i) r[i] = _mm512_loadu_si512(src + src_rows[i]);
  perfect_shuffle_avx512(r, interleave);
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < n; ++i) store_row(dst + dst_rows[i], r[i], Stream);
}

template <bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_u16(const std::byte* src,
                                                     const std::ptrdiff_t* src_rows, std::byte* dst,
                                                     const std::ptrdiff_t* dst_rows, std::size_t) {
  const __m256i lo = _mm256_setr_epi16(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m256i hi =
      _mm256_setr_epi16(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  __m256i r[16];
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < 16; ++i)
    r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + src_rows[i]));
  perfect_shuffle_avx512(r, Vpermt2w{lo, hi});
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < 16; ++i) store_row(dst + dst_rows[i], r[i], Stream);
}

/// 16 source rows (J) x 8 destination rows (I) of four-byte elements, for groups that have only
/// 8 elements along I (high-rank permutes): register k holds source rows k and k + 8 in its two
/// 256-bit halves, the perfect shuffle runs within each half (3 rounds), and register c ends up
/// holding destination row c whole: one 64-byte store (streamable) where an 8 x 8 kernel stores
/// two half lines.
template <bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_u32_8x16(const std::byte* src,
                                                          const std::ptrdiff_t* src_rows,
                                                          std::byte* dst,
                                                          const std::ptrdiff_t* dst_rows,
                                                          std::size_t) {
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 8, 24, 9, 25, 10, 26, 11, 27);
  const __m512i hi = _mm512_setr_epi32(4, 20, 5, 21, 6, 22, 7, 23, 12, 28, 13, 29, 14, 30, 15, 31);
  __m512i r[8];
  STRIDED_UNROLLED
  for (std::size_t k = 0; k < 8; ++k) {
    const auto* top = reinterpret_cast<const __m256i*>(src + src_rows[k]);
    const auto* bottom = reinterpret_cast<const __m256i*>(src + src_rows[k + 8]);
    r[k] = _mm512_mask_broadcast_i64x4(_mm512_castsi256_si512(_mm256_loadu_si256(top)), 0xF0,
                                       _mm256_loadu_si256(bottom));
  }
  perfect_shuffle_avx512(r, Vpermt2d{lo, hi});  // lo / hi stay within each 256-bit half
  STRIDED_UNROLLED
  for (std::size_t c = 0; c < 8; ++c) store_row(dst + dst_rows[c], r[c], Stream);
}

/// The 16 bytes of `lane` in row `row` of a lanes tile, from the L1 copy when the rows were
/// buffered. A function: -Os leaves a lambda called 64 times out of line.
template <bool Buffered>
STRIDED_AVX512_TARGET [[gnu::always_inline]] inline __m128i piece_of_row(
    const std::byte* buffer, const std::byte* src, const std::ptrdiff_t* src_rows, std::size_t row,
    std::size_t lane) {
  const std::byte* p = Buffered ? buffer + 64 * row : src + src_rows[row];
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * lane));
}

/// Lanes of a zmm register for the sub-line element sizes: a (64/es) x (64/es) tile of 1- or
/// 2-byte elements is 4 x 4 blocks of N x N (N = 16/es), one per 128-bit lane. Register k of
/// column-of-lanes L is gathered at load time from rows k, N + k, 2N + k and 3N + k (a load and
/// three masked 128-bit broadcasts, which use the load ports, not the shuffle unit); the in-lane
/// unpack network then transposes the four blocks at once, and register t holds the whole
/// destination row N * L + t. Every store is a whole line, so no staging buffer is needed, and
/// it costs 1/4 of the shuffles per byte of the 16-byte SSE2 kernel. The gain over the staged
/// SSE2 / ymm kernels is small because these transposes are bound by the memory access pattern
/// (the macro-tile order of copy/transpose.hpp), not by shuffles; figures in
/// docs/performance.md, "The transpose kernel". Each lane reads 16 bytes of every source row;
/// `Buffered` reads the rows whole into an L1 buffer first (see TileKernel::buffered).
template <std::size_t ES, bool Stream, bool Buffered>
STRIDED_AVX512_TARGET void transpose_tile_avx512_lanes(const std::byte* src,
                                                       const std::ptrdiff_t* src_rows,
                                                       std::byte* dst,
                                                       const std::ptrdiff_t* dst_rows,
                                                       std::size_t) {
  constexpr std::size_t n = 16 / ES, rows = 4 * n;
  alignas(64) std::array<std::byte, Buffered ? rows * 64 : 1> buffer;
  if constexpr (Buffered) {
    STRIDED_UNROLLED
    for (std::size_t row = 0; row < rows; ++row)
      _mm512_store_si512(buffer.data() + 64 * row, _mm512_loadu_si512(src + src_rows[row]));
  }
  STRIDED_UNROLLED
  for (std::size_t lane = 0; lane < 4; ++lane) {
    __m512i r[n];
    STRIDED_UNROLLED
    for (std::size_t k = 0; k < n; ++k) {
      const std::byte* b = buffer.data();
      __m512i v = _mm512_castsi128_si512(piece_of_row<Buffered>(b, src, src_rows, k, lane));
      v = _mm512_mask_broadcast_i32x4(v, 0x00F0,
                                      piece_of_row<Buffered>(b, src, src_rows, n + k, lane));
      v = _mm512_mask_broadcast_i32x4(v, 0x0F00,
                                      piece_of_row<Buffered>(b, src, src_rows, 2 * n + k, lane));
      r[k] = _mm512_mask_broadcast_i32x4(v, 0xF000,
                                         piece_of_row<Buffered>(b, src, src_rows, 3 * n + k, lane));
    }
    perfect_shuffle_avx512(r, UnpackInLane<ES>{});
    STRIDED_UNROLLED
    for (std::size_t t = 0; t < n; ++t) store_row(dst + dst_rows[n * lane + t], r[t], Stream);
  }
}

}  // namespace strided::detail::simd

#undef STRIDED_AVX512_TARGET

#endif  // STRIDED_X86
