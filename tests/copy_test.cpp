// Randomised tests of the copy engine: every plan at every ISA level the CPU has, against a naive
// scalar reference, with narrows, broadcasts, flips, permutations, odd element sizes and
// misaligned buffers. Bytes outside the destination view must stay untouched.
#include "strided/detail/copy/copy.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "catch_shim.hpp"
#include "copy_reference.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/isa.hpp"
#include "support.hpp"
#include "thread_support.hpp"

namespace {

using strided::detail::copy_strided;
using strided::detail::CopyArgs;

/// A strided view into an owned byte buffer: element [0..0] sits at `origin` bytes into `bytes`.
struct View {
  std::vector<std::byte> bytes;
  std::size_t origin = 0;
  std::vector<std::ptrdiff_t> strides;
};

// Lays out `shape` in memory: a random axis order, random padding (narrows), random flips,
// random stride-0 axes when `allow_broadcast`, a random misalignment of up to 15 bytes.
View make_view(std::mt19937_64& rng, const std::vector<std::size_t>& shape, std::size_t es,
               bool allow_broadcast, bool allow_padding) {
  const std::size_t rank = shape.size();
  std::vector<std::size_t> order(rank);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (rng() % 4 != 0) std::shuffle(order.begin(), order.end(), rng);
  View v;
  v.strides.assign(rank, 0);
  std::ptrdiff_t step =
      1 + (allow_padding && rng() % 8 == 0 ? static_cast<std::ptrdiff_t>(rng() % 3) : 0);
  for (std::size_t k = rank; k-- > 0;) {  // order[rank-1] is innermost
    const std::size_t ax = order[k];
    if (allow_broadcast && rng() % 6 == 0) {
      v.strides[ax] = 0;
      continue;
    }
    v.strides[ax] = step;
    std::size_t extent = shape[ax];
    if (allow_padding && rng() % 4 == 0) extent += rng() % 5;
    step *= static_cast<std::ptrdiff_t>(std::max<std::size_t>(extent, 1));
  }
  std::ptrdiff_t lo = 0, hi = 0;
  for (std::size_t ax = 0; ax < rank; ++ax) {
    if (rng() % 5 == 0) v.strides[ax] = -v.strides[ax];
    if (shape[ax] == 0) continue;
    const std::ptrdiff_t far = static_cast<std::ptrdiff_t>(shape[ax] - 1) * v.strides[ax];
    (far < 0 ? lo : hi) += far;
  }
  const std::size_t misalign = rng() % 16;
  const auto ses = static_cast<std::ptrdiff_t>(es);
  v.origin = misalign + static_cast<std::size_t>(-lo * ses);
  v.bytes.resize(v.origin + static_cast<std::size_t>((hi + 1) * ses) + 16);
  return v;
}

std::vector<std::size_t> random_shape(std::mt19937_64& rng, std::size_t max_numel) {
  static constexpr std::size_t sizes[] = {0, 1, 2, 3, 7, 15, 17, 64, 1000, 5, 16, 33, 8, 4};
  const std::size_t rank = 1 + rng() % 8;
  std::vector<std::size_t> shape(rank);
  for (auto& n : shape) n = rng() % 3 == 0 ? 1 + rng() % 20 : sizes[rng() % std::size(sizes)];
  if (rng() % 16 != 0)  // keep most cases non-empty
    for (auto& n : shape)
      if (n == 0) n = 1 + rng() % 9;
  // Bound the element count (counting empty axes as 1, so buffers stay small) by shrinking the
  // largest axis.
  auto numel = [&] {
    std::size_t p = 1;
    for (auto n : shape) p *= std::max<std::size_t>(n, 1);
    return p;
  };
  while (numel() > max_numel) {
    auto it = std::max_element(shape.begin(), shape.end());
    *it = std::max<std::size_t>(1, *it / 2);
  }
  return shape;
}

struct Outcome {
  bool ok = true;
  std::size_t first_bad = 0;
};

// Runs one copy both ways and compares the whole destination buffers (views and padding).
Outcome run_case(std::mt19937_64& rng, const std::vector<std::size_t>& shape, std::size_t es,
                 const View& src, View& dst) {
  std::vector<std::byte> src_bytes = src.bytes;
  // Eight random bytes per draw: one draw per byte was half of this file's run time.
  for (std::size_t i = 0; i < src_bytes.size(); i += 8) {
    const std::uint64_t r = rng();
    std::memcpy(src_bytes.data() + i, &r, std::min<std::size_t>(8, src_bytes.size() - i));
  }
  std::vector<std::byte> expect = dst.bytes;
  std::fill(expect.begin(), expect.end(), std::byte{0xAB});
  dst.bytes = expect;
  CopyArgs a;
  a.shape = shape;
  a.src = src_bytes.data() + src.origin;
  a.src_strides = src.strides;
  a.dst = dst.bytes.data() + dst.origin;
  a.dst_strides = dst.strides;
  a.elem_size = es;
  copy_strided(a);
  a.dst = expect.data() + dst.origin;
  strided_test::reference_copy(a, 0, a.src, a.dst);
  Outcome out;
  if (expect == dst.bytes) return out;
  for (std::size_t i = 0; i < expect.size(); ++i)
    if (expect[i] != dst.bytes[i]) {
      out.ok = false;
      out.first_bad = i;
      break;
    }
  return out;
}

// run_case, requiring the whole destination buffer to match the reference.
void require_copy_matches(std::mt19937_64& rng, const std::vector<std::size_t>& shape,
                          std::size_t es, const View& src, View& dst) {
  const Outcome out = run_case(rng, shape, es, src, dst);
  CAPTURE(out.first_bad);
  REQUIRE(out.ok);
}

// A row-major destination of `shape`, misaligned by up to 15 bytes.
View row_major_destination(std::mt19937_64& rng, const std::vector<std::size_t>& shape,
                           std::size_t es) {
  View v;
  v.strides.assign(shape.size(), 0);
  std::ptrdiff_t step = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    v.strides[k] = step;
    step *= static_cast<std::ptrdiff_t>(shape[k]);
  }
  v.origin = rng() % 16;
  v.bytes.resize(v.origin + static_cast<std::size_t>(step) * es + 16);
  return v;
}

