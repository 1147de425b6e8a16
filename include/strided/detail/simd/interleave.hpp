// Channel (de)interleave kernels: packed pixels of 2-4 channels <-> one plane per channel, for
// elements of 1, 2, 4 and 8 bytes, at every ISA level.
//
// Each kernel is one loop over pixels with a fixed channel count and element type, compiled once
// per level with [[gnu::target]]: with the channel pointers `restrict` and the count a constant,
// GCC and Clang turn the stride-C accesses into load-lanes / store-lanes shuffle networks
// (vpshufb + vpermq / vpermt2* on AVX-512, pshufb + palignr on AVX2) that move whole vectors of
// pixels per step. GCC's -O2 cost model ("very cheap") declines those permutes, so the SIMD
// levels ask for the dynamic model explicitly; at -O3 that is the default. Three channels of 1 or
// 2 bytes (RGB u8 images), where those networks fall well behind memcpy, have hand-written kernels
// (simd/interleave3_avx2.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "strided/detail/simd/interleave3_avx2.hpp"
#include "strided/detail/simd/isa.hpp"

namespace strided::detail::simd {

namespace interleave_impl {

// Element access through byte-aligned, may-alias types: views of any element type at any byte
// offset (tests use misaligned buffers) are read and written as plain integers.
template <std::size_t ES>
struct Elem;
template <>
struct Elem<1> {
  using type = std::uint8_t;
};
template <>
struct Elem<2> {
  typedef std::uint16_t type __attribute__((may_alias, aligned(1)));
};
template <>
struct Elem<4> {
  typedef std::uint32_t type __attribute__((may_alias, aligned(1)));
};
template <>
struct Elem<8> {
  typedef std::uint64_t type __attribute__((may_alias, aligned(1)));
};

template <std::size_t ES>
using E = typename Elem<ES>::type;

// Channel c of pixel i lives at packed[i * C + c] and at plane_c[i]. Unused planes are null.
template <std::size_t C, std::size_t ES>
[[gnu::always_inline]] inline void deinterleave_loop(const E<ES>* __restrict packed,
                                                     E<ES>* __restrict p0, E<ES>* __restrict p1,
                                                     E<ES>* __restrict p2, E<ES>* __restrict p3,
                                                     std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    p0[i] = packed[i * C];
    p1[i] = packed[i * C + 1];
    if constexpr (C > 2) p2[i] = packed[i * C + 2];
    if constexpr (C > 3) p3[i] = packed[i * C + 3];
  }
}

template <std::size_t C, std::size_t ES>
[[gnu::always_inline]] inline void interleave_loop(
    const E<ES>* __restrict p0, const E<ES>* __restrict p1, const E<ES>* __restrict p2,
    const E<ES>* __restrict p3, E<ES>* __restrict packed, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    packed[i * C] = p0[i];
    packed[i * C + 1] = p1[i];
    if constexpr (C > 2) packed[i * C + 2] = p2[i];
    if constexpr (C > 3) packed[i * C + 3] = p3[i];
  }
}

// Plane c starts at base + c * plane (bytes); the pointer is formed only for planes that exist.
template <class B>
inline B* plane_ptr(B* base, std::ptrdiff_t plane, std::size_t c, std::size_t channels) noexcept {
  return c < channels ? base + static_cast<std::ptrdiff_t>(c) * plane : nullptr;
}

template <std::size_t C, std::size_t ES>
[[gnu::always_inline]] inline void deinterleave_bytes(const std::byte* src, std::byte* dst,
                                                      std::ptrdiff_t plane,
                                                      std::size_t n) noexcept {
  auto p = [&](std::size_t c) { return reinterpret_cast<E<ES>*>(plane_ptr(dst, plane, c, C)); };
  deinterleave_loop<C, ES>(reinterpret_cast<const E<ES>*>(src), p(0), p(1), p(2), p(3), n);
}

template <std::size_t C, std::size_t ES>
[[gnu::always_inline]] inline void interleave_bytes(const std::byte* src, std::ptrdiff_t plane,
                                                    std::byte* dst, std::size_t n) noexcept {
  auto p = [&](std::size_t c) {
    return reinterpret_cast<const E<ES>*>(plane_ptr(src, plane, c, C));
  };
  interleave_loop<C, ES>(p(0), p(1), p(2), p(3), reinterpret_cast<E<ES>*>(dst), n);
}

}  // namespace interleave_impl

/// n pixels: packed source (C channels of es bytes each) -> C destination planes `plane` bytes
/// apart.
using DeinterleaveFn = void (*)(const std::byte* src, std::byte* dst, std::ptrdiff_t plane,
                                std::size_t n);
/// n pixels: C source planes `plane` bytes apart -> packed destination.
using InterleaveFn = void (*)(const std::byte* src, std::ptrdiff_t plane, std::byte* dst,
                              std::size_t n);

#if defined(__GNUC__) && !defined(__clang__)
#define STRIDED_VECTORIZE_PERMUTES , optimize("vect-cost-model=dynamic")
#else
#define STRIDED_VECTORIZE_PERMUTES
#endif

