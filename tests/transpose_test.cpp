// What the transpose macro-kernel decides once per plan (copy/transpose.hpp, schedule_transpose):
// the buffered kernels for source rows that share L1 sets, the macro-tiles' side along the
// source rows, the realign buffer, the block stage, and how far ahead small tiles prefetch. The
// copies themselves are compared with the reference in copy_test.
#include "strided/detail/copy/transpose.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

#include "catch_shim.hpp"
#include "strided/detail/copy/plan.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/isa.hpp"
#include "support.hpp"

namespace {

using strided::detail::Isa;
using strided::detail::copy_impl::TransposeSchedule;

int testable_levels() { return strided_test::testable_levels("transpose schedules"); }

/// The schedule of copying a view of `shape`, strides `ss` (elements of `es` bytes), into `dst`
/// with strides `ds`; the plan must be a transpose. Nothing is copied.
TransposeSchedule schedule_of(const std::vector<std::size_t>& shape,
                              const std::vector<std::ptrdiff_t>& ss,
                              const std::vector<std::ptrdiff_t>& ds, std::size_t es,
                              std::byte* dst) {
  static const std::byte src[1]{};
  const auto plan = strided::detail::plan_copy({shape, src, ss, dst, ds, es});
  REQUIRE(plan.kind == strided::detail::PlanKind::transpose);
  const auto axes = strided::detail::copy_impl::transpose_axes(plan.nest(), plan.groups());
  return strided::detail::copy_impl::schedule_transpose(plan.nest(), axes);
}

/// The schedule of a 2-D transpose: `rows` source rows of `cols` elements, `ld` elements apart,
/// into rows `ldd` elements apart of a destination `dst`.
TransposeSchedule schedule(std::size_t es, std::size_t rows, std::size_t cols, std::size_t ld,
                           std::size_t ldd, std::byte* dst) {
  return schedule_of({cols, rows}, {1, static_cast<std::ptrdiff_t>(ld)},
                     {static_cast<std::ptrdiff_t>(ldd), 1}, es, dst);
}

/// Calls check(level, es, aligned) at every testable level for 1-, 2-, 4- and 8-byte elements;
/// `aligned` is a 64-byte aligned destination (nothing is written to it).
template <class Check>
void at_every_level_and_size(Check&& check) {
  std::vector<std::byte> store(128);
  std::byte* aligned =
      store.data() + (64 - reinterpret_cast<std::uintptr_t>(store.data()) % 64) % 64;
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<Isa>(level));
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
      CAPTURE(level, es);
      check(level, es, aligned);
    }
  }
}

}  // namespace

TEST_CASE("tiles whose source rows share an L1 set take the buffered kernels", "[transpose]") {
  at_every_level_and_size([](int level, std::size_t es, std::byte* dst) {
#if STRIDED_X86
    // Kernels that read rows in pieces: avx2 1- and 2-byte, avx512 1-byte (not NEON's).
    const bool has_buffered =
        level > 0 && (es == 1 || (es == 2 && level == static_cast<int>(Isa::avx2)));
#else
    static_cast<void>(level);
    const bool has_buffered = false;
#endif
    // Rows 4 or 8 KiB apart: every row of a tile in one set.
    CHECK(schedule(es, 256, 256, 4096 / es, 256, dst).walk.buffered == has_buffered);
    CHECK(schedule(es, 256, 256, 8192 / es, 256, dst).walk.buffered == has_buffered);
    // 2 KiB apart: two sets, 32 u8 or 16 u16 rows each, more than the 8 lines a set holds.
    CHECK(schedule(es, 256, 256, 2048 / es, 256, dst).walk.buffered == has_buffered);
    // 8 bytes past a power of two: 8 rows per set, which a set holds; 64 bytes past: one each.
    CHECK_FALSE(schedule(es, 256, 256, (8192 + 8) / es, 256, dst).walk.buffered);
    CHECK_FALSE(schedule(es, 256, 256, (4096 + 64) / es, 256, dst).walk.buffered);
  });
}