std::string describe(const std::vector<std::size_t>& shape, const View& s, const View& d,
                     std::size_t es) {
  std::string t = "shape [";
  for (auto n : shape) t += std::to_string(n) + ",";
  t += "] src_strides [";
  for (auto n : s.strides) t += std::to_string(n) + ",";
  t += "] dst_strides [";
  for (auto n : d.strides) t += std::to_string(n) + ",";
  t += "] es " + std::to_string(es) + " src_mis " + std::to_string(s.origin % 16) + " dst_mis " +
       std::to_string(d.origin % 16) + " plan ";
  CopyArgs a{shape, nullptr, s.strides, nullptr, d.strides, es};
  t += strided::detail::plan_kind_name(strided::detail::plan_copy(a).kind);
  return t;
}

constexpr std::size_t elem_sizes[] = {1, 2, 4, 8, 16, 3, 12};

int testable_levels() { return strided_test::testable_levels("copy kernels"); }

}  // namespace

TEST_CASE("copy_strided matches the reference on random views at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  const int levels = testable_levels();
  const int cases_per_level = 6000 / levels + 1;
  int plan_counts[strided::detail::plan_kind_count] = {};
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    CAPTURE(level);
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(level));
    for (int c = 0; c < cases_per_level; ++c) {
      const std::size_t es = elem_sizes[rng() % std::size(elem_sizes)];
      const auto shape = random_shape(rng, rng() % 8 == 0 ? 40000 / es : 3000);
      const View src = make_view(rng, shape, es, true, true);
      View dst = make_view(rng, shape, es, false, rng() % 3 == 0);
      CopyArgs a{shape, nullptr, src.strides, nullptr, dst.strides, es};
      ++plan_counts[static_cast<int>(strided::detail::plan_copy(a).kind)];
      const Outcome out = run_case(rng, shape, es, src, dst);
      if (!out.ok) {
        INFO(describe(shape, src, dst, es) << " first bad byte " << out.first_bad);
        REQUIRE(out.ok);
      }
    }
  }
  // Every plan must have been exercised, or the test proves less than it claims.
  for (int k = 0; k < strided::detail::plan_kind_count; ++k) {
    CAPTURE(k);
    CHECK(plan_counts[k] > 0);
  }
}

