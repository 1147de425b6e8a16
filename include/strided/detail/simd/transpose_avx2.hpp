// AVX2 transpose micro-kernels: 8 x 8 four-byte and 4 x 4 eight-byte elements (ymm registers).
// 128-bit lanes make the ymm network two-stage: in-lane unpacks/shuffles, then permute2f128.
#pragma once

#include <cstddef>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

#if STRIDED_X86
#include <immintrin.h>

namespace strided::detail::simd {

[[gnu::target("avx2,fma,f16c")]] inline void transpose_tile_avx2_u32(const std::byte* src,
                                                                     const std::ptrdiff_t* src_rows,
                                                                     std::byte* dst,
                                                                     const std::ptrdiff_t* dst_rows,
                                                                     std::size_t) {
  __m256 r[8];
  for (std::size_t i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(reinterpret_cast<const float*>(src + src_rows[i]));
  __m256 t[8], s[8];
  for (std::size_t i = 0; i < 4; ++i) {
    t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
    t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
  }
  for (std::size_t h = 0; h < 2; ++h) {  // rows 0-3, then rows 4-7
    const std::size_t b = 4 * h;
    s[b + 0] = _mm256_shuffle_ps(t[b + 0], t[b + 2], 0x44);
    s[b + 1] = _mm256_shuffle_ps(t[b + 0], t[b + 2], 0xEE);
    s[b + 2] = _mm256_shuffle_ps(t[b + 1], t[b + 3], 0x44);
    s[b + 3] = _mm256_shuffle_ps(t[b + 1], t[b + 3], 0xEE);
  }
  for (std::size_t c = 0; c < 4; ++c) {
    const __m256 lo = _mm256_permute2f128_ps(s[c], s[c + 4], 0x20);
    const __m256 hi = _mm256_permute2f128_ps(s[c], s[c + 4], 0x31);
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + dst_rows[c]), lo);
    _mm256_storeu_ps(reinterpret_cast<float*>(dst + dst_rows[c + 4]), hi);
  }
}

[[gnu::target("avx2,fma,f16c")]] inline void transpose_tile_avx2_u64(const std::byte* src,
                                                                     const std::ptrdiff_t* src_rows,
                                                                     std::byte* dst,
                                                                     const std::ptrdiff_t* dst_rows,
                                                                     std::size_t) {
  __m256d r[4];
  for (std::size_t i = 0; i < 4; ++i)
    r[i] = _mm256_loadu_pd(reinterpret_cast<const double*>(src + src_rows[i]));
  const __m256d t0 = _mm256_unpacklo_pd(r[0], r[1]), t1 = _mm256_unpackhi_pd(r[0], r[1]);
  const __m256d t2 = _mm256_unpacklo_pd(r[2], r[3]), t3 = _mm256_unpackhi_pd(r[2], r[3]);
  _mm256_storeu_pd(reinterpret_cast<double*>(dst + dst_rows[0]),
                   _mm256_permute2f128_pd(t0, t2, 0x20));
  _mm256_storeu_pd(reinterpret_cast<double*>(dst + dst_rows[1]),
                   _mm256_permute2f128_pd(t1, t3, 0x20));
  _mm256_storeu_pd(reinterpret_cast<double*>(dst + dst_rows[2]),
                   _mm256_permute2f128_pd(t0, t2, 0x31));
  _mm256_storeu_pd(reinterpret_cast<double*>(dst + dst_rows[3]),
                   _mm256_permute2f128_pd(t1, t3, 0x31));
}

}  // namespace strided::detail::simd

#endif  // STRIDED_X86
