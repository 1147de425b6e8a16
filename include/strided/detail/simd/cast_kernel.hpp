// What the cast kernels of every ISA level share: the description the driver reads
// (cast_driver.inl) and, on x86, the unaligned loads and the plain-or-streaming stores.
#pragma once

#include <cstddef>

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
