// Every transpose micro-kernel that tile_kernel can pick, at every ISA level the CPU has, against
// a naive element-by-element transpose: rows at random (unsorted, gapped, misaligned) offsets,
// plain, streaming and buffered forms, and nothing written outside the destination rows. Levels
// the CPU lacks are reported with WARN.
#include "strided/detail/simd/transpose_dispatch.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "catch_shim.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/isa.hpp"
#include "support.hpp"

namespace {

using strided::detail::Isa;
using strided::detail::simd::TileFn;
using strided::detail::simd::TileKernel;

int testable_levels() { return strided_test::testable_levels("transpose kernels"); }

/// `count` row offsets (bytes) into a buffer, each row `row_bytes` long, in random order with
/// random gaps, all congruent to `misalign` modulo `align`.
std::vector<std::ptrdiff_t> random_rows(std::mt19937_64& rng, std::size_t count,
                                        std::size_t row_bytes, std::size_t align,
                                        std::size_t misalign, std::size_t& buffer_bytes) {
  std::vector<std::ptrdiff_t> rows(count);
  std::size_t at = 64 + misalign;
  for (auto& r : rows) {
    r = static_cast<std::ptrdiff_t>(at);
    at += (row_bytes + align - 1) / align * align + align * (rng() % 3);
  }
  std::shuffle(rows.begin(), rows.end(), rng);
  buffer_bytes = at + 64;
  return rows;
}

/// Runs `fn` on one WJ x WI tile and compares the whole destination buffer with the expected
/// transpose (bytes outside the destination rows must keep their fill).
bool tile_matches(std::mt19937_64& rng, TileFn fn, const TileKernel& k, std::size_t es,
                  bool stream) {
  const std::size_t src_misalign = rng() % 64, dst_misalign = stream ? 0 : rng() % 64;
  std::size_t src_bytes = 0, dst_bytes = 0;
  const auto src_rows = random_rows(rng, k.wj, k.wi * es, 16, src_misalign % 16, src_bytes);
  const auto dst_rows = random_rows(rng, k.wi, k.wj * es, 64, dst_misalign, dst_bytes);
  // 64-byte aligned storage, so that dst_misalign 0 means aligned rows for the streaming stores.
  std::vector<std::byte> src_store(src_bytes + 64), dst_store(dst_bytes + 64);
  auto aligned = [](std::vector<std::byte>& v) {
    const auto mis = reinterpret_cast<std::uintptr_t>(v.data()) % 64;
    return v.data() + (64 - mis) % 64;
  };
  std::byte* src = aligned(src_store);
  std::byte* dst = aligned(dst_store);
  for (std::size_t b = 0; b < src_bytes; ++b) src[b] = static_cast<std::byte>(rng());
  std::fill(dst, dst + dst_bytes, std::byte{0xAB});
  std::vector<std::byte> expect(dst, dst + dst_bytes);
  for (std::size_t c = 0; c < k.wi; ++c)
    for (std::size_t r = 0; r < k.wj; ++r)
      for (std::size_t b = 0; b < es; ++b)
        expect[static_cast<std::size_t>(dst_rows[c]) + r * es + b] =
            src[static_cast<std::size_t>(src_rows[r]) + c * es + b];
  fn(src, src_rows.data(), dst, dst_rows.data(), es);
  if (stream) strided::detail::copy_impl::stream_fence();
  return std::equal(expect.begin(), expect.end(), dst);
}

constexpr std::size_t extents[] = {2, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 200};

}  // namespace

TEST_CASE("every transpose micro-kernel matches the naive transpose at every ISA level",
          "[transpose]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<Isa>(level));
    std::set<TileFn> seen;
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8},
                           std::size_t{16}, std::size_t{3}, std::size_t{12}})
      for (std::size_t max_i : extents)
        for (std::size_t max_j : extents) {
          const TileKernel k = strided::detail::simd::tile_kernel(es, max_i, max_j);
          CAPTURE(level, es, max_i, max_j, k.wi, k.wj);
          REQUIRE(k.fn != nullptr);
          REQUIRE((k.wi >= 2 && k.wi <= max_i && k.wj >= 2 && k.wj <= max_j));
          // Repeat the draw for kernels not seen yet: random offsets and alignments.
          const int reps = seen.insert(k.fn).second ? 20 : 1;
          for (int rep = 0; rep < reps; ++rep) {
            REQUIRE(tile_matches(rng, k.fn, k, es, false));
            if (k.stream != nullptr) REQUIRE(tile_matches(rng, k.stream, k, es, true));
            if (k.buffered != nullptr) REQUIRE(tile_matches(rng, k.buffered, k, es, false));
            if (k.buffered_stream != nullptr)
              REQUIRE(tile_matches(rng, k.buffered_stream, k, es, true));
          }
        }
  }
}

// The planner relies on the widest kernels writing whole 64-byte destination lines (and having a
// streaming twin) at the SIMD levels: the macro-tile order and streaming decision assume it.
TEST_CASE("the SIMD levels pick whole-line, streamable kernels for long groups", "[transpose]") {
#if !STRIDED_X86
  WARN("not x86: the NEON tiles are one 16-byte register per row, not whole lines");
  return;
#endif
  const int levels = testable_levels();
  for (int level = 1; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<Isa>(level));
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
      const TileKernel k = strided::detail::simd::tile_kernel(es, 4096, 4096);
      CAPTURE(level, es, k.wi, k.wj);
      CHECK(k.wj * es == 64);
      CHECK(k.wi * es == 64);
      CHECK(k.stream != nullptr);
      // Kernels that read rows in 16-byte pieces have forms that read them whole: the avx2 1-
      // and 2-byte kernels and the avx512 1-byte one (the avx512 2-byte kernel reads rows whole).
#if STRIDED_X86
      const bool pieces = es == 1 || (es == 2 && static_cast<Isa>(level) == Isa::avx2);
#else
      const bool pieces = false;
#endif
      CHECK((k.buffered != nullptr) == pieces);
      CHECK((k.buffered_stream != nullptr) == pieces);
      // A group of 8 along I (high-rank permutes): still whole destination lines.
      if (es >= 4) {
        const TileKernel narrow = strided::detail::simd::tile_kernel(es, 64 / es / 2, 4096);
        CAPTURE(narrow.wi, narrow.wj);
        CHECK(narrow.wj * es == 64);
        CHECK(narrow.stream != nullptr);
      }
    }
  }
}
