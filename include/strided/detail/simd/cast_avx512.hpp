// AVX-512 (F/BW/DQ/VL, and BF16 where present) cast kernels. Each `run` overload is bit-identical
// to detail::cast_value (design §5) under the default floating-point environment.
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

// GCC 12.2's AVX-512 intrinsics read a deliberately undefined vector (PR105593: false
// -Wuninitialized), and 512-bit vector parameters in a TU built without AVX-512 draw -Wpsabi
// although every such function here is inlined into an AVX-512 target function.
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#endif

namespace strided::detail::cast_avx512 {

#define STRIDED_CAST_AVX512 [[gnu::target(STRIDED_AVX512_FEATURES), gnu::always_inline]] inline
#define STRIDED_CAST_AVX512_BF16 \
  [[gnu::target(STRIDED_AVX512_FEATURES ",avx512bf16"), gnu::always_inline]] inline

using cast_x86::load16b;
using cast_x86::load32b;
using cast_x86::store;

template <bool Stream>
STRIDED_CAST_AVX512 void store(void* p, __m512i v) {
  if constexpr (Stream)
    _mm512_stream_si512(static_cast<__m512i*>(p), v);
  else
    _mm512_storeu_si512(p, v);
}
STRIDED_CAST_AVX512 __m512 load16(const float* p) { return _mm512_loadu_ps(p); }
STRIDED_CAST_AVX512 __m512i load64b(const void* p) { return _mm512_loadu_si512(p); }

struct F32ToF16 : CastKernel<float, f16, 32> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    const __m256i a = _mm512_cvtps_ph(load16(s), _MM_FROUND_TO_NEAREST_INT);
    const __m256i b = _mm512_cvtps_ph(load16(s + 16), _MM_FROUND_TO_NEAREST_INT);
    store<Stream>(d, _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1));
  }
};

struct F16ToF32 : CastKernel<f16, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    store<Stream>(d, _mm512_castps_si512(_mm512_cvtph_ps(load32b(s))));
  }
};

/// 16 f32 → 16 bf16 (see round_to_bf16_bits).
STRIDED_CAST_AVX512 __m256i bf16_round16(__m512i x) {
  round_to_bf16_bits<16>(x);
  return _mm512_cvtepi32_epi16(x);
}

/// f32 → bf16 with integer rounding only (AVX-512 without the BF16 extension).
struct F32ToBf16 : CastKernel<float, bf16, 32> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    const __m256i a = bf16_round16(load64b(s));
    const __m256i b = bf16_round16(load64b(s + 16));
    store<Stream>(d, _mm512_inserti64x4(_mm512_castsi256_si512(a), b, 1));
  }
};

/// Lanes holding a nonzero subnormal, which vcvtne(2)ps2bf16 would flush to zero.
STRIDED_CAST_AVX512 __mmask16 subnormal_lanes(__m512i x) {
  const __m512i magnitude = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
  return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(magnitude, _mm512_set1_epi32(1)),
                                 _mm512_set1_epi32(0x007fffff));
}

/// f32 → bf16 with vcvtne2ps2bf16 (round to nearest even, NaN → (bits >> 16) | 0x40, as the
/// reference), falling back to integer rounding for a block holding a subnormal input.
struct F32ToBf16Native : CastKernel<float, bf16, 32> {
  template <bool Stream>
  STRIDED_CAST_AVX512_BF16 static void block(const Src* s, Dst* d) {
    const __m512i a = load64b(s);
    const __m512i b = load64b(s + 16);
    if ((subnormal_lanes(a) | subnormal_lanes(b)) != 0) {
      return F32ToBf16::block<Stream>(s, d);
    }
    const __m512bh r = _mm512_cvtne2ps_pbh(_mm512_castsi512_ps(b), _mm512_castsi512_ps(a));
    store<Stream>(d, (__m512i)r);  // same-size vector reinterpretation
  }
};

