// What the cast kernels of every ISA level share: the description the driver reads
// (cast_driver.inl) and, on x86, the unaligned loads and the plain-or-streaming stores.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include "strided/detail/simd/isa.hpp"

#if STRIDED_X86
#include <immintrin.h>
#endif

namespace strided::detail {

/// A cast kernel converts `step` elements of Src to Dst per call of its
/// `template <bool Stream> static void block(const Src*, Dst*)`; Stream asks for stores that
/// bypass the cache (the driver aligns the destination first).
template <class S, class D, std::size_t Step>
struct CastKernel {
  using Src = S;
  using Dst = D;
  static constexpr std::size_t step = Step;
};

/// GNU vectors of N 32-bit lanes. The bf16 bit arithmetic below is written once on them for every
/// ISA level, on any register of N 32-bit lanes (same-size vector casts).
template <std::size_t N>
using U32Lanes [[gnu::vector_size(4 * N)]] = std::uint32_t;
template <std::size_t N>
using I32Lanes [[gnu::vector_size(4 * N)]] = std::int32_t;

// The helpers take their vector by reference: clang rejects a wide vector passed by value to a
// function compiled without the ISA, even one that is always inlined.

/// f32 bit patterns → bf16 bit patterns in the low half of each lane. Round to nearest even: add
/// 0x7fff plus the lowest kept bit, keep the top half. A NaN keeps its top half with the quiet bit
/// set (the reference's NaN rule; no rounding may carry it into infinity).
template <std::size_t N, class Reg>
[[gnu::always_inline]] inline void round_to_bf16_bits(Reg& reg) {
  const auto x = (U32Lanes<N>)reg;
  const U32Lanes<N> rounded = (x + 0x7fff + ((x >> 16) & 1)) >> 16;
  const auto nan = (I32Lanes<N>)(x & 0x7fffffff) > 0x7f800000;  // magnitude < 2^31: signed ok
  reg = (Reg)(nan ? (x >> 16) | 0x40 : rounded);
}

/// bf16 bit patterns widened into the top half of each lane (an exact f32), with a NaN quieted
/// as every float → float cast does.
template <std::size_t N, class Reg>
[[gnu::always_inline]] inline void quiet_widened_bf16(Reg& reg) {
  auto x = (U32Lanes<N>)reg;
  const auto nan = (I32Lanes<N>)(x & 0x7fffffff) > 0x7f800000;  // all ones in a NaN's lane
  // 16 lanes (AVX-512): a select becomes one masked or; narrower vectors have no mask registers
  // and blend slower than they and-or.
  if constexpr (N >= 16)
    x = nan ? x | 0x00400000 : x;
  else
    x |= (U32Lanes<N>)nan & 0x00400000;
  reg = (Reg)x;
}

/// The range of the integer type Int as f32, where f32 → Int saturates (exact for the 8-bit
/// types the x86 kernels clamp to).
template <class Int>
inline constexpr float int_min_f32 = static_cast<float>(std::numeric_limits<Int>::min());
template <class Int>
inline constexpr float int_max_f32 = static_cast<float>(std::numeric_limits<Int>::max());

#if STRIDED_X86
namespace cast_x86 {

// Compiled for plain AVX2 so that both the AVX2 kernels (which add FMA and F16C) and the
// AVX-512 ones (whose target implies AVX2) may inline them.
#define STRIDED_CAST_X86 [[gnu::target("avx2"), gnu::always_inline]] inline

template <bool Stream>
STRIDED_CAST_X86 void store(void* p, __m128i v) {
  if constexpr (Stream)
    _mm_stream_si128(static_cast<__m128i*>(p), v);
  else
    _mm_storeu_si128(static_cast<__m128i*>(p), v);
}
template <bool Stream>
STRIDED_CAST_X86 void store(void* p, __m256i v) {
  if constexpr (Stream)
    _mm256_stream_si256(static_cast<__m256i*>(p), v);
  else
    _mm256_storeu_si256(static_cast<__m256i*>(p), v);
}
STRIDED_CAST_X86 __m128i load16b(const void* p) {
  return _mm_loadu_si128(static_cast<const __m128i*>(p));
}
STRIDED_CAST_X86 __m256i load32b(const void* p) {
  return _mm256_loadu_si256(static_cast<const __m256i*>(p));
}

#undef STRIDED_CAST_X86

}  // namespace cast_x86
#endif

}  // namespace strided::detail
