// AVX2 + F16C cast kernels. Each `run` overload is bit-identical to detail::cast_value
// (docs/casts.md#rules) under the default floating-point environment; tests compare them
// exhaustively or on edge tables.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/cast_kernel.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/half.hpp"

#if STRIDED_X86
#include <immintrin.h>

namespace strided::detail::cast_avx2 {

#define STRIDED_CAST_KERNEL [[gnu::target(STRIDED_AVX2_FEATURES), gnu::always_inline]] inline

using cast_x86::load16b;
using cast_x86::load32b;
using cast_x86::store;

// The operations cast_x86_kernels.inl is written on, at 256 bits (full) and 128 bits (half).
inline constexpr std::size_t lanes = 8;
STRIDED_CAST_KERNEL __m128i f32_to_f16(__m256 v) {
  return _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
}
STRIDED_CAST_KERNEL __m256 f16_to_f32(__m128i h) { return _mm256_cvtph_ps(h); }
STRIDED_CAST_KERNEL __m256d f32_to_f64(__m128 h) { return _mm256_cvtps_pd(h); }
STRIDED_CAST_KERNEL __m256i join(__m128i lo, __m128i hi) { return _mm256_set_m128i(hi, lo); }
STRIDED_CAST_KERNEL __m256 join(__m128 lo, __m128 hi) { return _mm256_set_m128(hi, lo); }

/// 8 of the 16 bytes (part 0: the low 8, part 1: the high 8), sign- or zero-extended to 32 bits.
template <class Int>
STRIDED_CAST_KERNEL __m256i widen_bytes(__m128i bytes, std::size_t part) {
  const __m128i eight = part == 0 ? bytes : _mm_unpackhi_epi64(bytes, bytes);
  return std::is_signed_v<Int> ? _mm256_cvtepi8_epi32(eight) : _mm256_cvtepu8_epi32(eight);
}

/// packus works within 128-bit lanes: a0-3 b0-3 a4-7 b4-7, then reorder the 64-bit quarters.
STRIDED_CAST_KERNEL __m256i pack_low_u16(__m256i a, __m256i b) {
  return _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
}

#include "strided/detail/simd/cast_x86_kernels.inl"

/// 8 bf16 → 8 f32: a shift, then a NaN quieted (see quiet_widened_bf16).
STRIDED_CAST_KERNEL __m256i bf16_widen8(__m128i h) {
  __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
  quiet_widened_bf16<8>(x);
  return x;
}

struct Bf16ToF32 : CastKernel<bf16, float, 16> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    const __m256i h = load32b(s);
    store<Stream>(d, bf16_widen8(_mm256_castsi256_si128(h)));
    store<Stream>(d + 8, bf16_widen8(_mm256_extracti128_si256(h, 1)));
  }
};

/// f32 → i32, truncating; NaN → 0; >= 2^31 → INT32_MAX (cvtt gives INT32_MIN for both, and for
/// values <= -2^31, which is already the saturated answer).
STRIDED_CAST_KERNEL __m256i trunc_sat_i32(__m256 v) {
  const __m256i t = _mm256_cvttps_epi32(v);
  const __m256i too_big =
      _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_set1_ps(0x1p31f), _CMP_GE_OQ));
  const __m256i ordered = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q));
  return _mm256_and_si256(_mm256_xor_si256(t, too_big), ordered);  // INT32_MIN ^ ~0 = INT32_MAX
}

/// f32 → the 8-bit integer Int in 32-bit lanes, truncating; NaN → 0. Clamping first keeps cvtt
/// in range; max_ps returns its second operand for a NaN, and the NaN lanes are zeroed after.
template <class Int>
STRIDED_CAST_KERNEL __m256i trunc_clamp(__m256 v) {
  const __m256 c = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(int_min_f32<Int>)),
                                 _mm256_set1_ps(int_max_f32<Int>));
  const __m256i ordered = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q));
  return _mm256_and_si256(_mm256_cvttps_epi32(c), ordered);
}

struct F32ToI32 : CastKernel<float, std::int32_t, 8> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    store<Stream>(d, trunc_sat_i32(load<F32>(s)));
  }
};

/// Packs 4 × 8 lanes of 32-bit values (already in range) into 32 bytes, in order.
template <bool Signed>
STRIDED_CAST_KERNEL __m256i pack32x4(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_packs_epi32(a, b);  // a0-3 b0-3 | a4-7 b4-7
  const __m256i cd = _mm256_packs_epi32(c, d);
  const __m256i bytes = Signed ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
  // bytes: a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7 (dwords) → a b c d order.
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

template <class Int, bool Signed>
struct F32ToByte : CastKernel<float, Int, 32> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const float* s, Int* d) {
    store<Stream>(d, pack32x4<Signed>(
                         trunc_clamp<Int>(load<F32>(s)), trunc_clamp<Int>(load<F32>(s + 8)),
                         trunc_clamp<Int>(load<F32>(s + 16)), trunc_clamp<Int>(load<F32>(s + 24))));
  }
};

#undef STRIDED_CAST_KERNEL

using F32ToI8 = F32ToByte<std::int8_t, true>;
using F32ToU8 = F32ToByte<std::uint8_t, false>;

#define STRIDED_CAST_DRIVER [[gnu::target(STRIDED_AVX2_FEATURES)]]
#define STRIDED_CAST_STREAM_ALIGN 32
#include "strided/detail/simd/cast_driver.inl"

}  // namespace strided::detail::cast_avx2

#endif  // STRIDED_X86