TEST_CASE("transposes of every size class near tile edges, misaligned, at every ISA level",
          "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    CAPTURE(level);
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8},
                           std::size_t{16}, std::size_t{12}})
      // Sides one past, one short of and far from each kernel's width and the macro-tile sides
      // (256 rows, 512 columns): the ragged edges' shifted tiles and narrower kernels; 7 source
      // rows: fewer than the narrowest vector kernel's (transpose_few_rows).
      for (std::size_t rows : {std::size_t{5}, std::size_t{8}, std::size_t{15}, std::size_t{16},
                               std::size_t{63}, std::size_t{64}, std::size_t{67}, std::size_t{257}})
        for (std::size_t cols : {std::size_t{7}, std::size_t{17}, std::size_t{32}, std::size_t{65},
                                 std::size_t{130}, std::size_t{513}}) {
          CAPTURE(es, rows, cols);
          const std::vector<std::size_t> shape{rows, cols};
          View src, dst;
          const std::size_t lds = rows + rng() % 3;  // column-major source, maybe padded
          src.strides = {1, static_cast<std::ptrdiff_t>(lds)};
          src.origin = rng() % 16;
          src.bytes.resize(src.origin + lds * cols * es + 16);
          const std::size_t ldd = cols + rng() % 3;
          dst.strides = {static_cast<std::ptrdiff_t>(ldd), 1};
          dst.origin = rng() % 16;
          dst.bytes.resize(dst.origin + ldd * rows * es + 16);
          CopyArgs a{shape, nullptr, src.strides, nullptr, dst.strides, es};
          // Sides under 16 bytes (u8 rows of 15, u16 of 8) are the strided loop's (plan.hpp).
          const bool tiled = std::min(rows, cols) >= std::max<std::size_t>(4, 16 / es);
          REQUIRE((strided::detail::plan_copy(a).kind == strided::detail::PlanKind::transpose) ==
                  tiled);
          require_copy_matches(rng, shape, es, src, dst);
        }
  }
}

// Runs check(threshold, level) at every ISA level the CPU has, with the default streaming
// threshold and with it lowered to 0 (then every transpose into aligned rows streams).
template <class Check>
void at_every_level_streamed_and_not(Check&& check) {
  const int levels = testable_levels();
  for (std::size_t threshold :
       {strided::detail::copy_impl::default_stream_threshold, std::size_t{0}}) {
    strided::detail::copy_impl::ScopedStreamThreshold streaming(threshold);
    for (int level = 0; level < levels; ++level) {
      strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
      check(threshold, level);
    }
  }
}

// A 2-D transpose of `rows` source rows of `used` elements, `ld` elements apart and misaligned at
// random, into destination rows `ldd` elements apart whose first starts `skew` bytes past a line,
// against the reference.
void require_transpose_matches(std::mt19937_64& rng, std::size_t used, std::size_t rows,
                               std::size_t ld, std::size_t ldd, std::size_t es,
                               std::size_t skew = 0) {
  const std::vector<std::size_t> shape{used, rows};
  View src, dst;
  src.strides = {1, static_cast<std::ptrdiff_t>(ld)};
  src.origin = rng() % 2 == 0 ? 0 : rng() % 16;
  src.bytes.resize(src.origin + rows * ld * es);
  dst.strides = {static_cast<std::ptrdiff_t>(ldd), 1};
  dst.bytes.resize(ldd * used * es + 64 + skew);
  dst.origin = (64 - reinterpret_cast<std::uintptr_t>(dst.bytes.data()) % 64) % 64 + skew;
  require_copy_matches(rng, shape, es, src, dst);
}