struct Bf16ToF32 : CastKernel<bf16, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    __m512i x = _mm512_slli_epi32(_mm512_cvtepu16_epi32(load32b(s)), 16);
    quiet_widened_bf16<16>(x);
    store<Stream>(d, x);
  }
};

struct F32ToF64 : CastKernel<float, double, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    store<Stream>(d, _mm512_castpd_si512(_mm512_cvtps_pd(_mm256_loadu_ps(s))));
    store<Stream>(d + 8, _mm512_castpd_si512(_mm512_cvtps_pd(_mm256_loadu_ps(s + 8))));
  }
};

struct F64ToF32 : CastKernel<double, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    const __m256 a = _mm512_cvtpd_ps(_mm512_loadu_pd(s));
    const __m256 b = _mm512_cvtpd_ps(_mm512_loadu_pd(s + 8));
    store<Stream>(d, _mm512_castps_si512(_mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1)));
  }
};

struct F32ToI32 : CastKernel<float, std::int32_t, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    const __m512 v = load16(s);
    const __mmask16 too_big = _mm512_cmp_ps_mask(v, _mm512_set1_ps(0x1p31f), _CMP_GE_OQ);
    const __mmask16 ordered = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
    __m512i t = _mm512_cvttps_epi32(v);  // INT32_MIN for NaN and out of range
    t = _mm512_mask_mov_epi32(t, too_big, _mm512_set1_epi32(0x7fffffff));
    store<Stream>(d, _mm512_maskz_mov_epi32(ordered, t));
  }
};

/// f32 → 32-bit integers in [lo, hi], truncating; NaN → 0 (see cast_avx2::trunc_clamp).
STRIDED_CAST_AVX512 __m512i trunc_clamp(__m512 v, float lo, float hi) {
  const __m512 c = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(lo)), _mm512_set1_ps(hi));
  return _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), _mm512_cvttps_epi32(c));
}

template <class Int, bool Signed>
struct F32ToByte : CastKernel<float, Int, 64> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const float* s, Int* d) {
    constexpr float lo = Signed ? -128.0f : 0.0f;
    constexpr float hi = Signed ? 127.0f : 255.0f;
    for (int k = 0; k < 4; ++k) {  // values are in range: vpmovdb truncation is exact
      store<Stream>(d + 16 * k, _mm512_cvtepi32_epi8(trunc_clamp(load16(s + 16 * k), lo, hi)));
    }
  }
};

template <class Int, bool Signed>
struct ByteToF32 : CastKernel<Int, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Int* s, float* d) {
    const __m128i bytes = load16b(s);
    const __m512i wide = Signed ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
    store<Stream>(d, _mm512_castps_si512(_mm512_cvtepi32_ps(wide)));
  }
};

struct I32ToF32 : CastKernel<std::int32_t, float, 16> {
  template <bool Stream>
  STRIDED_CAST_AVX512 static void block(const Src* s, Dst* d) {
    store<Stream>(d, _mm512_castps_si512(_mm512_cvtepi32_ps(load64b(s))));
  }
};

#undef STRIDED_CAST_AVX512
#undef STRIDED_CAST_AVX512_BF16

using F32ToI8 = F32ToByte<std::int8_t, true>;
using F32ToU8 = F32ToByte<std::uint8_t, false>;
using I8ToF32 = ByteToF32<std::int8_t, true>;
using U8ToF32 = ByteToF32<std::uint8_t, false>;

// Compiled with BF16 enabled so that F32ToBf16Native inlines; only that kernel emits BF16
// instructions, and run() picks it only when the CPU has them.
#define STRIDED_CAST_DRIVER [[gnu::target(STRIDED_AVX512_FEATURES ",avx512bf16")]]
#define STRIDED_CAST_STREAM_ALIGN 64
#define STRIDED_CAST_NATIVE_BF16
#include "strided/detail/simd/cast_driver.inl"

}  // namespace strided::detail::cast_avx512

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#endif  // STRIDED_X86
