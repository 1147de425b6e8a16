// NEON transpose micro-kernels (aarch64): 16 x 16 bytes, 8 x 8 two-byte, 4 x 4 four-byte and
// 2 x 2 eight-byte elements, one 128-bit register per row.
//
// All four use the perfect-shuffle network of the SSE2 kernels, with zip1/zip2 (the element-width
// interleave of the low and high halves) in place of unpacklo/unpackhi: log2(N) rounds of
//   out[2i] = zip1(in[i], in[i + N/2]),  out[2i+1] = zip2(in[i], in[i + N/2]).
// Each round moves one bit of the column index into the register index and one bit of the row
// index into the lane index, so after log2(N) rounds the tile is transposed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

#if STRIDED_NEON
#include <arm_neon.h>

namespace strided::detail::simd {

namespace neon_impl {

/// zip1/zip2 at the element width ES, on registers viewed as bytes.
template <std::size_t ES>
inline void zip(uint8x16_t a, uint8x16_t b, uint8x16_t& lo, uint8x16_t& hi) {
  if constexpr (ES == 1) {
    lo = vzip1q_u8(a, b);
    hi = vzip2q_u8(a, b);
  } else if constexpr (ES == 2) {
    lo = vreinterpretq_u8_u16(vzip1q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)));
    hi = vreinterpretq_u8_u16(vzip2q_u16(vreinterpretq_u16_u8(a), vreinterpretq_u16_u8(b)));
  } else if constexpr (ES == 4) {
    lo = vreinterpretq_u8_u32(vzip1q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)));
    hi = vreinterpretq_u8_u32(vzip2q_u32(vreinterpretq_u32_u8(a), vreinterpretq_u32_u8(b)));
  } else {
    static_assert(ES == 8);
    lo = vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)));
    hi = vreinterpretq_u8_u64(vzip2q_u64(vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b)));
  }
}

}  // namespace neon_impl

/// Transposes a W x W tile of ES-byte elements, W = 16 / ES (one register per row).
template <std::size_t ES>
inline void transpose_tile_neon(const std::byte* src, const std::ptrdiff_t* src_rows,
                                std::byte* dst, const std::ptrdiff_t* dst_rows, std::size_t) {
  constexpr std::size_t n = 16 / ES;
  uint8x16_t r[n];
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < n; ++i)
    r[i] = vld1q_u8(reinterpret_cast<const std::uint8_t*>(src + src_rows[i]));
  STRIDED_UNROLLED
  for (std::size_t round = 1; round < n; round *= 2) {
    uint8x16_t o[n];
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < n / 2; ++i)
      neon_impl::zip<ES>(r[i], r[i + n / 2], o[2 * i], o[2 * i + 1]);
    STRIDED_UNROLLED
    for (std::size_t i = 0; i < n; ++i) r[i] = o[i];
  }
  STRIDED_UNROLLED
  for (std::size_t i = 0; i < n; ++i)
    vst1q_u8(reinterpret_cast<std::uint8_t*>(dst + dst_rows[i]), r[i]);
}

}  // namespace strided::detail::simd

#endif  // STRIDED_NEON