// Groups longer than the transpose's offset tables (1024 entries) are cut into blocks whose
// tables are rebuilt per block: a 2-D transpose with both sides past that length, also streamed.
TEST_CASE("transposes longer than the offset tables, at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  at_every_level_streamed_and_not([&](std::size_t threshold, int level) {
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
      CAPTURE(threshold, level, es);
      // 1152 elements: 64-byte aligned rows for every es, so the streaming kernels run.
      require_transpose_matches(rng, 1031, 1090, 1031, 1152, es);
    }
  });
}

// Streamed transposes of 1- and 2-byte elements whose sides fill a BlockStage (512 bytes each way)
// go through it (transpose.hpp, stages_blocks): sides around multiples of the stage (one, two and
// three macro-tiles along the source rows, each read in while the one before is written out),
// rows a power of two apart or not, destinations on a line or 8 bytes past one (B's rows then
// stream with a head and tail), and a batch of them.
TEST_CASE("transposes through the block stage, at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    for (std::size_t es : {std::size_t{1}, std::size_t{2}}) {
      const std::size_t side = strided::detail::copy_impl::stage_side_bytes / es;
      const std::size_t fewest = strided::detail::copy_impl::stage_min_rows;
      // Source rows (J): fewer than a side (the bands of the parallel chunks), one, two and more.
      for (const std::size_t rows :
           {fewest, fewest + rng() % (side - fewest), side, side + 1 + rng() % side, 2 * side + 7})
        for (const std::size_t used : {side, 2 * side - 1 - rng() % 16, 3 * side + rng() % side}) {
          const std::size_t ld = rng() % 2 == 0 ? 4096 / es : used + rng() % 9;
          const std::size_t skew = rng() % 2 == 0 ? 0 : 8;
          CAPTURE(level, es, rows, used, ld, skew);
          // Fewer rows than a side: a band of wider destination rows, else it is not staged.
          const std::size_t ldd = rows < side ? 3 * side + rng() % 3 : rows + rng() % 3;
          require_transpose_matches(rng, used, rows, std::max(ld, used), ldd, es, skew);
        }
      // Three transposes of side + 3 rows by side + 5 elements, one after another.
      const std::size_t b = 3, r = side + 3, u = side + 5;
      const std::vector<std::size_t> shape{b, u, r};
      View src, dst;
      src.strides = {static_cast<std::ptrdiff_t>(r * u), 1, static_cast<std::ptrdiff_t>(u)};
      src.bytes.resize(b * r * u * es);
      dst.strides = {static_cast<std::ptrdiff_t>(u * r), static_cast<std::ptrdiff_t>(r), 1};
      dst.bytes.resize(b * u * r * es);
      CAPTURE(level, es);
      require_copy_matches(rng, shape, es, src, dst);
    }
  }
}

// Source rows 4 or 8 KiB apart put every row of a tile in one L1 set: the 1- and 2-byte kernels
// then read their rows through an L1 buffer (transpose.hpp, rows_share_l1_sets), and streamed
// macro-tiles run 4 KiB along the source rows. Both, with ragged edges, streamed and not; rows
// 8 bytes past a power of two stay on the plain kernels.
TEST_CASE("transposes of rows that share L1 sets, streamed and not, at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  at_every_level_streamed_and_not([&](std::size_t threshold, int level) {
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}})
      for (std::size_t row_bytes : {std::size_t{4096}, std::size_t{8192}, std::size_t{8200}}) {
        const std::size_t ld = row_bytes / es, rows = 70 + rng() % 70;  // rows: J
        const std::size_t used = ld - rng() % 40;                       // I, ragged
        const std::size_t ldd = (rows * es + 63) / 64 * 64 / es;        // line-aligned rows
        CAPTURE(threshold, level, es, row_bytes, rows, used);
        require_transpose_matches(rng, used, rows, ld, ldd, es);
      }
  });
}

