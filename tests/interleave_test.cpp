// The channel (de)interleave kernels (simd/interleave.hpp) and the plans that run them
// (copy/interleave.hpp): every channel count and element size at every ISA level the CPU has,
// misaligned buffers, against a naive reference; bytes outside the destination stay untouched.
#include "strided/detail/copy/interleave.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "copy_reference.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/simd/interleave.hpp"
#include "strided/detail/simd/isa.hpp"
#include "support.hpp"

namespace {

using strided::detail::CopyArgs;
using strided::detail::Isa;
using strided::detail::PlanKind;

// Every level of this architecture (aarch64 has no dedicated channel kernels: its neon level runs
// the scalar ones, which the test then checks there too).
#if STRIDED_X86
constexpr Isa all_levels[] = {Isa::scalar, Isa::avx2, Isa::avx512};
#elif STRIDED_NEON
constexpr Isa all_levels[] = {Isa::scalar, Isa::neon};
#else
constexpr Isa all_levels[] = {Isa::scalar};
#endif
constexpr std::size_t elem_sizes[] = {1, 2, 4, 8};

bool level_runs(Isa level) { return strided_test::level_runs(level, "(de)interleave kernels"); }

std::vector<std::byte> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::byte> v(n);
  for (auto& b : v) b = static_cast<std::byte>(rng());
  return v;
}

// Pixel counts around vector widths (up to 64 bytes * 4 channels) and long rows.
std::size_t random_pixels(std::mt19937_64& rng) {
  static constexpr std::size_t edges[] = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127};
  return rng() % 3 == 0 ? 100 + rng() % 3000 : edges[rng() % std::size(edges)];
}

void check_kernels(std::mt19937_64& rng, std::size_t c, std::size_t es) {
  const std::size_t n = random_pixels(rng), pad = rng() % 3;
  const std::size_t plane = (n + pad) * es + rng() % 5 * es;  // plane-to-plane bytes
  const std::size_t so = rng() % 16, doff = rng() % 16;       // misalignments
  CAPTURE(c, es, n, plane, so, doff);
  const std::vector<std::byte> packed = random_bytes(rng, so + n * c * es + 8);
  const std::vector<std::byte> planes = random_bytes(rng, so + c * plane + 8);
  // Deinterleave: packed -> planes.
  std::vector<std::byte> got = random_bytes(rng, doff + c * plane + 8), want = got;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t ch = 0; ch < c; ++ch)
      for (std::size_t b = 0; b < es; ++b)
        want[doff + ch * plane + i * es + b] = packed[so + (i * c + ch) * es + b];
  strided::detail::simd::deinterleave_kernel(c, es)(packed.data() + so, got.data() + doff,
                                                    static_cast<std::ptrdiff_t>(plane), n);
  REQUIRE(got == want);
  // Interleave: planes -> packed, with the planes in reverse order half the time (a negative
  // plane step, as a flipped channel axis gives).
  const bool reversed = rng() % 2 == 0;
  CAPTURE(reversed);
  std::vector<std::byte> out = random_bytes(rng, doff + n * c * es + 8), expect = out;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t ch = 0; ch < c; ++ch) {
      const std::size_t src_plane = reversed ? c - 1 - ch : ch;
      for (std::size_t b = 0; b < es; ++b)
        expect[doff + (i * c + ch) * es + b] = planes[so + src_plane * plane + i * es + b];
    }
  const std::byte* first = planes.data() + so + (reversed ? (c - 1) * plane : 0);
  const auto step = static_cast<std::ptrdiff_t>(plane) * (reversed ? -1 : 1);
  strided::detail::simd::interleave_kernel(c, es)(first, step, out.data() + doff, n);
  REQUIRE(out == expect);
}

std::size_t random_extent(std::mt19937_64& rng) {
  static constexpr std::size_t sizes[] = {1, 2, 3, 5, 7, 9, 16, 17, 28, 33, 56, 64, 65};
  return sizes[rng() % std::size(sizes)];
}

constexpr std::size_t no_flip = 99;

/// Element strides of a row-major tensor of `shape`, optionally with padded rows (a narrow of
/// the W axis) and a flipped H axis (unless h_axis is no_flip); returns the offset of element
/// [0..0] (in elements).
std::ptrdiff_t image_strides(std::mt19937_64& rng, const std::vector<std::size_t>& shape,
                             std::size_t w_axis, std::size_t h_axis,
                             std::vector<std::ptrdiff_t>& strides) {
  strides.assign(shape.size(), 0);
  std::ptrdiff_t step = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    strides[k] = step;
    const std::size_t pad = k == w_axis && rng() % 4 == 0 ? 1 + rng() % 3 : 0;
    step *= static_cast<std::ptrdiff_t>(shape[k] + pad);
  }
  if (h_axis == no_flip || rng() % 4 != 0) return 0;
  strides[h_axis] = -strides[h_axis];
  return -strides[h_axis] * static_cast<std::ptrdiff_t>(shape[h_axis] - 1);
}