TEST_CASE("streamed transposes run macro-tiles a page along the source rows", "[transpose]") {
  at_every_level_and_size([](int level, std::size_t es, std::byte* aligned) {
    const strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
    // 64 source rows: fewer than a BlockStage takes (stage_min_rows).
    const std::size_t n = 8192 / es, page = 4096 / es, plain = 256, rows = 64;
    const TransposeSchedule streamed = schedule(es, rows, n, n, n, aligned);
    CHECK_FALSE(streamed.block_staged);
    CHECK(streamed.bi_max == (streamed.stream ? std::max(page, plain) : plain));
    if (level > 0) CHECK(streamed.stream == strided::detail::copy_impl::can_stream());
    // A destination 8 bytes off a line cannot stream straight from the kernel.
    CHECK_FALSE(schedule(es, rows, n, n, n, aligned + 8).stream);
  });
}

TEST_CASE("streamed transposes into rows off a line go through the realign buffer", "[transpose]") {
  at_every_level_and_size([](int, std::size_t es, std::byte* aligned) {
    // x86 vector levels: every kernel below writes a whole line per destination row and tile.
    const bool streams = strided::detail::copy_impl::can_stream();
    // 64 source rows (J): fewer than a BlockStage takes (stage_min_rows).
    const std::size_t n = 8192 / es, plain = 256, j = 64;
    const std::size_t rows = std::max(plain, std::min(4096 / es, std::size_t{1024}));
    const strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
    // The first row 8 bytes off a line; rows a line apart, or 8 bytes past (every row off).
    for (const std::size_t ldd : {n, n + 8 / es}) {
      const TransposeSchedule off = schedule(es, j, n, n, ldd, aligned + 8);
      CHECK(off.walk.realign == streams);
      CHECK(off.bi_max == (streams ? rows : plain));
    }
    // Rows that start on a line stream straight from the kernel.
    const TransposeSchedule on = schedule(es, j, n, n, n, aligned);
    CHECK_FALSE(on.walk.realign);
    CHECK(on.stream == streams);
    // 20 source rows: the 1- and 2-byte kernels that fit write 16 or 32 bytes per row and tile,
    // less than a line, and store plainly.
    CHECK(schedule(es, 20, n, n, 20 + 8 / es, aligned + 8).walk.realign == (streams && es >= 4));
    // Below the stream threshold nothing streams, aligned or not.
    const strided::detail::copy_impl::ScopedStreamThreshold none(std::size_t{1} << 40);
    CHECK_FALSE(schedule(es, j, n, n, n + 8 / es, aligned + 8).walk.realign);
  });
}