// Streamed transposes whose source rows lie a page or more apart walk down the columns of source
// rows, each tile prefetching the rows of the tile four below (transpose.hpp, walks_down_columns):
// at least 256 rows, columns ragged, the prefetch stopping short of the last tiles of a
// macro-tile; rows exactly a page apart and a few elements more, streamed and not. On one
// thread: the parallel chunks of copies this size have fewer than 256 source rows each.
TEST_CASE("streamed transposes down columns of rows a page apart, at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const strided_test::ScopedThreadCount one_thread(1);
  at_every_level_streamed_and_not([&](std::size_t threshold, int level) {
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}})
      for (const std::size_t rows : {256 + rng() % 64, 700 + rng() % 64}) {    // J
        const std::size_t ld = 4096 / es + rng() % 3, used = ld - rng() % 40;  // I, ragged
        const std::size_t ldd = (rows * es + 63) / 64 * 64 / es;               // on lines
        CAPTURE(threshold, level, es, rows, ld, used);
        require_transpose_matches(rng, used, rows, ld, ldd, es);
      }
  });
}

// Streamed transposes into rows that do not start on a line go through a RealignBuffer
// (copy/realign.hpp): a row's lines are streamed whole once the next register tile completes
// them, across macro-tiles (512 source rows) and I blocks (1024 destination rows), and its first
// and last lines take plain stores. Rows an element, 32 bytes or any byte count off a line; J
// sides whose last macro-tile is shorter than a register tile; several outer indices.
TEST_CASE("streamed transposes into rows off a cache line, at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  struct Sides {
    std::size_t used, rows;  // I (destination rows), J (source rows)
  };
  at_every_level_streamed_and_not([&](std::size_t threshold, int level) {
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}})
      for (const Sides sides : {Sides{100, 530}, Sides{90, 520}, Sides{1030, 70}}) {
        std::size_t ldd = sides.rows + 1 + rng() % 7;
        if (ldd * es % 64 == 0) ++ldd;  // rows that alternate, at least, between line offsets
        const std::size_t skew = rng() % 3 == 0 ? 0 : rng() % 3 == 0 ? 32 : rng() % 64;
        const std::size_t ld = sides.used + rng() % 3;
        CAPTURE(threshold, level, es, sides.used, sides.rows, ldd, skew);
        require_transpose_matches(rng, sides.used, sides.rows, ld, ldd, es, skew);
      }
    for (std::size_t es : {std::size_t{4}, std::size_t{1}}) {  // [2, 80, 600] -> [2, 600, 80]
      const std::vector<std::size_t> shape{2, 80, 600};
      View src, dst;
      src.strides = {600 * 80, 1, 80};
      src.bytes.resize(2 * 600 * 80 * es);
      dst.strides = {80 * 602 + 3, 602, 1};
      dst.origin = 8;
      dst.bytes.resize((80 * 602 + 3) * 2 * es + 64);
      CAPTURE(threshold, level, es);
      require_copy_matches(rng, shape, es, src, dst);
    }
  });
}

TEST_CASE("permute of a rank-16 tensor of 2s at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
      CAPTURE(level, es);
      const std::vector<std::size_t> shape(16, 2);
      std::vector<std::size_t> perm(16);
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      std::shuffle(perm.begin(), perm.end(), rng);
      View src, dst;
      src.strides.resize(16);
      dst.strides.resize(16);
      for (std::size_t k = 0; k < 16; ++k) {
        src.strides[k] = std::ptrdiff_t{1} << (15 - perm[k]);
        dst.strides[k] = std::ptrdiff_t{1} << (15 - k);
      }
      src.origin = 3;
      src.bytes.resize(3 + (std::size_t{1} << 16) * es);
      dst.origin = 5;
      dst.bytes.resize(5 + (std::size_t{1} << 16) * es);
      require_copy_matches(rng, shape, es, src, dst);
    }
  }
}

