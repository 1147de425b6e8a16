// AVX2 + F16C cast kernels. Each `run` overload is bit-identical to detail::cast_value (design §5)
// under the default floating-point environment; tests compare them exhaustively or on edge tables.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/cast_kernel.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/half.hpp"

#if STRIDED_X86
#include <immintrin.h>

namespace strided::detail::cast_avx2 {

#define STRIDED_CAST_AVX2 [[gnu::target(STRIDED_AVX2_FEATURES), gnu::always_inline]] inline

using cast_x86::load16b;
using cast_x86::load32b;
using cast_x86::store;

STRIDED_CAST_AVX2 __m256 load8(const float* p) { return _mm256_loadu_ps(p); }

struct F32ToF16 : CastKernel<float, f16, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    const __m128i a = _mm256_cvtps_ph(load8(s), _MM_FROUND_TO_NEAREST_INT);
    const __m128i b = _mm256_cvtps_ph(load8(s + 8), _MM_FROUND_TO_NEAREST_INT);
    store<Stream>(d, _mm256_set_m128i(b, a));
  }
};

struct F16ToF32 : CastKernel<f16, float, 8> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    store<Stream>(d, _mm256_castps_si256(_mm256_cvtph_ps(load16b(s))));
  }
};

/// 8 f32 → 8 bf16 in the low half of 32-bit lanes (see round_to_bf16_bits).
STRIDED_CAST_AVX2 __m256i bf16_round8(__m256i x) {
  round_to_bf16_bits<8>(x);
  return x;
}

struct F32ToBf16 : CastKernel<float, bf16, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    const __m256i a = bf16_round8(load32b(s));
    const __m256i b = bf16_round8(load32b(s + 8));
    // packus works within 128-bit lanes: a0-3 b0-3 a4-7 b4-7, then reorder the 64-bit quarters.
    const __m256i packed = _mm256_packus_epi32(a, b);
    store<Stream>(d, _mm256_permute4x64_epi64(packed, 0xD8));
  }
};

/// 8 bf16 → 8 f32: a shift, then a NaN quieted (see quiet_widened_bf16).
STRIDED_CAST_AVX2 __m256i bf16_widen8(__m128i h) {
  __m256i x = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
  quiet_widened_bf16<8>(x);
  return x;
}

struct Bf16ToF32 : CastKernel<bf16, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    const __m256i h = load32b(s);
    store<Stream>(d, bf16_widen8(_mm256_castsi256_si128(h)));
    store<Stream>(d + 8, bf16_widen8(_mm256_extracti128_si256(h, 1)));
  }
};

struct F32ToF64 : CastKernel<float, double, 8> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    store<Stream>(d, _mm256_castpd_si256(_mm256_cvtps_pd(_mm_loadu_ps(s))));
    store<Stream>(d + 4, _mm256_castpd_si256(_mm256_cvtps_pd(_mm_loadu_ps(s + 4))));
  }
};

struct F64ToF32 : CastKernel<double, float, 8> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    const __m128 a = _mm256_cvtpd_ps(_mm256_loadu_pd(s));
    const __m128 b = _mm256_cvtpd_ps(_mm256_loadu_pd(s + 4));
    store<Stream>(d, _mm256_castps_si256(_mm256_set_m128(b, a)));
  }
};

/// f32 → i32, truncating; NaN → 0; >= 2^31 → INT32_MAX (cvtt gives INT32_MIN for both, and for
/// values <= -2^31, which is already the saturated answer).
STRIDED_CAST_AVX2 __m256i trunc_sat_i32(__m256 v) {
  const __m256i t = _mm256_cvttps_epi32(v);
  const __m256i too_big =
      _mm256_castps_si256(_mm256_cmp_ps(v, _mm256_set1_ps(0x1p31f), _CMP_GE_OQ));
  const __m256i ordered = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q));
  return _mm256_and_si256(_mm256_xor_si256(t, too_big), ordered);  // INT32_MIN ^ ~0 = INT32_MAX
}

