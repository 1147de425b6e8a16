// Cache-blocked transpose (HPTT-style macro-kernel) for plans whose unit-stride axes differ.
//
// The plan's axes split into three sets: the destination-contiguous group J (axes[0, nj)), the
// source-contiguous group I (i_axes), and the outer axes. For each outer index the I x J
// problem is a 2-D transpose in which I is contiguous in the source and J in the destination;
// it is cut into macro-tiles (see max_block), each cut into WJ x WI register tiles handled by a
// SIMD micro-kernel; out of cache, the macro-tiles of 1- and 2-byte elements go through two
// L2-resident buffers (stages_blocks). Row offsets of a macro-tile come from small tables built
// per tile, so groups may span several axes (rank-22 permutes) at no cost to the 2-D case.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/copy/block_stage.hpp"
#include "strided/detail/copy/loops.hpp"
#include "strided/detail/copy/plan.hpp"
#include "strided/detail/copy/realign.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/transpose_dispatch.hpp"

namespace strided::detail::copy_impl {

/// Macro-tile sides, in elements: 256 along I (along a source row), 512 along J (source rows) for
/// the whole-line kernels. Macro-tiles walk the source a block of rows at a time (J outer, I
/// inner): every kernel reads and writes whole lines, so what matters is that the DRAM pages and
/// the prefetchers see long runs along each side; much longer sides (1024) lose for u8: a
/// macro-tile's rows no longer stay in L2. Staged tiles use 256 x 256. How these were chosen:
/// bench/NOTEBOOK.md, the transpose kernel.
inline constexpr std::size_t max_block = 256;
inline constexpr std::size_t max_j_block = 512;

/// Along I, a streamed transpose's macro-tiles run 4 KiB of each source row (a page; 4096 u8,
/// 2048 bf16, 1024 f32, 512 f64 elements; u8 and bf16 only when a side is too short for a
/// BlockStage). Streaming stores write whole aligned lines, so no destination line waits half
/// written for the next macro-tile, and longer runs along the source rows pay: the DRAM pages and
/// prefetchers see a page per row. Without streaming (misaligned rows) the lines a macro-tile
/// leaves half written at its J edges wait 16 times longer and are evicted first, so those stay
/// at max_block.
inline constexpr std::size_t streamed_row_run = 4096;
inline constexpr std::size_t max_i_block = streamed_row_run;  // the longest I side: u8

/// One side of the transpose: the axes ax[0, count) (innermost first) of a plan, read as one
/// index of `extent` values.
struct Group {
  std::array<const PlanAxis*, plan_max_rank> ax{};
  std::size_t count = 0;
  std::size_t extent = 1;
};

/// Offsets (bytes, source side if UseSrc, else destination side) of the group indices
/// [start, start + len).
template <bool UseSrc>
void group_offsets(const Group& g, std::size_t start, std::size_t len, std::ptrdiff_t* out) {
  if (g.count ==
      1) {  // the common case (2-D transposes): no carries, a loop the compiler vectorises
    const std::ptrdiff_t step = UseSrc ? g.ax[0]->ss : g.ax[0]->ds;
    for (std::size_t t = 0; t < len; ++t) out[t] = static_cast<std::ptrdiff_t>(start + t) * step;
    return;
  }
  std::array<std::size_t, plan_max_rank> digit{};
  std::ptrdiff_t off = 0;
  std::size_t rest = start;
  for (std::size_t k = 0; k < g.count; ++k) {
    const PlanAxis& a = *g.ax[k];
    digit[k] = rest % a.n;
    rest /= a.n;
    off += static_cast<std::ptrdiff_t>(digit[k]) * (UseSrc ? a.ss : a.ds);
  }
  const PlanAxis& a0 = *g.ax[0];
  const std::ptrdiff_t step0 = UseSrc ? a0.ss : a0.ds;
  for (std::size_t t = 0; t < len; ++t) {
    out[t] = off;
    off += step0;
    if (++digit[0] < a0.n) continue;
    for (std::size_t k = 0; k < g.count; ++k) {  // carry
      const PlanAxis& a = *g.ax[k];
      const std::ptrdiff_t st = UseSrc ? a.ss : a.ds;
      if (k > 0) {
        off += st;
        if (++digit[k] < a.n) break;
      }
      digit[k] = 0;
      off -= st * static_cast<std::ptrdiff_t>(a.n);
    }
  }
}

/// Calls f(x) for tile starts covering [lo, hi) with tiles of w elements (hi >= w). A last tile
/// that would cross hi is moved back to end there: it rewrites elements its neighbour wrote, with
/// the same values (source and destination never overlap), where an element-by-element loop would
/// cost up to a third of an odd-sized transpose's elements (u8 255 x 149).
template <class F>
void cover(std::size_t lo, std::size_t hi, std::size_t w, F&& f) {
  std::size_t x = lo;
  for (; x + w <= hi; x += w) f(x);
  if (x < hi) f(hi - w);
}

/// A band with fewer source rows than the narrowest vector kernel `k` (W x W) and no room to
/// move a tile back over them (j1 < W), at least W elements along them (i1 >= W): the kernel
/// reads the first row again in place of the missing ones, into an L1 buffer whose first columns
/// are written out, which beats scalar tiles. Source rows too short for the kernel are left to
/// the scalar tiles: gathering them into a padded buffer the same way is slower, the time going to
/// reading a line per row either way. Flattened: GCC at -O2 keeps the per-tile lambda out of line
/// otherwise, a call per tile.
[[gnu::flatten]] inline void transpose_few_rows(const std::byte* s, const std::ptrdiff_t* src_j,
                                                std::byte* d, const std::ptrdiff_t* dst_i,
                                                std::size_t i0, std::size_t i1, std::size_t j0,
                                                std::size_t j1, std::size_t es,
                                                simd::TileKernel k) {
  constexpr std::size_t max_w = 16;  // the widest of these kernels: 16 x 16 u8
  const std::size_t w = k.wi, row = w * es, nj = j1 - j0;  // row: 16 or 32 bytes
  alignas(64) std::array<std::byte, 256> out;              // w * row: 16 x 16 or 8 x 32 bytes
  std::array<std::ptrdiff_t, max_w> rows{}, src_rows{};
  for (std::size_t r = 0; r < w; ++r) {
    rows[r] = static_cast<std::ptrdiff_t>(r * row);
    src_rows[r] = src_j[j0 + (r < nj ? r : 0)];
  }
  cover(i0, i1, w, [&](std::size_t i) {
    k.fn(s + i * es, src_rows.data(), out.data(), rows.data(), es);
    for (std::size_t c = 0; c < w; ++c)
      copy_small(d + dst_i[i + c] + j0 * es, out.data() + c * row, nj * es);
  });
}

/// Rows [i0, i1) x columns [j0, j1) of a macro-tile whose other elements are done or done
/// elsewhere: by the widest kernel the band's sides allow, its last tiles moved back (cover) over
/// rows down to 0 and columns down to 0 of the macro-tile.
inline void transpose_band(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                           const std::ptrdiff_t* dst_i, std::size_t i0, std::size_t i1,
                           std::size_t j0, std::size_t j1, std::size_t es) {
  if (i0 >= i1 || j0 >= j1) return;
  if (const simd::TileKernel v = simd::narrowest_vector_kernel(es);
      v.fn != nullptr && j1 < v.wj && i1 >= v.wi)
    return transpose_few_rows(s, src_j, d, dst_i, i0, i1, j0, j1, es, v);
  const simd::TileKernel k =
      simd::tile_kernel(es, std::max<std::size_t>(i1 - i0, 2), std::max<std::size_t>(j1 - j0, 2));
  if (k.wi > i1 || k.wj > j1) {  // a one-element side with nothing done before it
    for (std::size_t i = i0; i < i1; ++i)
      for (std::size_t j = j0; j < j1; ++j)
        copy_element(d + dst_i[i] + j * es, s + src_j[j] + i * es, es);
    return;
  }
  cover(i0, i1, k.wi, [&](std::size_t i) {
    cover(j0, j1, k.wj,
          [&](std::size_t j) { k.fn(s + i * es, src_j + j, d + j * es, dst_i + i, es); });
  });
}

/// How a macro-tile walks its register tiles. `ahead` (bytes, 0 for none): where the source of
/// the outer index TransposeSchedule::prefetch_distance on is, relative to this one's; each
/// register tile prefetches its rows there (set per outer index by run_transpose).
/// `rows_first`: a block of source rows at a time whatever the sides' lengths (see
/// short_rows_first). `stream`: full tiles use the kernel's streaming variant (the edges never
/// do: their rows are not aligned). `buffered`: full tiles use the kernel's buffered variant (see
/// rows_share_l1_sets). `realign`: the destination streams but its rows do not start on a line,
/// so full tiles go through a RealignBuffer (copy/realign.hpp). `down_columns`: full tiles walk
/// down the source rows a column at a time whatever the sides' lengths, prefetching ahead (see
/// walks_down_columns).
struct TileWalk {
  std::ptrdiff_t ahead = 0;
  bool rows_first = false;
  bool stream = false;
  bool buffered = false;
  bool realign = false;
  bool down_columns = false;
};

/// How far down a column a down_columns walk prefetches: the rows of the register tile this many
/// source rows below (four 16-row tiles of f32, two 32-row tiles of bf16): far enough for the
/// lines to arrive, near enough that they are still in L2 when read.
inline constexpr std::size_t column_prefetch_rows = 64;

/// Whether streamed tiles walk down the columns of source rows (I outer, J inner) with each tile
/// prefetching into L2 the rows column_prefetch_rows below: when the source rows lie a page or
/// more apart and there are enough of them for the prefetch to run ahead. Down a column each
/// register tile reads one line from each of W rows a page or more apart, which the hardware
/// prefetchers do not follow; across the rows (the other order, taken when I is the longer side)
/// the destination rows are written a line per pass instead. Rows more than 16 KiB apart gain
/// from the prefetch where the macro-tiles walk down anyway (`down_anyway`: as many source rows as
/// destination rows) but lose from the change of order, so they keep it. Rows a few lines apart
/// (NHWC -> NCHW) are read along. The measurements: bench/NOTEBOOK.md, the transpose kernel.
inline bool walks_down_columns(const Group& j, bool down_anyway) noexcept {
  constexpr std::size_t min_pitch = 4096, max_reordered_pitch = 16384, min_rows = 256;
  const std::ptrdiff_t ss = j.ax[0]->ss;
  const auto pitch = static_cast<std::size_t>(ss < 0 ? -ss : ss);
  return j.extent >= min_rows && pitch >= min_pitch &&
         (pitch <= max_reordered_pitch || down_anyway);
}

/// Whether full tiles use the buffered form of kernel `k` (TileKernel::buffered): when the first
/// k.wj source rows put more lines in one L1 set than an L1 holds. L1 data caches take address
/// bits 6-11 as the set (64 sets of 64-byte lines) on the x86 cores we target and hold 8 or more
/// lines per set. Rows 8 KiB apart (a u8 8192 x 8192 transpose: all 64 rows in one set) thrash
/// the set, and buffering pays; with 8 rows per set (8200 x 8200) the set holds them and the
/// buffer's extra copy is a loss, so the rest stays unbuffered.
inline bool rows_share_l1_sets(const Group& j, simd::TileKernel k) noexcept {
  constexpr std::size_t sets = 64, ways = 8, max_rows = 64;
  if (k.buffered == nullptr || k.wj > max_rows || j.extent < k.wj) return false;
  std::array<std::ptrdiff_t, max_rows> rows;
  group_offsets<true>(j, 0, k.wj, rows.data());
  std::array<std::size_t, sets> lines{};
  for (std::size_t r = 0; r < k.wj; ++r)
    if (++lines[static_cast<std::size_t>(rows[r]) / line % sets] > ways) return true;
  return false;
}

/// One bi x bj macro-tile: full register tiles, then the ragged edges (transpose_band).
inline void transpose_macro_tile(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                                 const std::ptrdiff_t* dst_i, std::size_t bi, std::size_t bj,
                                 std::size_t es, simd::TileKernel k, TileWalk walk = {}) {
  // Fewer source rows than any vector kernel: the whole tile is one band (transpose_few_rows).
  if (bj < simd::narrowest_vector_kernel(es).wj)
    return transpose_band(s, src_j, d, dst_i, 0, bi, 0, bj, es);
  const bool fits = bi >= k.wi && bj >= k.wj;
  const std::size_t iw = fits ? bi - bi % k.wi : 0, jw = fits ? bj - bj % k.wj : 0;
  const std::ptrdiff_t ahead = walk.ahead;
  const simd::TileFn full = walk.buffered ? (walk.stream ? k.buffered_stream : k.buffered)
                                          : (walk.stream ? k.stream : k.fn);
  auto tile = [&](std::size_t i, std::size_t j) {
    for (std::size_t r = 0; ahead != 0 && r < k.wj; ++r)
      prefetch_lines<1>(s + i * es + src_j[j + r], ahead);
    full(s + i * es, src_j + j, d + j * es, dst_i + i, es);
  };
  // The longer side innermost: W rows are read (or written) sequentially along it while the
  // other side's rows advance a line per pass: the long sequential runs are what the
  // prefetchers follow. Down the columns with a prefetch whatever the lengths when the schedule
  // says so (walks_down_columns); a loop of its own, so that the others' code stays as measured.
  if (walk.down_columns) {
    const std::size_t below = std::max(column_prefetch_rows, k.wj);  // whole tiles
    for (std::size_t i = 0; i < iw; i += k.wi)
      for (std::size_t j = 0; j < jw; j += k.wj) {
        if (j + below < jw)
          for (std::size_t r = 0; r < k.wj; ++r) prefetch_to_l2(s + i * es + src_j[j + below + r]);
        tile(i, j);
      }
  } else if (bj >= bi && !walk.rows_first) {
    for (std::size_t i = 0; i < iw; i += k.wi)
      for (std::size_t j = 0; j < jw; j += k.wj) tile(i, j);
  } else {
    for (std::size_t j = 0; j < jw; j += k.wj)
      for (std::size_t i = 0; i < iw; i += k.wi) tile(i, j);
  }
  transpose_band(s, src_j, d, dst_i, iw, bi, 0, bj, es);
  transpose_band(s, src_j, d, dst_i, 0, iw, jw, bj, es);
}

/// One macro-tile of a realigned walk (TileWalk::realign): full register tiles through `buffer`
/// (transpose_realigned, `begins` / `ends` as there), then the ragged edges. A function of its
/// own so that transpose_macro_tile keeps one caller, into which it is inlined: called from two,
/// it was not, and the rank-22 permute's code changed (see transpose_outer_index).
inline void transpose_realigned_macro_tile(const std::byte* s, const std::ptrdiff_t* src_j,
                                           std::byte* d, const std::ptrdiff_t* dst_i,
                                           std::size_t bi, std::size_t bj, std::size_t es,
                                           simd::TileKernel k, simd::TileFn fn,
                                           const RealignBuffer& buffer, bool begins, bool ends) {
  if (bi < k.wi || bj < k.wj) return transpose_band(s, src_j, d, dst_i, 0, bi, 0, bj, es);
  const std::size_t iw = bi - bi % k.wi, jw = bj - bj % k.wj;
  transpose_realigned(s, src_j, d, dst_i, iw, jw, es, k, fn, buffer, begins, ends);
  transpose_band(s, src_j, d, dst_i, iw, bi, 0, bj, es);
  transpose_band(s, src_j, d, dst_i, 0, iw, jw, bj, es);
}

/// Micro-kernels whose rows are shorter than a cache line (16 x 16 bytes, 8 x 8 floats, ...)
/// write partial destination lines; with power-of-two leading dimensions those lines all map to
/// the same L1 sets and are evicted before the next kernel completes them, so every line is
/// fetched and written back several times. The staged macro-tile transposes a (64/es)^2 tile into
/// an L1-resident buffer of whole lines first, then writes each destination line in one go
/// (streamed when `stream`).
inline void transpose_staged_tile(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                                  const std::ptrdiff_t* dst_i, std::size_t bi, std::size_t bj,
                                  std::size_t es, simd::TileKernel k, bool stream) {
  const std::size_t l = line / es;  // tile edge: one line of elements
  const std::size_t il = bi - bi % l, jl = bj - bj % l;
  alignas(64) std::array<std::byte, line * line> tmp;
  std::array<std::ptrdiff_t, line> tmp_rows;
  for (std::size_t c = 0; c < l; ++c) tmp_rows[c] = static_cast<std::ptrdiff_t>(c * line);
  for (std::size_t i0 = 0; i0 < il; i0 += l)
    for (std::size_t j0 = 0; j0 < jl; j0 += l) {
      for (std::size_t j = 0; j < l; j += k.wj)
        for (std::size_t i = 0; i < l; i += k.wi)
          k.fn(s + (i0 + i) * es, src_j + j0 + j, tmp.data() + j * es, tmp_rows.data() + i, es);
      for (std::size_t c = 0; c < l; ++c) {
        std::byte* out = d + dst_i[i0 + c] + j0 * es;
        if (stream)
          stream_line(out, tmp.data() + c * line);
        else
          std::memcpy(out, tmp.data() + c * line, line);
      }
    }
  transpose_band(s, src_j, d, dst_i, il, bi, 0, bj, es);
  transpose_band(s, src_j, d, dst_i, 0, il, jl, bj, es);
}

/// The plan's axes as the transpose walks them: the two groups and the outer axes.
struct TransposeAxes {
  Group j;  // destination-contiguous: a macro-tile's source rows
  Group i;  // source-contiguous: a macro-tile's destination rows
  PlanLoops outer;
};

inline TransposeAxes transpose_axes(const PlanNest& p, const TransposeGroups& g) noexcept {
  TransposeAxes t;
  std::array<bool, plan_max_rank> used{};
  for (std::size_t k = 0; k < g.nj; ++k) {
    t.j.ax[t.j.count++] = &p.axes[k];
    t.j.extent *= p.axes[k].n;
    used[k] = true;
  }
  for (std::size_t k = 0; k < g.ni; ++k) {
    t.i.ax[t.i.count++] = &p.axes[g.i_axes[k]];
    t.i.extent *= p.axes[g.i_axes[k]].n;
    used[g.i_axes[k]] = true;
  }
  for (std::size_t k = 0; k < p.rank; ++k)
    if (!used[k]) push_axis(t.outer, p.axes[k]);
  return t;
}

/// Whether every register-tile row the kernel stores starts at a multiple of `align` bytes: the
/// start, the I-group and outer destination strides must all be multiples (J offsets are j * es
/// with j a multiple of W).
inline bool rows_aligned(const PlanNest& p, const TransposeAxes& t, std::size_t align) noexcept {
  const auto a = static_cast<std::ptrdiff_t>(align);
  if (reinterpret_cast<std::uintptr_t>(p.dst + p.dst_offset) % align != 0) return false;
  for (std::size_t k = 0; k < t.i.count; ++k)
    if (t.i.ax[k]->ds % a != 0) return false;
  for (std::size_t k = 0; k < t.outer.rank; ++k)
    if (t.outer.stride[dst_operand][k] % a != 0) return false;
  return true;
}

/// Whether the destination rows (one per I index) lie back to back, J elements each: a whole
/// transpose, not a band of wider rows.
inline bool destination_rows_packed(const TransposeAxes& t, std::size_t es) noexcept {
  return t.i.ax[0]->ds == static_cast<std::ptrdiff_t>(t.j.extent * es);
}

/// Whether the register tiles should walk the source a block of rows at a time (each source row
/// read whole, once) although J is the longer side. At the avx2 level, for source rows of one to
/// four lines (NHWC -> NCHW with 64 channels of f32), that order measured faster than the
/// longer-side-innermost order; at avx512 slower, and for rows shorter than a line no better.
inline bool short_rows_first(const Group& gi, std::size_t es) noexcept {
#if STRIDED_X86
  const std::size_t row_bytes = gi.extent * es;
  return active_isa() == Isa::avx2 && row_bytes >= line && row_bytes <= 4 * line;
#else
  (void)gi;
  (void)es;
  return false;  // measured on x86 only
#endif
}

/// Everything run_transpose decides once per plan, before any tile moves.
struct TransposeSchedule {
  simd::TileKernel kernel;
  bool staged = false;        // macro-tiles go through an L1 buffer of whole lines (staged tile)
  bool stream = false;        // destination lines are written with streaming stores
  bool block_staged = false;  // macro-tiles go through a BlockStage (stages_blocks)
  std::size_t bi_max = max_block;     // macro-tile side along I
  std::size_t bj_max = max_j_block;   // macro-tile side along J
  TileWalk walk;                      // how a non-staged macro-tile walks its register tiles
  std::size_t prefetch_distance = 0;  // outer indices ahead whose source tiles prefetch (0: none)
};

/// How many outer indices ahead small tiles prefetch. Not the innermost outer stride, which
/// points past its axis at every other index when that axis has extent 2 (the rank-22 permute of
/// extent-2 axes); one index on is too close to hide the load, three or more fetch lines that are
/// evicted before use.
inline constexpr std::size_t outer_prefetch_distance = 2;

/// Copies of at most this many bytes prefetch nothing ahead: their source is a few lines per
/// outer index, which the hardware prefetchers follow, and in cache it usually already is; there
/// the prefetch instructions were a quarter of a small permute's instructions.
inline constexpr std::size_t prefetch_min_copy_bytes = std::size_t{64} << 10;

/// Whether a transpose with kernel `k` goes through a BlockStage: when it is large enough to
/// stream (out of the caches), its kernel's tiles span 32 or 64 source rows (the lanes kernels of
/// 1- and 2-byte elements) and both sides fill a stage; for 2-byte elements only at avx512 and
/// when the destination rows do not all start on a line. Left unstaged where staging measured no
/// faster or slower (bench/NOTEBOOK.md, the transpose kernel): u16 at avx2, u16 rows on
/// lines (they stream straight from the kernel), 4- and 8-byte elements (tiles of 16 or 8 rows),
/// u8 that fits in L3: staging pays where memory, not the caches, serves the tall tiles' rows.
/// Along the source rows (I) a transpose must fill the stage's side; of source rows (J) it needs
/// a side too, or stage_min_rows (block_stage.hpp) when it writes a band of wider destination
/// rows, as the parallel chunks do. Into packed rows of fewer bytes than a side the kernels write
/// consecutive lines anyway, and staging only adds its copy.
inline bool stages_blocks(const PlanNest& p, const TransposeAxes& t, simd::TileKernel k) noexcept {
  const std::size_t es = p.elem_size, side = stage_side_bytes / es;
  const bool lanes = k.wj >= 32 && k.wj * es == line;
  if (!lanes || !streams(p) || t.i.extent < side) return false;
  if (t.j.extent < side && (t.j.extent < stage_min_rows || destination_rows_packed(t, es)))
    return false;
#if STRIDED_X86
  return es == 1 || (active_isa() == Isa::avx512 && !rows_aligned(p, t, line));
#else
  return false;  // no lanes kernels
#endif
}

/// Whether a staged macro-tile's kernel reads the stage's rows whole (TileKernel::buffered): at
/// avx512, whose u8 form of it loads them into registers; at avx2 that form copies them into an
/// L1 buffer first, a second copy of rows the stage has just copied.
inline bool stage_rows_whole(simd::TileKernel k) noexcept {
#if STRIDED_X86
  return k.buffered != nullptr && active_isa() == Isa::avx512;
#else
  (void)k;
  return false;  // no lanes kernels
#endif
}

/// The schedule of a transpose; `may_stage_blocks` false when a BlockStage could not be had.
inline TransposeSchedule schedule_transpose(const PlanNest& p, const TransposeAxes& t,
                                            bool may_stage_blocks = true) noexcept {
  const std::size_t es = p.elem_size;
  TransposeSchedule sc;
  sc.kernel = simd::tile_kernel(es, t.i.extent, t.j.extent);
  if (may_stage_blocks && stages_blocks(p, t, sc.kernel)) {
    sc.block_staged = sc.stream = true;  // stream_copy writes B's rows, aligned or not
    sc.bi_max = sc.bj_max = stage_side_bytes / es;
    sc.walk.buffered = stage_rows_whole(sc.kernel);
    return sc;
  }
  const std::size_t row_bytes = sc.kernel.wj * es;  // what one destination row store writes
  sc.staged = sc.kernel.wi == sc.kernel.wj && row_bytes < line && line % row_bytes == 0 &&
              std::min(t.i.extent, t.j.extent) >= line / es;
  const bool large = streams(p);  // large enough to stream, at a level that can
  sc.stream = large && (sc.staged || sc.kernel.stream != nullptr) &&
              rows_aligned(p, t, sc.staged ? line : row_bytes);
  // Staged tiles are cheap to leave (whole lines written), so their macro-tiles are as long as
  // the tables allow.
  sc.bj_max = sc.staged ? max_block : max_j_block;
  const bool streamed_tiles = sc.stream && !sc.staged;  // full register tiles stream
  if (streamed_tiles) sc.bi_max = std::max(max_block, streamed_row_run / es);
  // Rows that do not start on a line stream through a RealignBuffer, for whole-line kernels.
  const bool realign = large && !sc.stream && !sc.staged && row_bytes == line;
  if (realign) sc.bi_max = std::max(max_block, std::min(streamed_row_run / es, max_realigned_rows));
  // When each outer index moves only a few KiB (high-rank permutes: 8 x 64 floats in the rank-22
  // case), the tiles prefetch the source rows of an outer index a little ahead, which would
  // otherwise be fetched late. Not for larger tiles, whose next outer index is too far ahead to
  // help: the prefetches then evict lines still in use.
  const bool small_tiles = t.i.extent * t.j.extent * es <= 16 * 1024 && t.outer.rank > 0 &&
                           std::max(dst_bytes(p), p.whole_dst_bytes) > prefetch_min_copy_bytes;
  sc.prefetch_distance = small_tiles ? outer_prefetch_distance : 0;
  const bool rows_first = short_rows_first(t.i, es);
  sc.walk = {0,
             rows_first,
             streamed_tiles,
             rows_share_l1_sets(t.j, sc.kernel),
             realign,
             streamed_tiles && !rows_first && walks_down_columns(t.j, sc.bi_max <= sc.bj_max)};
  return sc;
}

/// Offsets of a whole group, computed once when it is short enough (they do not depend on the
/// outer index), else per macro-tile.
inline constexpr std::size_t table_cap = 1024;

/// A group's offsets (source side for J, destination side for I) for macro-tiles of up to
/// TileCap indices: read from the whole group's table, or computed into the tile's own.
template <bool UseSrc, std::size_t TileCap>
class TileOffsets {
 public:
  explicit TileOffsets(const Group& g) noexcept : group_(g), whole_(g.extent <= table_cap) {
    if (whole_) group_offsets<UseSrc>(g, 0, g.extent, whole_table_.data());
  }