TEST_CASE("streaming-store paths (threshold lowered to 0) at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  strided::detail::copy_impl::ScopedStreamThreshold all_streaming(0);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    CAPTURE(level);
    // Random views: row-wise copies stream with unaligned heads and tails.
    for (int c = 0; c < 300; ++c) {
      const std::size_t es = elem_sizes[rng() % std::size(elem_sizes)];
      const auto shape = random_shape(rng, 3000);
      const View src = make_view(rng, shape, es, true, true);
      View dst = make_view(rng, shape, es, false, rng() % 3 == 0);
      const Outcome out = run_case(rng, shape, es, src, dst);
      if (!out.ok) {
        INFO(describe(shape, src, dst, es) << " first bad byte " << out.first_bad);
        REQUIRE(out.ok);
      }
    }
    // Transposes into 64-byte aligned rows: the streaming micro-kernels run.
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}})
      for (std::size_t rows : {std::size_t{8}, std::size_t{16}, std::size_t{48}, std::size_t{71}}) {
        CAPTURE(es, rows);
        const std::size_t cols = 96, ldd = 128;  // ldd * es is a multiple of 64
        const std::vector<std::size_t> shape{rows, cols};
        View src, dst;
        src.strides = {1, static_cast<std::ptrdiff_t>(rows)};
        src.origin = rng() % 16;
        src.bytes.resize(src.origin + rows * cols * es + 16);
        dst.strides = {static_cast<std::ptrdiff_t>(ldd), 1};
        dst.bytes.resize(ldd * rows * es + 128);
        const auto addr = reinterpret_cast<std::uintptr_t>(dst.bytes.data());
        dst.origin = (64 - addr % 64) % 64;
        require_copy_matches(rng, shape, es, src, dst);
      }
  }
}