TEST_CASE("large transposes of 1- and 2-byte elements go through a block stage", "[transpose]") {
  at_every_level_and_size([](int level, std::size_t es, std::byte* aligned) {
    using strided::detail::copy_impl::stage_min_rows;
    using strided::detail::copy_impl::stage_side_bytes;
    // The lanes kernels (tiles of 64 or 32 source rows): x86 vector levels, 1 and 2 bytes; 2 bytes
    // only at avx512.
    const bool lanes = STRIDED_X86 && (es == 1 ? level > 0 : es == 2 && level == 2);
    const std::size_t side = stage_side_bytes / es, n = 8192 / es;
    const strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
    std::byte* off = aligned + 8;  // every destination row 8 bytes past a line
    const TransposeSchedule staged = schedule(es, n, n, n, n, off);
    CHECK(staged.block_staged == lanes);
    if (lanes) {
      CHECK(staged.stream);  // B's rows, with a plain head and tail
      CHECK(staged.bi_max == side);
      CHECK(staged.bj_max == side);
      // The stage's rows are read whole where a kernel loads them into registers: u8 at avx512
      // (u16's kernel there reads rows whole anyway); avx2's whole-row forms copy them first.
      CHECK(staged.walk.buffered == (es == 1 && level == 2));
    }
    // Rows on lines: u8 is staged, u16 streams straight from the kernel.
    CHECK(schedule(es, n, n, n, n, aligned).block_staged == (lanes && es == 1));
    // Along the source rows a transpose must fill a stage's side, and so must its source rows
    // unless it writes a band of wider destination rows (the bands a parallel copy cuts): then
    // stage_min_rows are enough, fewer are not. Into packed rows (ldd == rows) it needs a side.
    CHECK(schedule(es, side, side, side, side, off).block_staged == lanes);
    CHECK_FALSE(schedule(es, n, side - 1, n, n, off).block_staged);
    CHECK(schedule(es, stage_min_rows, n, n, n, off).block_staged == lanes);
    CHECK_FALSE(schedule(es, stage_min_rows - 1, n, n, n, off).block_staged);
    CHECK_FALSE(schedule(es, stage_min_rows, n, n, stage_min_rows, off).block_staged);
    CHECK_FALSE(schedule(es, side - 1, n, n, side - 1, off).block_staged);
    // Batches of them too (the stage is reused by every outer index).
    const auto nn = static_cast<std::ptrdiff_t>(n);
    CHECK(schedule_of({3, n, n}, {nn * nn, 1, nn}, {nn * nn, nn, 1}, es, off).block_staged ==
          lanes);
    // In the caches (below the stream threshold) nothing is staged.
    const strided::detail::copy_impl::ScopedStreamThreshold none(std::size_t{1} << 40);
    CHECK_FALSE(schedule(es, n, n, n, n, off).block_staged);
  });
}

TEST_CASE("streamed tiles of rows 4 to 16 KiB apart walk down the columns", "[transpose]") {
  at_every_level_and_size([](int level, std::size_t es, std::byte* aligned) {
    const strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
    // x86 vector levels: every kernel below streams a whole line per destination row and tile.
    // 320 bytes along the source rows: more than avx2 walks a block of rows at a time for
    // (short_rows_first), fewer than a BlockStage takes.
    const bool streams = STRIDED_X86 && level > 0 && strided::detail::copy_impl::can_stream();
    const std::size_t page = 4096 / es, cols = 320 / es, rows = 256;
    const TransposeSchedule down = schedule(es, rows, cols, page, rows, aligned);
    CHECK(down.walk.stream == streams);
    CHECK(down.walk.down_columns == streams);
    CHECK(schedule(es, 4 * rows, cols, 2 * page + 3, 4 * rows, aligned).walk.down_columns ==
          streams);
    // Rows more than 16 KiB apart only where the macro-tiles walk down anyway: as many source
    // rows (512) as destination rows (4 KiB along the source rows: 512 f64, 1024 f32).
    CHECK(schedule(es, rows, cols, 4 * page, rows, aligned).walk.down_columns == streams);
    const TransposeSchedule far = schedule(es, rows, 2 * page, 8 * page, rows, aligned);
    CHECK(far.walk.down_columns == (streams && far.bi_max <= far.bj_max));
    CHECK(far.walk.down_columns == (streams && es == 8));
    // Rows less than a page apart (the hardware prefetchers follow them), or fewer than 256.
    CHECK_FALSE(schedule(es, rows, cols, page - 64 / es, rows, aligned).walk.down_columns);
    CHECK_FALSE(schedule(es, rows - 1, cols, page, rows, aligned).walk.down_columns);
    // Source rows of one to four lines walk a block of rows at a time at avx2 (short_rows_first).
    const TransposeSchedule short_rows = schedule(es, rows, 256 / es, page, rows, aligned);
    CHECK(short_rows.walk.down_columns == (streams && !short_rows.walk.rows_first));
    CHECK(short_rows.walk.rows_first == (STRIDED_X86 && level == 1));
    // Below the stream threshold nothing streams.
    const strided::detail::copy_impl::ScopedStreamThreshold none(std::size_t{1} << 40);
    CHECK_FALSE(schedule(es, rows, cols, page, rows, aligned).walk.down_columns);
  });
}

