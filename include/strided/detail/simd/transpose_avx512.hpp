// AVX-512 transpose micro-kernels: 16 x 16 four-byte (zmm), 8 x 8 eight-byte (zmm), 16 x 16
// two-byte (ymm, AVX-512BW+VL) elements, and the "lanes" and "whole rows" kernels for 64 x 64
// bytes and 32 x 32 two-byte elements (below).
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

/// vshufi64x2: lanes a[imm 0-1], a[imm 2-3], b[imm 4-5], b[imm 6-7]. Written with an all-ones
/// mask: GCC 12 warns that the unmasked intrinsic's _mm512_undefined_epi32 is uninitialised.
template <int Imm>
STRIDED_AVX512_TARGET [[gnu::always_inline]] inline __m512i shuffle_lanes(__m512i a, __m512i b) {
  return _mm512_mask_shuffle_i64x2(a, 0xFF, a, b, Imm);
}

/// The 4 x 4 transpose of 128-bit lanes: lane L of v[g] becomes lane g of v[L].
STRIDED_AVX512_TARGET [[gnu::always_inline]] inline void transpose_lanes_4x4(__m512i (&v)[4]) {
  const __m512i ab_low = shuffle_lanes<0x44>(v[0], v[1]);   // a0 a1 b0 b1
  const __m512i ab_high = shuffle_lanes<0xEE>(v[0], v[1]);  // a2 a3 b2 b3
  const __m512i cd_low = shuffle_lanes<0x44>(v[2], v[3]);
  const __m512i cd_high = shuffle_lanes<0xEE>(v[2], v[3]);
  v[0] = shuffle_lanes<0x88>(ab_low, cd_low);  // a0 b0 c0 d0
  v[1] = shuffle_lanes<0xDD>(ab_low, cd_low);
  v[2] = shuffle_lanes<0x88>(ab_high, cd_high);
  v[3] = shuffle_lanes<0xDD>(ab_high, cd_high);
}

/// The 16 bytes of `lane` in row `row` of a lanes tile. A function: -Os leaves a lambda called
/// 64 times out of line.
STRIDED_AVX512_TARGET [[gnu::always_inline]] inline __m128i piece_of_row(
    const std::byte* src, const std::ptrdiff_t* src_rows, std::size_t row, std::size_t lane) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + src_rows[row] + 16 * lane));
}

/// Lanes kernels for the sub-line element sizes: a (64/es) x (64/es) tile of 1- or 2-byte
/// elements is 4 x 4 blocks of N x N (N = 16/es), one per 128-bit lane, and every store is a
/// whole destination line. Two ways to feed the in-lane unpack network, which transposes four
/// blocks at once:
///
/// - transpose_tile_avx512_lanes gathers at load time: register k of column-of-lanes L from rows
///   k, N + k, 2N + k and 3N + k (a load and three masked 128-bit broadcasts), a pass over the
///   rows per lane, so that register t ends up holding destination row N * L + t whole.
/// - transpose_tile_avx512_whole_rows loads each row once, whole: group g of N rows goes
///   through the network, leaving in lane L of its register t destination row N * L + t's 16
///   bytes from that group, and a 4 x 4 transpose of 128-bit lanes across the four groups'
///   registers t makes destination rows t, N + t, 2N + t and 3N + t whole.
///
/// Whole rows take 32 (u16) or 64 (u8) registers of results where the gather takes 16: the u8
/// form keeps half of them on the stack. Which one runs (bench/NOTEBOOK.md, the transpose kernel):
/// u16 whole rows everywhere, one pass over the rows instead of four; u8 whole rows where the
/// gather's four passes would read the rows from L2 or memory (the block stage's buffers, rows
/// sharing an L1 set), the gather where they stay in L1 (rows 256 bytes apart), where its passes
/// cost less than the whole-row form's spills.
template <std::size_t ES, bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_lanes(const std::byte* src,
                                                       const std::ptrdiff_t* src_rows,
                                                       std::byte* dst,
                                                       const std::ptrdiff_t* dst_rows,
                                                       std::size_t) {
  constexpr std::size_t n = 16 / ES;
  STRIDED_UNROLLED
  for (std::size_t lane = 0; lane < 4; ++lane) {
    __m512i r[n];
    STRIDED_UNROLLED
    for (std::size_t k = 0; k < n; ++k) {
      __m512i v = _mm512_castsi128_si512(piece_of_row(src, src_rows, k, lane));
      v = _mm512_mask_broadcast_i32x4(v, 0x00F0, piece_of_row(src, src_rows, n + k, lane));
      v = _mm512_mask_broadcast_i32x4(v, 0x0F00, piece_of_row(src, src_rows, 2 * n + k, lane));
      r[k] = _mm512_mask_broadcast_i32x4(v, 0xF000, piece_of_row(src, src_rows, 3 * n + k, lane));
    }
    perfect_shuffle_avx512(r, UnpackInLane<ES>{});
    STRIDED_UNROLLED
    for (std::size_t t = 0; t < n; ++t) store_row(dst + dst_rows[n * lane + t], r[t], Stream);
  }
}

template <std::size_t ES, bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_whole_rows(const std::byte* src,
                                                            const std::ptrdiff_t* src_rows,
                                                            std::byte* dst,
                                                            const std::ptrdiff_t* dst_rows,
                                                            std::size_t) {
  constexpr std::size_t n = 16 / ES;
  __m512i out[4][n];
  STRIDED_UNROLLED
  for (std::size_t g = 0; g < 4; ++g) {
    __m512i r[n];
    STRIDED_UNROLLED
    for (std::size_t k = 0; k < n; ++k) r[k] = _mm512_loadu_si512(src + src_rows[g * n + k]);
    perfect_shuffle_avx512(r, UnpackInLane<ES>{});
    STRIDED_UNROLLED
    for (std::size_t t = 0; t < n; ++t) out[g][t] = r[t];
  }
  STRIDED_UNROLLED
  for (std::size_t t = 0; t < n; ++t) {
    __m512i v[4] = {out[0][t], out[1][t], out[2][t], out[3][t]};
    transpose_lanes_4x4(v);
    STRIDED_UNROLLED
    for (std::size_t lane = 0; lane < 4; ++lane)
      store_row(dst + dst_rows[n * lane + t], v[lane], Stream);
  }
}

}  // namespace strided::detail::simd

#undef STRIDED_AVX512_TARGET

#endif  // STRIDED_X86