// Permutes of 2-4 axes whose extents sit around the whole-line tiles' edges (64/es and half of it)
// and the short axes of images (3, 5, 7, 28, 56), with flips, into 64-byte aligned destinations
// (the streaming kernels run when the threshold is 0) and misaligned ones (they must not).
TEST_CASE("odd-shaped permutes around the whole-line tile edges, streamed and not", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  constexpr std::size_t extents[] = {3,  5,  7,  8,  9,  15, 16, 17, 28,
                                     31, 32, 33, 56, 63, 64, 65, 129};
  const int levels = testable_levels();
  for (std::size_t threshold :
       {strided::detail::copy_impl::default_stream_threshold, std::size_t{0}})
    for (int level = 0; level < levels; ++level) {
      strided::detail::copy_impl::ScopedStreamThreshold streaming(threshold);
      strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
      for (int c = 0; c < 400; ++c) {
        const std::size_t es = std::size_t{1} << (rng() % 4);
        std::vector<std::size_t> shape(2 + rng() % 3);
        for (auto& n : shape) n = extents[rng() % std::size(extents)];
        // At most ~600 KB: outer axes drop to 1 (the inner two hold the tile edges). Checking
        // only the first three axes let rank-4 cases reach 17 MB, and the case's run time vary
        // with the seed (8.5-11 s in Release on one machine, 64-164 s under ASan in CI).
        for (std::size_t k = 0;
             k + 2 < shape.size() &&
             std::accumulate(shape.begin(), shape.end(), es, std::multiplies<>()) > 600000;
             ++k)
          shape[k] = 1;
        // Source: row-major in a random axis order (so a permute), maybe one axis flipped.
        std::vector<std::size_t> order(shape.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::shuffle(order.begin(), order.end(), rng);
        View src, dst;
        src.strides.assign(shape.size(), 0);
        std::ptrdiff_t step = 1, lo = 0;
        for (std::size_t k = shape.size(); k-- > 0;) {
          src.strides[order[k]] = step;
          step *= static_cast<std::ptrdiff_t>(shape[order[k]]);
        }
        const std::size_t flip = rng() % (shape.size() + 1);  // == size: no flip
        if (flip < shape.size()) {
          src.strides[flip] = -src.strides[flip];
          lo = src.strides[flip] * static_cast<std::ptrdiff_t>(shape[flip] - 1);
        }
        src.origin = rng() % 16 + static_cast<std::size_t>(-lo) * es;
        src.bytes.resize(src.origin + static_cast<std::size_t>(step) * es + 16);
        // Destination: row-major, innermost rows padded to whole lines when aligned.
        const bool aligned = rng() % 2 == 0;
        const std::size_t inner = shape.back();
        const std::size_t ld = aligned ? (inner * es + 63) / 64 * 64 / es : inner + rng() % 3;
        dst.strides.assign(shape.size(), 0);
        dst.strides.back() = 1;
        std::ptrdiff_t dstep = static_cast<std::ptrdiff_t>(ld);
        for (std::size_t k = shape.size() - 1; k-- > 0;) {
          dst.strides[k] = dstep;
          dstep *= static_cast<std::ptrdiff_t>(shape[k]);
        }
        dst.bytes.resize(static_cast<std::size_t>(dstep) * es + 128);
        const auto addr = reinterpret_cast<std::uintptr_t>(dst.bytes.data());
        dst.origin = (64 - addr % 64) % 64 + (aligned ? 0 : 1 + rng() % 15);
        CAPTURE(threshold, level);
        const Outcome out = run_case(rng, shape, es, src, dst);
        if (!out.ok) {
          INFO(describe(shape, src, dst, es) << " first bad byte " << out.first_bad);
          REQUIRE(out.ok);
        }
      }
    }
}

// A flipped axis inside the source's contiguous axes joins the transpose's source group (it is
// reversed in both views, so the group's destination strides are negative): [3, n, m] packed
// pixels read with the pixel axis, the channel axis or both reversed, at every ISA level.
TEST_CASE("transposes whose source group has reversed axes, at every ISA level", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    CAPTURE(level);
    for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}})
      for (int flips = 1; flips < 4; ++flips) {
        CAPTURE(es, flips);
        // Source [rows, pixels, channels] row-major; view [pixels, channels, rows].
        const std::size_t rows = 67 + rng() % 64, pixels = 33 + rng() % 100, channels = 3;
        const auto ch = static_cast<std::ptrdiff_t>(channels);
        const auto row = static_cast<std::ptrdiff_t>(pixels) * ch;
        const std::vector<std::size_t> shape{pixels, channels, rows};
        View src, dst = row_major_destination(rng, shape, es);
        src.strides = {(flips & 1) != 0 ? -ch : ch, (flips & 2) != 0 ? -1 : 1, row};
        std::ptrdiff_t lo = 0;
        if ((flips & 1) != 0) lo -= static_cast<std::ptrdiff_t>(pixels - 1) * ch;
        if ((flips & 2) != 0) lo -= ch - 1;
        src.origin = static_cast<std::size_t>(-lo) * es + rng() % 16;
        src.bytes.resize(src.origin + rows * pixels * channels * es + 16);
        CopyArgs a{shape, nullptr, src.strides, nullptr, dst.strides, es};
        const auto p = strided::detail::plan_copy(a);
        REQUIRE(p.kind == strided::detail::PlanKind::transpose);
        std::size_t group = 1;  // both reversed: the two axes merge into one
        for (std::size_t k = 0; k < p.ni; ++k) group *= p.axes[p.i_axes[k]].n;
        REQUIRE(group == pixels * channels);
        require_copy_matches(rng, shape, es, src, dst);
      }
  }
}