// One NHWC <-> NCHW copy through copy_strided; the plan must be a channel kernel whenever the
// channel count is 2-4 and a row of pixels is dense on both sides (with 2 channels and planes of
// 2 pixels either kernel fits the same copy).
void check_image_copy(std::mt19937_64& rng, bool to_planes, std::size_t es) {
  const std::size_t n = 1 + rng() % 3, c = 1 + rng() % 4, h = random_extent(rng),
                    w = random_extent(rng);
  // Source layout: channel-last (to_planes) or channel-first, as a buffer of its own axis order.
  const std::vector<std::size_t> src_shape =
      to_planes ? std::vector<std::size_t>{n, h, w, c} : std::vector<std::size_t>{n, c, h, w};
  std::vector<std::ptrdiff_t> ss_mem;
  std::ptrdiff_t origin =
      image_strides(rng, src_shape, to_planes ? 2 : 3, to_planes ? 1 : 2, ss_mem);
  if (to_planes && rng() % 4 == 0) {  // BGR <-> RGB: the packed channels read backwards
    origin += static_cast<std::ptrdiff_t>(c - 1) * ss_mem[3];
    ss_mem[3] = -ss_mem[3];
  }
  // The copy's logical axes are the destination's: NCHW (to_planes) or NHWC.
  const std::vector<std::size_t> shape =
      to_planes ? std::vector<std::size_t>{n, c, h, w} : std::vector<std::size_t>{n, h, w, c};
  const std::vector<std::ptrdiff_t> ss =
      to_planes ? std::vector<std::ptrdiff_t>{ss_mem[0], ss_mem[3], ss_mem[1], ss_mem[2]}
                : std::vector<std::ptrdiff_t>{ss_mem[0], ss_mem[2], ss_mem[3], ss_mem[1]};
  std::vector<std::ptrdiff_t> ds;
  image_strides(rng, shape, 3, no_flip, ds);  // row-major destination, maybe padded rows
  std::size_t src_span = 1, dst_span = 1;
  for (std::size_t k = 0; k < 4; ++k) {
    src_span += (shape[k] - 1) * static_cast<std::size_t>(ss[k] < 0 ? -ss[k] : ss[k]);
    dst_span += (shape[k] - 1) * static_cast<std::size_t>(ds[k]);
  }
  const std::size_t mis = rng() % 16;
  const std::vector<std::byte> src = random_bytes(rng, mis + src_span * es);
  std::vector<std::byte> got = random_bytes(rng, mis + dst_span * es), want = got;
  const std::byte* s0 = src.data() + mis + origin * static_cast<std::ptrdiff_t>(es);
  CopyArgs a{shape, s0, ss, got.data() + mis, ds, es};
  CAPTURE(to_planes, es, n, c, h, w, mis, ss, ds);
  const PlanKind kind = strided::detail::plan_copy(a).kind;
  // Source pixels are always dense (padding only separates rows); destination pixels are not
  // when the NHWC destination pads its channels.
  const bool dense_pixels = to_planes || ds[2] == static_cast<std::ptrdiff_t>(c);
  if (c >= 2 && w >= 2 && dense_pixels)
    CHECK((kind == PlanKind::deinterleave || kind == PlanKind::interleave));
  strided::detail::copy_strided(a);
  strided_test::reference_copy(CopyArgs{shape, s0, ss, want.data() + mis, ds, es}, 0, s0,
                               want.data() + mis);
  REQUIRE(got == want);
}

// Runs body(rng) at every ISA level the CPU has (with a fresh seed, captured for a replay).
template <class Body>
void at_every_level(Body&& body) {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  for (Isa level : all_levels) {
    if (!level_runs(level)) continue;
    strided::detail::ScopedIsa isa(level);
    CAPTURE(std::string(strided::detail::isa_name(level)));
    body(rng);
  }
}

}  // namespace

TEST_CASE("(de)interleave kernels match the reference at every ISA level", "[copy][interleave]") {
  at_every_level([](std::mt19937_64& rng) {
    for (std::size_t c = 2; c <= 4; ++c)
      for (std::size_t es : elem_sizes)
        for (int rep = 0; rep < 40; ++rep) check_kernels(rng, c, es);
  });
}

TEST_CASE("NHWC <-> NCHW copies match the reference at every ISA level", "[copy][interleave]") {
  at_every_level([](std::mt19937_64& rng) {
    for (std::size_t es : elem_sizes)
      for (int rep = 0; rep < 150; ++rep) {
        check_image_copy(rng, true, es);
        check_image_copy(rng, false, es);
      }
  });
}

TEST_CASE("a 224 x 224 RGB batch round-trips through both kernels", "[copy][interleave]") {
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    strided::detail::ScopedIsa isa(static_cast<Isa>(level));
    const std::size_t px = 224 * 224;
    std::vector<std::uint8_t> nhwc(2 * px * 3), nchw(nhwc.size()), back(nhwc.size());
    for (std::size_t i = 0; i < nhwc.size(); ++i) nhwc[i] = static_cast<std::uint8_t>(i * 7 + 3);
    const std::vector<std::size_t> planar{2, 3, 224, 224}, packed{2, 224, 224, 3};
    const std::vector<std::ptrdiff_t> from_packed{3 * px, 1, 672, 3}, planar_rm{3 * px, px, 224, 1};
    const std::vector<std::ptrdiff_t> from_planar{3 * px, 224, 1, px}, packed_rm{3 * px, 672, 3, 1};
    CopyArgs to_planar{planar,      reinterpret_cast<const std::byte*>(nhwc.data()),
                       from_packed, reinterpret_cast<std::byte*>(nchw.data()),
                       planar_rm,   1};
    CopyArgs to_packed{packed,      reinterpret_cast<const std::byte*>(nchw.data()),
                       from_planar, reinterpret_cast<std::byte*>(back.data()),
                       packed_rm,   1};
    CHECK(strided::detail::plan_copy(to_planar).kind == PlanKind::deinterleave);
    CHECK(strided::detail::plan_copy(to_packed).kind == PlanKind::interleave);
    strided::detail::copy_strided(to_planar);
    CHECK(nchw[px + 5] == nhwc[5 * 3 + 1]);  // channel 1 of pixel 5 of image 0
    strided::detail::copy_strided(to_packed);
    CHECK(back == nhwc);
  }
}
