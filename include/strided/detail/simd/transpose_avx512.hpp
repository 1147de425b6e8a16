// AVX-512 transpose micro-kernels: 16 x 16 four-byte (zmm), 8 x 8 eight-byte (zmm) and
// 16 x 16 two-byte (ymm, AVX-512BW+VL) elements.
//
// vpermt2 permutes across the whole register, so the perfect-shuffle network of
// transpose_sse2.hpp applies directly: log2(N) rounds of
//   out[2i] = interleave_low(in[i], in[i + N/2]),  out[2i+1] = interleave_high(...).
#pragma once

#include <cstddef>
#include <cstdint>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

#if STRIDED_X86
#include <immintrin.h>

#define STRIDED_AVX512_TARGET [[gnu::target("avx512f,avx512bw,avx512dq,avx512vl")]]

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

template <bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_u32(const std::byte* src,
                                                     const std::ptrdiff_t* src_rows, std::byte* dst,
                                                     const std::ptrdiff_t* dst_rows, std::size_t) {
  // idx[k] = k/2 (+16: second operand when k is odd); high half starts at 8.
  const __m512i lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i hi =
      _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  __m512i r[16];
  for (std::size_t i = 0; i < 16; ++i) r[i] = _mm512_loadu_si512(src + src_rows[i]);
  for (int round = 0; round < 4; ++round) {
    __m512i o[16];
    for (std::size_t i = 0; i < 8; ++i) {
      o[2 * i] = _mm512_permutex2var_epi32(r[i], lo, r[i + 8]);
      o[2 * i + 1] = _mm512_permutex2var_epi32(r[i], hi, r[i + 8]);
    }
    for (std::size_t i = 0; i < 16; ++i) r[i] = o[i];
  }
  for (std::size_t i = 0; i < 16; ++i) store_row(dst + dst_rows[i], r[i], Stream);
}

template <bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_u64(const std::byte* src,
                                                     const std::ptrdiff_t* src_rows, std::byte* dst,
                                                     const std::ptrdiff_t* dst_rows, std::size_t) {
  const __m512i lo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
  const __m512i hi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
  __m512i r[8];
  for (std::size_t i = 0; i < 8; ++i) r[i] = _mm512_loadu_si512(src + src_rows[i]);
  for (int round = 0; round < 3; ++round) {
    __m512i o[8];
    for (std::size_t i = 0; i < 4; ++i) {
      o[2 * i] = _mm512_permutex2var_epi64(r[i], lo, r[i + 4]);
      o[2 * i + 1] = _mm512_permutex2var_epi64(r[i], hi, r[i + 4]);
    }
    for (std::size_t i = 0; i < 8; ++i) r[i] = o[i];
  }
  for (std::size_t i = 0; i < 8; ++i) store_row(dst + dst_rows[i], r[i], Stream);
}

template <bool Stream>
STRIDED_AVX512_TARGET void transpose_tile_avx512_u16(const std::byte* src,
                                                     const std::ptrdiff_t* src_rows, std::byte* dst,
                                                     const std::ptrdiff_t* dst_rows, std::size_t) {
  const __m256i lo = _mm256_setr_epi16(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
  const __m256i hi =
      _mm256_setr_epi16(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
  __m256i r[16];
  for (std::size_t i = 0; i < 16; ++i)
    r[i] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + src_rows[i]));
  for (int round = 0; round < 4; ++round) {
    __m256i o[16];
    for (std::size_t i = 0; i < 8; ++i) {
      o[2 * i] = _mm256_permutex2var_epi16(r[i], lo, r[i + 8]);
      o[2 * i + 1] = _mm256_permutex2var_epi16(r[i], hi, r[i + 8]);
    }
    for (std::size_t i = 0; i < 16; ++i) r[i] = o[i];
  }
  for (std::size_t i = 0; i < 16; ++i) store_row(dst + dst_rows[i], r[i], Stream);
}

}  // namespace strided::detail::simd

#undef STRIDED_AVX512_TARGET

#endif  // STRIDED_X86