TEST_CASE("small tiles prefetch the source two outer indices ahead", "[transpose]") {
  using strided::detail::copy_impl::outer_prefetch_distance;
  static std::byte dst[1]{};  // nothing is copied
  // The rank-22 permute of 2s of the benchmarks: tiles of 64 x 8 floats, 8192 outer indices.
  const strided_test::Rank22Permute r;
  const TransposeSchedule small = schedule_of(r.shape, r.src_strides, r.dst_strides, 4, dst);
  CHECK(outer_prefetch_distance == 2);
  CHECK(small.prefetch_distance == outer_prefetch_distance);
  CHECK(small.walk.ahead == 0);  // set per outer index by run_transpose
  // A batch of 512 x 512 transposes: each outer index moves 1 MiB, nothing is prefetched.
  CHECK(schedule_of({64, 512, 512}, {262144, 1, 512}, {262144, 512, 1}, 4, dst).prefetch_distance ==
        0);
  // A rank-5 permute of floats, [n, 4, 8, 8, 16] -> axes (0, 3, 1, 4, 2): 32 KiB for n = 2 and
  // 128 KiB for n = 8; only copies of more than prefetch_min_copy_bytes prefetch.
  using strided::detail::copy_impl::prefetch_min_copy_bytes;
  CHECK(prefetch_min_copy_bytes == 65536);
  for (const std::size_t n : {std::size_t{2}, std::size_t{8}}) {
    const TransposeSchedule sc =
        schedule_of({n, 8, 4, 16, 8}, {4096, 16, 1024, 1, 128}, {4096, 512, 128, 8, 1}, 4, dst);
    CHECK(sc.prefetch_distance == (n * 16384 > prefetch_min_copy_bytes ? 2 : 0));
  }
}

// A group of one axis gets its offsets by multiplication (group_offsets' short path): the same
// table as the odometer gives a group of that axis and an axis of one index after it would.
TEST_CASE("one-axis transpose groups get the offsets of their axis", "[transpose]") {
  using strided::detail::PlanAxis;
  using strided::detail::copy_impl::Group;
  using strided::detail::copy_impl::group_offsets;
  for (const std::ptrdiff_t stride : {std::ptrdiff_t{4}, std::ptrdiff_t{-12}, std::ptrdiff_t{384}})
    for (const std::size_t start : {std::size_t{0}, std::size_t{5}, std::size_t{90}}) {
      const PlanAxis axis{97, stride, -2 * stride}, one{1, 1000, 1000};
      Group g, two;
      g.ax[0] = two.ax[0] = &axis;
      two.ax[1] = &one;
      g.count = 1;
      two.count = 2;
      g.extent = two.extent = axis.n;
      const std::size_t len = axis.n - start;
      std::vector<std::ptrdiff_t> src(len), dst(len), src_two(len), dst_two(len);
      group_offsets<true>(g, start, len, src.data());
      group_offsets<false>(g, start, len, dst.data());
      group_offsets<true>(two, start, len, src_two.data());
      group_offsets<false>(two, start, len, dst_two.data());
      CAPTURE(stride, start);
      for (std::size_t t = 0; t < len; ++t) {
        const auto i = static_cast<std::ptrdiff_t>(start + t);
        CHECK(src[t] == i * stride);
        CHECK(dst[t] == -2 * i * stride);
      }
      CHECK(src == src_two);
      CHECK(dst == dst_two);
    }
}

// The stage's row offsets are a constant table, the same whether or not a stage was allocated.
TEST_CASE("a block stage's rows are a pitch apart", "[transpose]") {
  using strided::detail::copy_impl::BlockStage;
  for (const bool wanted : {false, true}) {
    const BlockStage stage(wanted);
    CHECK(stage.empty() != wanted);
    for (std::size_t r = 0; r < BlockStage::max_rows; ++r)
      CHECK(stage.rows()[r] == static_cast<std::ptrdiff_t>(r * BlockStage::pitch));
  }
}