/// f32 → integer in [lo, hi] (|lo|, |hi| < 2^24), truncating; NaN → 0. Clamping first keeps cvtt
/// in range; max_ps returns its second operand for a NaN, and the NaN lanes are zeroed after.
STRIDED_CAST_AVX2 __m256i trunc_clamp(__m256 v, float lo, float hi) {
  const __m256 c = _mm256_min_ps(_mm256_max_ps(v, _mm256_set1_ps(lo)), _mm256_set1_ps(hi));
  const __m256i ordered = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_ORD_Q));
  return _mm256_and_si256(_mm256_cvttps_epi32(c), ordered);
}

struct F32ToI32 : CastKernel<float, std::int32_t, 8> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    store<Stream>(d, trunc_sat_i32(load8(s)));
  }
};

/// Packs 4 × 8 lanes of 32-bit values (already in range) into 32 bytes, in order.
template <bool Signed>
STRIDED_CAST_AVX2 __m256i pack32x4(__m256i a, __m256i b, __m256i c, __m256i d) {
  const __m256i ab = _mm256_packs_epi32(a, b);  // a0-3 b0-3 | a4-7 b4-7
  const __m256i cd = _mm256_packs_epi32(c, d);
  const __m256i bytes = Signed ? _mm256_packs_epi16(ab, cd) : _mm256_packus_epi16(ab, cd);
  // bytes: a0-3 b0-3 c0-3 d0-3 | a4-7 b4-7 c4-7 d4-7 (dwords) → a b c d order.
  return _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

template <class Int, bool Signed>
struct F32ToByte : CastKernel<float, Int, 32> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const float* s, Int* d) {
    constexpr float lo = Signed ? -128.0f : 0.0f;
    constexpr float hi = Signed ? 127.0f : 255.0f;
    store<Stream>(d, pack32x4<Signed>(
                         trunc_clamp(load8(s), lo, hi), trunc_clamp(load8(s + 8), lo, hi),
                         trunc_clamp(load8(s + 16), lo, hi), trunc_clamp(load8(s + 24), lo, hi)));
  }
};

template <class Int, bool Signed>
struct ByteToF32 : CastKernel<Int, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Int* s, float* d) {
    const __m128i bytes = load16b(s);
    const __m256i lo = Signed ? _mm256_cvtepi8_epi32(bytes) : _mm256_cvtepu8_epi32(bytes);
    const __m128i high8 = _mm_unpackhi_epi64(bytes, bytes);
    const __m256i hi = Signed ? _mm256_cvtepi8_epi32(high8) : _mm256_cvtepu8_epi32(high8);
    store<Stream>(d, _mm256_castps_si256(_mm256_cvtepi32_ps(lo)));
    store<Stream>(d + 8, _mm256_castps_si256(_mm256_cvtepi32_ps(hi)));
  }
};

struct I32ToF32 : CastKernel<std::int32_t, float, 8> {
  template <bool Stream>
  STRIDED_CAST_AVX2 static void block(const Src* s, Dst* d) {
    store<Stream>(d, _mm256_castps_si256(_mm256_cvtepi32_ps(load32b(s))));
  }
};

#undef STRIDED_CAST_AVX2

using F32ToI8 = F32ToByte<std::int8_t, true>;
using F32ToU8 = F32ToByte<std::uint8_t, false>;
using I8ToF32 = ByteToF32<std::int8_t, true>;
using U8ToF32 = ByteToF32<std::uint8_t, false>;

#define STRIDED_CAST_DRIVER [[gnu::target(STRIDED_AVX2_FEATURES)]]
#define STRIDED_CAST_STREAM_ALIGN 32
#include "strided/detail/simd/cast_driver.inl"

}  // namespace strided::detail::cast_avx2

#endif  // STRIDED_X86
