// Three-channel (de)interleave of 1- and 2-byte elements (RGB u8, RGB u16 / f16 / bf16) with AVX2
// byte shuffles, used at the avx2 and avx512 levels (simd/interleave.hpp).
//
// Each 128-bit lane holds three 16-byte pieces X, Y, Z of the packed pixels (48 bytes: 16 u8 or
// 8 u16 pixels). A piece holds E = 16 / es elements, and E is not a multiple of 3, so at every
// position j the three pieces hold elements of three different channels. One channel's elements
// are therefore a blend of X, Y and Z (two vpblendvb), put in pixel order by one vpshufb; the
// reverse direction shuffles each plane first and blends the pieces out of the three. For these
// two element sizes GCC's vectorised stride-3 loop falls well behind memcpy in L2, and this
// keeps up with it (bench/NOTEBOOK.md, channel-last to channel-first).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "strided/detail/simd/isa.hpp"

#if STRIDED_X86
#include <immintrin.h>

#define STRIDED_AVX2_TARGET [[gnu::target(STRIDED_AVX2_FEATURES)]]

namespace strided::detail::simd {

/// Pixels per step of the kernels below: 32 bytes of each plane.
template <std::size_t ES>
inline constexpr std::size_t three_channel_step = 32 / ES;

namespace interleave3_impl {

/// Per-lane byte tables (each repeated in both lanes of a ymm register), for channel k:
/// `from_y[k]` / `from_z[k]` flag (0x80) the bytes where Y / Z hold channel k (X holds it
/// elsewhere), and `order[k]` moves the blend of the pieces into pixel order. For the reverse
/// direction, `place[k]` moves a plane's pixels to where the pieces hold channel k, and
/// `take_1[q]` / `take_2[q]` flag the bytes where piece q holds channel 1 / channel 2.
struct Tables {
  alignas(32) std::array<std::array<std::uint8_t, 32>, 3> from_y{}, from_z{}, order{};
  alignas(32) std::array<std::array<std::uint8_t, 32>, 3> place{}, take_1{}, take_2{};
};

template <std::size_t ES>
constexpr Tables make_tables() {
  constexpr std::size_t e = 16 / ES;  // elements per piece
  Tables t;
  for (std::size_t byte = 0; byte < 32; ++byte) {
    const std::size_t j = byte % 16 / ES, part = byte % ES;  // element position, byte within
    for (std::size_t q = 0; q < 3; ++q) {
      const std::size_t b = q * e + j, channel = b % 3, pixel = b / 3;  // what piece q holds at j
      const auto flag = [&](std::size_t want) { return std::uint8_t(channel == want ? 0x80 : 0); };
      if (q == 1) t.from_y[channel][byte] = 0x80;
      if (q == 2) t.from_z[channel][byte] = 0x80;
      t.place[channel][byte] = static_cast<std::uint8_t>(pixel * ES + part);
      t.take_1[q][byte] = flag(1);
      t.take_2[q][byte] = flag(2);
    }
    // Pixel p of channel k (element 3p + k of the lane's 3e) is position (3p + k) % e of a piece.
    for (std::size_t k = 0; k < 3; ++k)
      t.order[k][byte] = static_cast<std::uint8_t>((3 * j + k) % e * ES + part);
  }
  return t;
}

template <std::size_t ES>
inline constexpr Tables tables = make_tables<ES>();

STRIDED_AVX2_TARGET inline __m256i load_table(const std::array<std::uint8_t, 32>& t) {
  return _mm256_load_si256(reinterpret_cast<const __m256i*>(t.data()));
}

STRIDED_AVX2_TARGET inline __m256i load_pair(const std::uint8_t* low, const std::uint8_t* high) {
  return _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(low))),
      _mm_loadu_si128(reinterpret_cast<const __m128i*>(high)), 1);
}

