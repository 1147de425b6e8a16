// AVX2 transpose micro-kernels (ymm registers). Two families:
//
// - The square kernels (8 x 8 four-byte, 4 x 4 eight-byte elements) store 32-byte rows: half a
//   cache line. They serve groups too short for a whole-line tile (high-rank permutes).
// - The whole-line kernels: a (64/es) x (64/es) tile for every element size (and 16 x 8 four-byte,
//   8 x 4 eight-byte ones for I groups of 8 and 4), so that each destination row is written as one
//   whole 64-byte line within one kernel call (streamable), and, in the square tiles, each source
//   row read as one. Sub-line stores leave destination lines half written until a later
//   kernel completes them; with power-of-two leading dimensions those lines share L1 sets and are
//   evicted and fetched again in between. This is the AVX-512 kernels' shape (64-byte rows) built
//   from two 32-byte halves.
//
// 128-bit lanes make an 8 x 8 ymm transpose two-stage (in-lane unpacks/shuffles, then
// vperm2f128). The 1- and 2-byte kernels use the lanes instead: each ymm register holds two
// 16-byte rows of two different N x N blocks (N = 16/es), and the in-lane perfect-shuffle network
// of transpose_sse2.hpp transposes both blocks at once, so that register t ends up holding 32
// contiguous bytes of destination row t.
#pragma once

#include <array>
#include <cstddef>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

#if STRIDED_X86
#include <immintrin.h>

#define STRIDED_AVX2_TARGET [[gnu::target(STRIDED_AVX2_FEATURES)]]

namespace strided::detail::simd {

/// Stream = true: non-temporal store; the caller guarantees 32-byte alignment.
template <bool Stream>
STRIDED_AVX2_TARGET inline void store_half_line(std::byte* p, __m256i v) {
  if constexpr (Stream)
    _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
  else
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

/// 8 x 8 four-byte elements in registers: r[i] (row i) becomes column i.
STRIDED_AVX2_TARGET [[gnu::always_inline]] inline void transpose_8x8_ps(__m256 (&r)[8]) {
  __m256 t[8], s[8];
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  STRIDED_UNROLLED
  for (std::size_t h = 0; h < 2; ++h) {  // rows 0-3, then rows 4-7
    const std::size_t b = 4 * h;
    s[b + 0] = _mm256_shuffle_ps(t[b + 0], t[b + 2], 0x44);
    s[b + 1] = _mm256_shuffle_ps(t[b + 0], t[b + 2], 0xEE);
    s[b + 2] = _mm256_shuffle_ps(t[b + 1], t[b + 3], 0x44);
    s[b + 3] = _mm256_shuffle_ps(t[b + 1], t[b + 3], 0xEE);
  }
  STRIDED_UNROLLED
  for (std::size_t c = 0; c < 4; ++c) {
    r[c] = _mm256_permute2f128_ps(s[c], s[c + 4], 0x20);
    r[c + 4] = _mm256_permute2f128_ps(s[c], s[c + 4], 0x31);
  }
}

/// 4 x 4 eight-byte elements in registers: r[i] (row i) becomes column i.
STRIDED_AVX2_TARGET [[gnu::always_inline]] inline void transpose_4x4_pd(__m256d (&r)[4]) {
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  r[0] = _mm256_permute2f128_pd(t0, t2, 0x20);
  r[1] = _mm256_permute2f128_pd(t1, t3, 0x20);
  r[2] = _mm256_permute2f128_pd(t0, t2, 0x31);
  r[3] = _mm256_permute2f128_pd(t1, t3, 0x31);
}

/// The 8 x 8 four-byte tile whose rows start at src + rows[0..8), transposed: out[c] = column c.
STRIDED_AVX2_TARGET [[gnu::always_inline]] inline void load_transposed_u32(
    const std::byte* src, const std::ptrdiff_t* rows, __m256i (&out)[8]) {
  __m256 r[8];
  STRIDED_UNROLLED
  for (std::size_t k = 0; k < 8; ++k)
    r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + rows[k]));
  transpose_8x8_ps(r);
  STRIDED_UNROLLED
  for (std::size_t c = 0; c < 8; ++c) out[c] = _mm256_castps_si256(r[c]);
}

/// The 4 x 4 eight-byte tile whose rows start at src + rows[0..4), transposed.
STRIDED_AVX2_TARGET [[gnu::always_inline]] inline void load_transposed_u64(
    const std::byte* src, const std::ptrdiff_t* rows, __m256i (&out)[4]) {
  __m256d r[4];
  STRIDED_UNROLLED
  for (std::size_t k = 0; k < 4; ++k)
    r[k] = _mm256_loadu_pd(reinterpret_cast<const double*>(src + rows[k]));
  transpose_4x4_pd(r);
  STRIDED_UNROLLED
  for (std::size_t c = 0; c < 4; ++c) out[c] = _mm256_castpd_si256(r[c]);
}

/// B x B tiles of ES-byte elements (B = 32/ES: 8 x 8 four-byte, 4 x 4 eight-byte), each
/// destination row stored as one 32-byte half line.
template <std::size_t ES>
STRIDED_AVX2_TARGET void transpose_tile_avx2_square(const std::byte* src,
                                                    const std::ptrdiff_t* src_rows, std::byte* dst,
                                                    const std::ptrdiff_t* dst_rows, std::size_t) {
  constexpr std::size_t b = 32 / ES;
  __m256i out[b];
  if constexpr (ES == 4)
    load_transposed_u32(src, src_rows, out);
  else
    load_transposed_u64(src, src_rows, out);
  STRIDED_UNROLLED
  for (std::size_t c = 0; c < b; ++c) store_half_line<false>(dst + dst_rows[c], out[c]);
}