// The strided loop's source-ordered block: u8 [2, 30, 40, 50] gathered from a [50, 40, 30, 4]
// source (last axis narrowed to 2, the 30 axis flipped): in the destination's order the 2 and 30
// axes would re-read lines 60000 elements later; they are walked as one block of 60 rows inside
// the other axes. A smaller view keeps the destination's order; a broadcast axis joins the block.
TEST_CASE("strided copies walk a block of the smallest source strides", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  struct Case {
    std::vector<std::size_t> shape;
    std::vector<std::ptrdiff_t> strides;
    std::vector<std::size_t> block;  // extents of the block's axes, smallest source stride first
  };
  const Case cases[] = {{{2, 30, 40, 50}, {1, -4, 120, 4800}, {2, 30}},
                        {{2, 30, 4, 20}, {1, -4, 120, 4800}, {}},
                        {{2, 30, 40, 50}, {1, -4, 0, 4800}, {40, 2}}};
  for (std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{8}, std::size_t{3}})
    for (const Case& c : cases) {
      CAPTURE(es, c.shape, c.strides);
      View src, dst = row_major_destination(rng, c.shape, es);
      src.strides = c.strides;
      src.origin = 29 * 4 * es + rng() % 16;
      src.bytes.resize(src.origin + 50 * 4800 * es + 16);
      CopyArgs a{c.shape, nullptr, src.strides, nullptr, dst.strides, es};
      const auto p = strided::detail::plan_copy(a);
      REQUIRE(p.kind == strided::detail::PlanKind::strided);
      std::array<std::size_t, strided::detail::plan_max_rank> block{};
      const std::size_t nb = strided::detail::copy_impl::strided_block_axes(p, block);
      std::vector<std::size_t> extents;
      for (std::size_t k = 0; k < nb; ++k) extents.push_back(p.axes[block[k]].n);
      CHECK(extents == c.block);
      require_copy_matches(rng, c.shape, es, src, dst);
    }
}

// Rows contiguous in both views fold into one element of their bytes, which the strided loop
// copies by two overlapping moves of 2, 4, 8 or 16 bytes (elements of 3 to 32 bytes but the
// fixed sizes) or by a memcpy call (over 32): every one of those classes, at both ends, from
// source rows narrowed out of wider ones (one axis flipped), into a row-major destination, at
// every level.
TEST_CASE("strided copies of rows folded into elements of 3 to 40 bytes", "[copy]") {
  STRIDED_TEST_RANDOM_SEED(seed);
  const int levels = testable_levels();
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    std::mt19937_64 rng(seed + static_cast<std::uint64_t>(level));
    struct Case {
      std::size_t es, row;  // element bytes, elements per folded row
    };
    for (const Case c : {Case{1, 3}, Case{2, 3}, Case{1, 5}, Case{1, 7}, Case{1, 9}, Case{4, 3},
                         Case{1, 15}, Case{1, 17}, Case{4, 5}, Case{4, 6}, Case{4, 7}, Case{1, 31},
                         Case{4, 8}, Case{2, 9}, Case{1, 33}, Case{8, 5}}) {
      const std::vector<std::size_t> shape{7, 40, c.row};
      const auto pitch = static_cast<std::ptrdiff_t>(c.row + 1 + rng() % 3);  // padded rows
      CAPTURE(level, c.es, c.row, pitch);
      View src, dst = row_major_destination(rng, shape, c.es);
      src.strides = {40 * pitch, -pitch, 1};
      src.origin = (39 * static_cast<std::size_t>(pitch)) * c.es + rng() % 16;
      src.bytes.resize(src.origin + 7 * 40 * static_cast<std::size_t>(pitch) * c.es + 16);
      CopyArgs a{shape, nullptr, src.strides, nullptr, dst.strides, c.es};
      const auto p = strided::detail::plan_copy(a);
      REQUIRE(p.kind == strided::detail::PlanKind::strided);
      REQUIRE(p.elem_size == c.es * c.row);
      require_copy_matches(rng, shape, c.es, src, dst);
    }
  }
}