  /// Offsets of the group indices [start, start + len), len <= TileCap.
  const std::ptrdiff_t* tile(std::size_t start, std::size_t len) noexcept {
    if (whole_) return whole_table_.data() + start;
    group_offsets<UseSrc>(group_, start, len, tile_table_.data());
    return tile_table_.data();
  }

 private:
  const Group& group_;
  bool whole_;
  std::array<std::ptrdiff_t, table_cap> whole_table_;
  std::array<std::ptrdiff_t, TileCap> tile_table_;
};

/// The macro-tiles [0, ni) x [0, bj) of one band of source rows through a BlockStage: each one's
/// rows copied into A, A transposed into B, B's rows streamed out whole (staged transposes always
/// stream; see stages_blocks). B's rows go out interleaved with the next macro-tile's rows coming
/// into A, so that memory reads and writes at once, as a memcpy does (only the transpose in L2
/// leaves it idle); bench/NOTEBOOK.md, the transpose kernel, has the measurements.
inline void transpose_staged_band(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                                  TileOffsets<false, max_i_block>& dst_i, std::size_t ni,
                                  std::size_t bj, std::size_t bi_max, std::size_t es,
                                  simd::TileKernel k, TileWalk walk, const BlockStage& stage) {
  std::byte* a = stage.a();
  std::byte* b = stage.b();
  const std::ptrdiff_t* rows = stage.rows();
  std::size_t bi = std::min(bi_max, ni);
  for (std::size_t r = 0; r < bj; ++r) std::memcpy(a + rows[r], s + src_j[r], bi * es);
  for (std::size_t ib = 0; ib < ni; ib += bi_max) {
    const std::ptrdiff_t* ti = dst_i.tile(ib, bi);
    transpose_macro_tile(a, rows, b, rows, bi, bj, es, k, walk);
    const std::size_t next = ib + bi, next_bi = std::min(bi_max, ni - next);
    const std::byte* next_s = s + next * es;
    const std::size_t steps = next_bi == 0 ? bi : std::max(bi, bj);
    for (std::size_t c = 0; c < steps; ++c) {
      if (c < bi) stream_copy(d + ti[c], b + rows[c], bj * es);
      if (next_bi != 0 && c < bj) std::memcpy(a + rows[c], next_s + src_j[c], next_bi * es);
    }
    bi = next_bi;
  }
}

/// The I x J transpose of one outer index (source s0, destination d0), a macro-tile at a time:
/// J outer, I inner. Out of line: inlined into the outer loop, its register tiles' code depends on
/// that loop's register allocation (more instructions inside the odometer's loop); a call per
/// outer index costs less, even for 8 x 8 tiles.
[[gnu::noinline]] inline void transpose_outer_index(const std::byte* s0, std::byte* d0,
                                                    const TransposeAxes& t,
                                                    const TransposeSchedule& sc, std::size_t es,
                                                    TileOffsets<true, max_j_block>& src_j,
                                                    TileOffsets<false, max_i_block>& dst_i,
                                                    const BlockStage& stage) {
  for (std::size_t jb = 0; jb < t.j.extent; jb += sc.bj_max) {
    const std::size_t bj = std::min(sc.bj_max, t.j.extent - jb);
    const std::ptrdiff_t* tj = src_j.tile(jb, bj);
    if (sc.block_staged) {
      transpose_staged_band(s0, tj, d0 + jb * es, dst_i, t.i.extent, bj, sc.bi_max, es, sc.kernel,
                            sc.walk, stage);
      continue;
    }
    for (std::size_t ib = 0; ib < t.i.extent; ib += sc.bi_max) {
      const std::size_t bi = std::min(sc.bi_max, t.i.extent - ib);
      const std::ptrdiff_t* ti = dst_i.tile(ib, bi);
      if (sc.staged)
        transpose_staged_tile(s0 + ib * es, tj, d0 + jb * es, ti, bi, bj, es, sc.kernel, sc.stream);
      else
        transpose_macro_tile(s0 + ib * es, tj, d0 + jb * es, ti, bi, bj, es, sc.kernel, sc.walk);
    }
  }
}

/// The same with I outer, J inner, for realigned walks: each row's macro-tiles follow one another,
/// so the buffer carries their pending lines across (the source is still read a macro-tile of
/// rows at a time).
[[gnu::noinline]] inline void transpose_outer_index_realigned(
    const std::byte* s0, std::byte* d0, const TransposeAxes& t, const TransposeSchedule& sc,
    std::size_t es, TileOffsets<true, max_j_block>& src_j, TileOffsets<false, max_i_block>& dst_i,
    const RealignBuffer& buffer) {
  const simd::TileFn fn = sc.walk.buffered ? sc.kernel.buffered : sc.kernel.fn;
  for (std::size_t ib = 0; ib < t.i.extent; ib += sc.bi_max) {
    const std::size_t bi = std::min(sc.bi_max, t.i.extent - ib);
    const std::ptrdiff_t* ti = dst_i.tile(ib, bi);
    for (std::size_t jb = 0; jb < t.j.extent; jb += sc.bj_max) {
      const std::size_t bj = std::min(sc.bj_max, t.j.extent - jb);
      // The last macro-tile with full tiles: the next one (if any) is too short for one.
      const bool ends = t.j.extent - jb - bj < sc.kernel.wj;
      transpose_realigned_macro_tile(s0 + ib * es, src_j.tile(jb, bj), d0 + jb * es, ti, bi, bj, es,
                                     sc.kernel, fn, buffer, jb == 0, ends);
    }
  }
}

inline void run_transpose(const PlanNest& p, const TransposeGroups& g) {
  const TransposeAxes t = transpose_axes(p, g);
  TransposeSchedule sc = schedule_transpose(p, t);
  TileOffsets<true, max_j_block> src_j(t.j);
  TileOffsets<false, max_i_block> dst_i(t.i);
  const BlockStage stage(sc.block_staged);
  if (sc.block_staged && stage.empty()) sc = schedule_transpose(p, t, false);
  const RealignBuffer buffer(sc.walk.realign ? sc.bi_max : 0);
  sc.walk.realign = sc.walk.realign && !buffer.empty();
  for_each_index_ahead(t.outer, p.src + p.src_offset, p.dst + p.dst_offset, sc.prefetch_distance,
                       [&](const std::byte* s0, std::byte* d0, std::ptrdiff_t ahead) {
                         sc.walk.ahead = ahead;
                         if (sc.walk.realign)
                           transpose_outer_index_realigned(s0, d0, t, sc, p.elem_size, src_j, dst_i,
                                                           buffer);
                         else
                           transpose_outer_index(s0, d0, t, sc, p.elem_size, src_j, dst_i, stage);
                       });
  if (sc.stream || sc.walk.realign) stream_fence();
}

}  // namespace strided::detail::copy_impl