template <std::size_t C, std::size_t ES>
void deinterleave_scalar(const std::byte* s, std::byte* d, std::ptrdiff_t pl, std::size_t n) {
  interleave_impl::deinterleave_bytes<C, ES>(s, d, pl, n);
}
template <std::size_t C, std::size_t ES>
void interleave_scalar(const std::byte* s, std::ptrdiff_t pl, std::byte* d, std::size_t n) {
  interleave_impl::interleave_bytes<C, ES>(s, pl, d, n);
}

#if STRIDED_X86
template <std::size_t C, std::size_t ES>
__attribute__((target("avx2,fma,f16c") STRIDED_VECTORIZE_PERMUTES)) void deinterleave_avx2(
    const std::byte* s, std::byte* d, std::ptrdiff_t pl, std::size_t n) {
  interleave_impl::deinterleave_bytes<C, ES>(s, d, pl, n);
}
template <std::size_t C, std::size_t ES>
__attribute__((target("avx2,fma,f16c") STRIDED_VECTORIZE_PERMUTES)) void interleave_avx2(
    const std::byte* s, std::ptrdiff_t pl, std::byte* d, std::size_t n) {
  interleave_impl::interleave_bytes<C, ES>(s, pl, d, n);
}
template <std::size_t C, std::size_t ES>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl") STRIDED_VECTORIZE_PERMUTES)) void
deinterleave_avx512(const std::byte* s, std::byte* d, std::ptrdiff_t pl, std::size_t n) {
  interleave_impl::deinterleave_bytes<C, ES>(s, d, pl, n);
}
template <std::size_t C, std::size_t ES>
__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl") STRIDED_VECTORIZE_PERMUTES)) void
interleave_avx512(const std::byte* s, std::ptrdiff_t pl, std::byte* d, std::size_t n) {
  interleave_impl::interleave_bytes<C, ES>(s, pl, d, n);
}

// Three channels of 1 or 2 bytes: rows of at least one step take the shuffle kernels.
template <std::size_t ES>
void deinterleave_three_avx2(const std::byte* s, std::byte* d, std::ptrdiff_t pl, std::size_t n) {
  if (n < three_channel_step<ES>) return deinterleave_avx2<3, ES>(s, d, pl, n);
  deinterleave_three<ES>(s, d, pl, n);
}
template <std::size_t ES>
void interleave_three_avx2(const std::byte* s, std::ptrdiff_t pl, std::byte* d, std::size_t n) {
  if (n < three_channel_step<ES>) return interleave_avx2<3, ES>(s, pl, d, n);
  interleave_three<ES>(s, pl, d, n);
}
#endif

#undef STRIDED_VECTORIZE_PERMUTES

namespace interleave_impl {

// The kernel for C channels of ES bytes at the active level.
template <std::size_t C, std::size_t ES, bool Packing>
auto pick() noexcept {
#if STRIDED_X86
  const Isa isa = active_isa();
  constexpr bool three_small = C == 3 && ES <= 2;  // the shuffle kernels, at both vector levels
  if constexpr (Packing) {
    if constexpr (three_small)
      if (isa != Isa::scalar) return InterleaveFn{&interleave_three_avx2<ES>};
    if (isa == Isa::avx512) return InterleaveFn{&interleave_avx512<C, ES>};
    if (isa == Isa::avx2) return InterleaveFn{&interleave_avx2<C, ES>};
    return InterleaveFn{&interleave_scalar<C, ES>};
  } else {
    if constexpr (three_small)
      if (isa != Isa::scalar) return DeinterleaveFn{&deinterleave_three_avx2<ES>};
    if (isa == Isa::avx512) return DeinterleaveFn{&deinterleave_avx512<C, ES>};
    if (isa == Isa::avx2) return DeinterleaveFn{&deinterleave_avx2<C, ES>};
    return DeinterleaveFn{&deinterleave_scalar<C, ES>};
  }
#else
  if constexpr (Packing)
    return InterleaveFn{&interleave_scalar<C, ES>};
  else
    return DeinterleaveFn{&deinterleave_scalar<C, ES>};
#endif
}

template <std::size_t C, bool Packing>
auto pick_size(std::size_t es) noexcept {
  switch (es) {
    case 1:
      return pick<C, 1, Packing>();
    case 2:
      return pick<C, 2, Packing>();
    case 4:
      return pick<C, 4, Packing>();
    default:
      return pick<C, 8, Packing>();
  }
}

template <bool Packing>
auto pick_channels(std::size_t channels, std::size_t es) noexcept {
  switch (channels) {
    case 2:
      return pick_size<2, Packing>(es);
    case 3:
      return pick_size<3, Packing>(es);
    default:
      return pick_size<4, Packing>(es);
  }
}

}  // namespace interleave_impl

/// Kernels for 2-4 channels of 1, 2, 4 or 8 bytes (the planner guarantees both).
inline DeinterleaveFn deinterleave_kernel(std::size_t channels, std::size_t es) noexcept {
  return interleave_impl::pick_channels<false>(channels, es);
}
inline InterleaveFn interleave_kernel(std::size_t channels, std::size_t es) noexcept {
  return interleave_impl::pick_channels<true>(channels, es);
}

}  // namespace strided::detail::simd