/// One step of deinterleave_three: pixels [i, i + 32 / ES).
template <std::size_t ES>
STRIDED_AVX2_TARGET inline void deinterleave_step(const std::uint8_t* s, std::uint8_t* d,
                                                  std::ptrdiff_t plane, std::size_t i) {
  constexpr const Tables& t = tables<ES>;
  const std::uint8_t* p = s + 3 * ES * i;  // lane 0: bytes [0, 48), lane 1: [48, 96)
  const __m256i x = load_pair(p, p + 48), y = load_pair(p + 16, p + 64),
                z = load_pair(p + 32, p + 80);
  STRIDED_UNROLLED
  for (std::size_t k = 0; k < 3; ++k) {
    const __m256i mix = _mm256_blendv_epi8(_mm256_blendv_epi8(x, y, load_table(t.from_y[k])), z,
                                           load_table(t.from_z[k]));
    auto* out = d + static_cast<std::ptrdiff_t>(k) * plane + i * ES;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out),
                        _mm256_shuffle_epi8(mix, load_table(t.order[k])));
  }
}

/// One step of interleave_three: pixels [i, i + 32 / ES).
template <std::size_t ES>
STRIDED_AVX2_TARGET inline void interleave_step(const std::uint8_t* s, std::uint8_t* d,
                                                std::ptrdiff_t plane, std::size_t i) {
  constexpr const Tables& t = tables<ES>;
  __m256i c[3];  // each plane's pixels, moved to where the pieces hold that channel
  STRIDED_UNROLLED
  for (std::size_t k = 0; k < 3; ++k) {
    const auto* in = s + static_cast<std::ptrdiff_t>(k) * plane + i * ES;
    c[k] = _mm256_shuffle_epi8(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(in)),
                               load_table(t.place[k]));
  }
  __m256i piece[3];  // X, Y, Z of both lanes
  STRIDED_UNROLLED
  for (std::size_t q = 0; q < 3; ++q)
    piece[q] = _mm256_blendv_epi8(_mm256_blendv_epi8(c[0], c[1], load_table(t.take_1[q])), c[2],
                                  load_table(t.take_2[q]));
  auto* p = reinterpret_cast<__m256i*>(d + 3 * ES * i);  // X0 Y0 | Z0 X1 | Y1 Z1
  _mm256_storeu_si256(p, _mm256_permute2x128_si256(piece[0], piece[1], 0x20));
  _mm256_storeu_si256(p + 1, _mm256_permute2x128_si256(piece[2], piece[0], 0x30));
  _mm256_storeu_si256(p + 2, _mm256_permute2x128_si256(piece[1], piece[2], 0x31));
}

using Step = void (*)(const std::uint8_t* s, std::uint8_t* d, std::ptrdiff_t plane, std::size_t i);

/// Steps over pixels [0, n), n >= one step. The last is moved back to end at n: it rewrites
/// elements the one before wrote, with the same values (source and destination never overlap).
template <std::size_t ES, Step step>
STRIDED_AVX2_TARGET inline void run_steps(const std::byte* src, std::byte* dst,
                                          std::ptrdiff_t plane, std::size_t n) {
  const auto* s = reinterpret_cast<const std::uint8_t*>(src);
  auto* d = reinterpret_cast<std::uint8_t*>(dst);
  constexpr std::size_t w = three_channel_step<ES>;
  std::size_t i = 0;
  for (; i + w <= n; i += w) step(s, d, plane, i);
  if (i < n) step(s, d, plane, n - w);
}

}  // namespace interleave3_impl

/// n >= three_channel_step<ES> packed 3-channel pixels -> three planes `plane` bytes apart.
template <std::size_t ES>
STRIDED_AVX2_TARGET void deinterleave_three(const std::byte* src, std::byte* dst,
                                            std::ptrdiff_t plane, std::size_t n) {
  interleave3_impl::run_steps<ES, interleave3_impl::deinterleave_step<ES>>(src, dst, plane, n);
}

/// n >= three_channel_step<ES> pixels: three planes `plane` bytes apart (negative: reversed) ->
/// packed 3-channel pixels.
template <std::size_t ES>
STRIDED_AVX2_TARGET void interleave_three(const std::byte* src, std::ptrdiff_t plane,
                                          std::byte* dst, std::size_t n) {
  interleave3_impl::run_steps<ES, interleave3_impl::interleave_step<ES>>(src, dst, plane, n);
}

}  // namespace strided::detail::simd

#undef STRIDED_AVX2_TARGET

#endif  // STRIDED_X86
