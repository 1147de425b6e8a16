// AVX-512 (F/BW/DQ/VL, and BF16 where present) cast kernels. Each `run` overload is bit-identical
// to detail::cast_value (docs/casts.md#rules) under the default floating-point environment.
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

#define STRIDED_CAST_KERNEL [[gnu::target(STRIDED_AVX512_FEATURES), gnu::always_inline]] inline
#define STRIDED_CAST_AVX512_BF16 \
  [[gnu::target(STRIDED_AVX512_FEATURES ",avx512bf16"), gnu::always_inline]] inline

using cast_x86::load16b;
using cast_x86::load32b;
using cast_x86::store;

template <bool Stream>
STRIDED_CAST_KERNEL void store(void* p, __m512i v) {
  if constexpr (Stream)
    _mm512_stream_si512(static_cast<__m512i*>(p), v);
  else
    _mm512_storeu_si512(p, v);
}

// The operations cast_x86_kernels.inl is written on, at 512 bits (full) and 256 bits (half).
inline constexpr std::size_t lanes = 16;
STRIDED_CAST_KERNEL __m256i f32_to_f16(__m512 v) {
  return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT);
}
STRIDED_CAST_KERNEL __m512 f16_to_f32(__m256i h) { return _mm512_cvtph_ps(h); }
STRIDED_CAST_KERNEL __m512d f32_to_f64(__m256 h) { return _mm512_cvtps_pd(h); }
STRIDED_CAST_KERNEL __m512i join(__m256i lo, __m256i hi) {
  return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
STRIDED_CAST_KERNEL __m512 join(__m256 lo, __m256 hi) {
  return _mm512_insertf32x8(_mm512_castps256_ps512(lo), hi, 1);
}

/// The 16 bytes, sign- or zero-extended to 32 bits (in one part).
template <class Int>
STRIDED_CAST_KERNEL __m512i widen_bytes(__m128i bytes, std::size_t /*part*/) {
  return std::is_signed_v<Int> ? _mm512_cvtepi8_epi32(bytes) : _mm512_cvtepu8_epi32(bytes);
}

/// vpmovdw keeps the low 16 bits of each lane (exact here: the values are below 2^16).
STRIDED_CAST_KERNEL __m512i pack_low_u16(__m512i a, __m512i b) {
  return join(_mm512_cvtepi32_epi16(a), _mm512_cvtepi32_epi16(b));
}

#include "strided/detail/simd/cast_x86_kernels.inl"

/// Lanes holding a nonzero subnormal, which vcvtne(2)ps2bf16 would flush to zero.
STRIDED_CAST_KERNEL __mmask16 subnormal_lanes(__m512i x) {
  const __m512i magnitude = _mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff));
  return _mm512_cmplt_epu32_mask(_mm512_sub_epi32(magnitude, _mm512_set1_epi32(1)),
                                 _mm512_set1_epi32(0x007fffff));
}

/// f32 → bf16 with vcvtne2ps2bf16 (round to nearest even, NaN → (bits >> 16) | 0x40, as the
/// reference), falling back to integer rounding for a block holding a subnormal input.
struct F32ToBf16Native : CastKernel<float, bf16, 32> {
  template <bool Stream>
  STRIDED_CAST_AVX512_BF16 static void block(const Src* s, Dst* d) {
    const __m512i a = load<Bits>(s);
    const __m512i b = load<Bits>(s + 16);
    if ((subnormal_lanes(a) | subnormal_lanes(b)) != 0) {
      return F32ToBf16::block<Stream>(s, d);
    }
    const __m512bh r = _mm512_cvtne2ps_pbh(_mm512_castsi512_ps(b), _mm512_castsi512_ps(a));
    store<Stream>(d, (__m512i)r);  // same-size vector reinterpretation
  }
};

struct Bf16ToF32 : CastKernel<bf16, float, 16> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    __m512i x = _mm512_slli_epi32(_mm512_cvtepu16_epi32(load32b(s)), 16);
    quiet_widened_bf16<16>(x);
    store<Stream>(d, x);
  }
};

struct F32ToI32 : CastKernel<float, std::int32_t, 16> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    const __m512 v = load<F32>(s);
    const __mmask16 too_big = _mm512_cmp_ps_mask(v, _mm512_set1_ps(0x1p31f), _CMP_GE_OQ);
    const __mmask16 ordered = _mm512_cmp_ps_mask(v, v, _CMP_ORD_Q);
    __m512i t = _mm512_cvttps_epi32(v);  // INT32_MIN for NaN and out of range
    t = _mm512_mask_mov_epi32(t, too_big, _mm512_set1_epi32(0x7fffffff));
    store<Stream>(d, _mm512_maskz_mov_epi32(ordered, t));
  }
};

/// f32 → the 8-bit integer Int in 32-bit lanes, truncating; NaN → 0 (see cast_avx2::trunc_clamp).
template <class Int>
STRIDED_CAST_KERNEL __m512i trunc_clamp(__m512 v) {
  const __m512 c = _mm512_min_ps(_mm512_max_ps(v, _mm512_set1_ps(int_min_f32<Int>)),
                                 _mm512_set1_ps(int_max_f32<Int>));
  return _mm512_maskz_mov_epi32(_mm512_cmp_ps_mask(v, v, _CMP_ORD_Q), _mm512_cvttps_epi32(c));
}

template <class Int, bool Signed>
struct F32ToByte : CastKernel<float, Int, 64> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const float* s, Int* d) {
    for (int k = 0; k < 4; ++k) {  // values are in range: vpmovdb truncation is exact
      store<Stream>(d + 16 * k, _mm512_cvtepi32_epi8(trunc_clamp<Int>(load<F32>(s + 16 * k))));
    }
  }
};

#undef STRIDED_CAST_KERNEL
#undef STRIDED_CAST_AVX512_BF16

using F32ToI8 = F32ToByte<std::int8_t, true>;
using F32ToU8 = F32ToByte<std::uint8_t, false>;

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