/// Stores destination rows from their two 32-byte halves, one row after the other: interleaving
/// the halves of different rows leaves many lines partly written at once, more than the
/// write-combining buffers of streaming stores hold, so partial lines go to memory (see
/// docs/performance.md).
template <bool Stream, std::size_t N>
STRIDED_AVX2_TARGET [[gnu::always_inline]] inline void store_lines(std::byte* dst,
                                                                   const std::ptrdiff_t* dst_rows,
                                                                   const __m256i (&first)[N],
                                                                   const __m256i (&second)[N]) {
  STRIDED_UNROLLED
  for (std::size_t c = 0; c < N; ++c) {
    store_half_line<Stream>(dst + dst_rows[c], first[c]);
    store_half_line<Stream>(dst + dst_rows[c] + 32, second[c]);
  }
}

/// 2B source rows x WI destination rows of ES-byte elements (B = 32/ES; WI a multiple of B): per
/// B destination rows, two B x B transposes (source rows 0..B-1 and B..2B-1) give the two halves
/// of each destination line.
template <std::size_t ES, std::size_t WI, bool Stream>
STRIDED_AVX2_TARGET void transpose_tile_avx2_lines(const std::byte* src,
                                                   const std::ptrdiff_t* src_rows, std::byte* dst,
                                                   const std::ptrdiff_t* dst_rows, std::size_t) {
  constexpr std::size_t b = 32 / ES;
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < WI; i += b) {
    __m256i halves[2][b];
    STRIDED_UNROLLED
    for (std::size_t half = 0; half < 2; ++half) {
      if constexpr (ES == 4)
        load_transposed_u32(src + i * ES, src_rows + b * half, halves[half]);
      else
        load_transposed_u64(src + i * ES, src_rows + b * half, halves[half]);
    }
    store_lines<Stream>(dst, dst_rows + i, halves[0], halves[1]);
  }
}

/// The in-lane perfect-shuffle network of transpose_sse2.hpp on ymm registers (both 128-bit
/// lanes at once), with 1- or 2-byte unpacks.
template <std::size_t ES, std::size_t N>
STRIDED_AVX2_TARGET [[gnu::always_inline]] inline void perfect_shuffle_avx2(__m256i (&r)[N]) {
  STRIDED_UNROLLED
  for (std::size_t round = 1; round < N; round *= 2) {
    __m256i o[N];
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < N / 2; ++i) {
      if constexpr (ES == 1) {
        o[2 * i] = _mm256_unpacklo_epi8(r[i], r[i + N / 2]);
        o[2 * i + 1] = _mm256_unpackhi_epi8(r[i], r[i + N / 2]);
      } else {
        o[2 * i] = _mm256_unpacklo_epi16(r[i], r[i + N / 2]);
        o[2 * i + 1] = _mm256_unpackhi_epi16(r[i], r[i + N / 2]);
      }
    }
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < N; ++i) r[i] = o[i];
  }
}

/// (64/ES) x (64/ES) tile of 1- or 2-byte elements, N = 16/ES: four stripes of N destination
/// rows (16 bytes of each source row), each in two halves of 2N source rows. Register k of a half
/// is loaded from source rows k (low lane) and N + k (high lane). Each stripe reads 16 bytes of
/// every source row; `Buffered` reads the rows whole into an L1 buffer first (see
/// TileKernel::buffered).
template <std::size_t ES, bool Stream, bool Buffered>
STRIDED_AVX2_TARGET void transpose_tile_avx2_lanes(const std::byte* src,
                                                   const std::ptrdiff_t* src_rows, std::byte* dst,
                                                   const std::ptrdiff_t* dst_rows, std::size_t) {
  constexpr std::size_t n = 16 / ES, rows = 4 * n;
  alignas(64) std::array<std::byte, Buffered ? rows * 64 : 1> buffer;
  if constexpr (Buffered) {
    STRIDED_UNROLLED
    for (std::size_t row = 0; row < rows; ++row) {
      STRIDED_UNROLLED
      for (std::size_t half = 0; half < 64; half += 32)
        _mm256_store_si256(
            reinterpret_cast<__m256i*>(buffer.data() + 64 * row + half),
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + src_rows[row] + half)));
    }
  }
  auto row_at = [&](std::size_t row) {
    return Buffered ? buffer.data() + 64 * row : src + src_rows[row];
  };
  STRIDED_UNROLLED
  for (std::size_t stripe = 0; stripe < 4; ++stripe) {
    __m256i halves[2][n];
    STRIDED_UNROLLED
    for (std::size_t half = 0; half < 2; ++half) {
      const std::size_t first = 2 * n * half;
      __m256i(&r)[n] = halves[half];
      STRIDED_UNROLLED
      for (std::size_t k = 0; k < n; ++k) {
        const auto* lo = reinterpret_cast<const __m128i*>(row_at(first + k) + 16 * stripe);
        const auto* hi = reinterpret_cast<const __m128i*>(row_at(first + n + k) + 16 * stripe);
        r[k] = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128(lo)),
                                       _mm_loadu_si128(hi), 1);
      }
      perfect_shuffle_avx2<ES>(r);
    }
    store_lines<Stream>(dst, dst_rows + n * stripe, halves[0], halves[1]);
  }
}

}  // namespace strided::detail::simd

#undef STRIDED_AVX2_TARGET

#endif  // STRIDED_X86
