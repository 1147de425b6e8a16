// The non-transposing copy kernels: row-wise memcpy, stride-0 fills and the general strided loop.
// All run on a canonical plan nest (see plan.hpp); strides are in bytes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/copy/plan.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/odometer.hpp"

namespace strided::detail::copy_impl {

/// Operands of a copy plan's loops in a LoopNest: the source and the destination.
inline constexpr std::size_t src_operand = 0, dst_operand = 1;
/// Loops of a copy plan, strides in bytes.
using PlanLoops = LoopNest<2>;
static_assert(plan_max_rank <= max_loops);

/// Calls fn(src, dst) for every index of the loops in `outer`, walking the destination forwards.
/// Offsets stay integers until an element's address is formed, so no pointer is formed outside
/// the views.
template <class Fn>
void for_each_index(const PlanLoops& outer, const std::byte* s, std::byte* d, Fn&& fn) {
  Odometer<2> at(outer);
  do fn(s + at.offset(src_operand), d + at.offset(dst_operand));
  while (at.next());
}

/// for_each_index, also telling fn where the source is `distance` indices on: fn(s, d, ahead),
/// `ahead` being the source offset (bytes) from this index to that one, or 0 for the last
/// `distance` indices (and for distance 0). For prefetching: a multiple of the innermost stride
/// would point past an axis of 2 at every other index.
template <class Fn>
void for_each_index_ahead(const PlanLoops& outer, const std::byte* s, std::byte* d,
                          std::size_t distance, Fn&& fn) {
  std::size_t count = 1;
  for (std::size_t k = 0; k < outer.rank; ++k) count *= outer.extent[k];
  Odometer<2> at(outer), on(outer);
  for (std::size_t k = 0; k < distance && k + 1 < count; ++k) on.next();
  for (std::size_t n = 0; n < count; ++n) {
    const bool leads = distance > 0 && n + distance < count;
    const std::ptrdiff_t ahead = leads ? on.offset(src_operand) - at.offset(src_operand) : 0;
    fn(s + at.offset(src_operand), d + at.offset(dst_operand), ahead);
    at.next();
    if (leads) on.next();
  }
}

/// Appends a plan axis to `loops` as its outermost loop.
inline void push_axis(PlanLoops& loops, const PlanAxis& ax) noexcept {
  loops.push_outer(ax.n, {ax.ss, ax.ds});
}

/// Bytes the plan writes.
inline std::size_t dst_bytes(const PlanNest& p) noexcept {
  std::size_t n = p.elem_size;
  for (std::size_t k = 0; k < p.rank; ++k) n *= p.axes[k].n;
  return n;
}

/// Whether the plan's kernels use streaming stores: when the copy it belongs to (the plan itself,
/// or the whole parallel copy it is a chunk of) is larger than the threshold.
inline bool streams(const PlanNest& p) noexcept {
  return streams_copy_of(std::max(dst_bytes(p), p.whole_dst_bytes));
}

/// The loops of axes[first, rank) of a plan, for for_each_index.
inline PlanLoops outer_axes(const PlanNest& p, std::size_t first) noexcept {
  PlanLoops o;
  for (std::size_t k = first; k < p.rank; ++k) push_axis(o, p.axes[k]);
  return o;
}

/// One element of es bytes: a fixed-size copy for the common sizes (a runtime-size memcpy is a
/// library call, which costs more than the element when ragged tile edges copy one at a time).
inline void copy_element(std::byte* d, const std::byte* s, std::size_t es) noexcept {
  switch (es) {
    case 1:
      *d = *s;
      return;
    case 2:
      std::memcpy(d, s, 2);
      return;
    case 4:
      std::memcpy(d, s, 4);
      return;
    case 8:
      std::memcpy(d, s, 8);
      return;
    default:
      std::memcpy(d, s, es);
  }
}

/// n <= 32 bytes by at most two overlapping fixed-size moves (a runtime-size memcpy is a call).
inline void copy_small(std::byte* d, const std::byte* s, std::size_t n) noexcept {
  if (n >= 16) {
    std::memcpy(d, s, 16);
    std::memcpy(d + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(d, s, 8);
    std::memcpy(d + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(d, s, 4);
    std::memcpy(d + n - 4, s + n - 4, 4);
  } else if (n >= 2) {
    std::memcpy(d, s, 2);
    std::memcpy(d + n - 2, s + n - 2, 2);
  } else if (n == 1) {
    *d = *s;
  }
}

/// The strided loop's row: n elements along one axis. An element is Size bytes (Size > 0), else
/// es bytes by two overlapping moves of Piece bytes (Piece <= es <= 2 Piece: no library call for
/// rows folded into elements of 3 to 32 bytes), else (both 0) a memcpy call. The element size is
/// resolved once per copy (with_strided_row), not per row: GCC hoists such a switch out of the
/// row loops at -O3 only, and at -O2 rows of a few elements would pay it on every row.
template <std::size_t Size, std::size_t Piece>
struct StridedRow {
  std::ptrdiff_t ss, ds;
  std::size_t n, es;

  [[gnu::always_inline]] void operator()(const std::byte* s, std::byte* d) const noexcept {
    // Locals: the stores go through std::byte*, which may alias *this, so members would be
    // loaded again after every element.
    const std::ptrdiff_t src_step = ss, dst_step = ds;
    const std::size_t count = n, bytes = es;
    for (std::size_t i = 0; i < count; ++i) {
      const auto k = static_cast<std::ptrdiff_t>(i);
      copy_one(d + k * dst_step, s + k * src_step, bytes);
    }
  }

 private:
  [[gnu::always_inline]] static void copy_one(std::byte* d, const std::byte* s,
                                              std::size_t bytes) noexcept {
    if constexpr (Size > 0) {
      std::memcpy(d, s, Size);
    } else if constexpr (Piece > 0) {
      std::memcpy(d, s, Piece);
      std::memcpy(d + bytes - Piece, s + bytes - Piece, Piece);
    } else {
      std::memcpy(d, s, bytes);
    }
  }
};

/// Calls f(row) with the StridedRow that copies rows along `inner` of es-byte elements.
template <class F>
void with_strided_row(const PlanAxis& inner, std::size_t es, F&& f) {
  auto with = [&]<std::size_t Size, std::size_t Piece>() {
    f(StridedRow<Size, Piece>{inner.ss, inner.ds, inner.n, es});
  };
  switch (es) {
    case 1:
      return with.template operator()<1, 0>();
    case 2:
      return with.template operator()<2, 0>();
    case 4:
      return with.template operator()<4, 0>();
    case 8:
      return with.template operator()<8, 0>();
    case 16:
      return with.template operator()<16, 0>();
    default:
      if (es <= 4) return with.template operator()<0, 2>();
      if (es <= 8) return with.template operator()<0, 4>();
      if (es <= 16) return with.template operator()<0, 8>();
      if (es <= 32) return with.template operator()<0, 16>();
      return with.template operator()<0, 0>();
  }
}

/// n copies of the U at s, written a 64-byte block of copies at a time: a memcpy of constant size
/// is vector stores at every optimisation level, while GCC vectorises a loop of element stores at
/// -O3 only (at -O2 broadcast rows would be scalar stores). The last block is moved back to end at
/// the row's end, rewriting copies already written with the same value.
template <class U>
inline void fill_row_typed(const std::byte* s, std::byte* d, std::size_t n) noexcept {
  constexpr std::size_t block_bytes = 64, per_block = block_bytes / sizeof(U);
  U v;
  std::memcpy(&v, s, sizeof(U));
  if (n < per_block) {
    for (std::size_t i = 0; i < n; ++i) std::memcpy(d + i * sizeof(U), &v, sizeof(U));
    return;
  }
  std::array<U, per_block> block;
  block.fill(v);
  const std::size_t bytes = n * sizeof(U);
  for (std::size_t at = 0; at + block_bytes <= bytes; at += block_bytes)
    std::memcpy(d + at, block.data(), block_bytes);
  if (bytes % block_bytes != 0) std::memcpy(d + bytes - block_bytes, block.data(), block_bytes);
}

/// n contiguous copies of the es-byte element at s.
inline void fill_row(const std::byte* s, std::byte* d, std::size_t n, std::size_t es) noexcept {
  switch (es) {
    case 1:
      return fill_row_typed<std::uint8_t>(s, d, n);
    case 2:
      return fill_row_typed<std::uint16_t>(s, d, n);
    case 4:
      return fill_row_typed<std::uint32_t>(s, d, n);
    case 8:
      return fill_row_typed<std::uint64_t>(s, d, n);
    default: {
      if (n == 0) return;
      // Doubling: each memcpy copies everything written so far (regions never overlap).
      std::memcpy(d, s, es);
      std::size_t done = 1;
      while (done < n) {
        const std::size_t m = done < n - done ? done : n - done;
        std::memcpy(d + done * es, d, m * es);
        done += m;
      }
    }
  }
}

/// Rows shorter than this are not streamed: a row's first and last lines are written with plain
/// stores, and lines written partly both ways (every line of a 99-byte row) cost more than the
/// streaming saves, by far for rows of a few hundred bytes.
inline constexpr std::size_t min_streamed_row = 1024;

inline void run_rowwise(const PlanNest& p) {
  const PlanLoops o = outer_axes(p, 0);
  const std::size_t bytes = p.elem_size;
  if (streams(p) && bytes >= min_streamed_row) {
    const std::ptrdiff_t next_row = o.rank > 0 ? o.stride[src_operand][0] : 0;  // innermost loop
    for_each_index(o, p.src + p.src_offset, p.dst + p.dst_offset,
                   [bytes, next_row](const std::byte* s, std::byte* d) {
                     stream_copy(d, s, bytes, next_row);
                   });
    stream_fence();
    return;
  }
  for_each_index(o, p.src + p.src_offset, p.dst + p.dst_offset,
                 [bytes](const std::byte* s, std::byte* d) { std::memcpy(d, s, bytes); });
}

inline void run_fill(const PlanNest& p) {
  const PlanLoops o = outer_axes(p, 1);
  const std::size_t n = p.axes[0].n, es = p.elem_size;
  for_each_index(o, p.src + p.src_offset, p.dst + p.dst_offset,
                 [n, es](const std::byte* s, std::byte* d) { fill_row(s, d, n, es); });
}

/// Rows (indices of the axes other than the innermost) in the strided loop's source-ordered block.
inline constexpr std::size_t strided_block = 256;

/// Elements of the loops inside an axis beyond which, in the destination's order, the lines that
/// axis would read again are gone from L2 (4096 elements of up to a line each: 256 KiB).
inline constexpr std::size_t strided_reuse_span = 4096;

/// The axes of the strided loop's block: besides axes[0], those with the smallest source strides,
/// as many as fit in strided_block rows; none when, in the destination's order, every one of them
/// is reached within strided_reuse_span elements: the lines it reads again are still cached, and
/// the destination order writes sequentially, which then beats blocking (bench/NOTEBOOK.md, the
/// random shape sweep). Returns how many (their indices in `out`).
inline std::size_t strided_block_axes(const PlanNest& p,
                                      std::array<std::size_t, plan_max_rank>& out) {
  std::array<std::size_t, plan_max_rank> order{}, inside{};
  std::size_t m = 0, elements = 1;
  for (std::size_t k = 1; k < p.rank; ++k) {
    elements *= p.axes[k - 1].n;
    inside[k] = elements;
    order[m++] = k;
  }
  auto abs_ss = [&](std::size_t k) { return p.axes[k].ss < 0 ? -p.axes[k].ss : p.axes[k].ss; };
  plan_impl::stable_sort_axes(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(m),
                              [&](std::size_t x, std::size_t y) { return abs_ss(x) < abs_ss(y); });
  std::size_t count = 0, rows = 1;
  bool far = false;
  while (count < m && rows * p.axes[order[count]].n <= strided_block) {
    rows *= p.axes[order[count]].n;
    far = far || inside[order[count]] > strided_reuse_span;
    out[count] = order[count];
    ++count;
  }
  return far ? count : 0;
}

/// The general loop: one strided row along axes[0] (the destination's unit axis) per index of
/// the other axes. Those with the smallest source strides form a block walked inside the rest
/// (whose order stays the destination's), so that consecutive rows read nearby source lines.
/// Walking the destination order alone swept the whole source once per index of an axis whose
/// source stride is small but destination stride large (u8 [2, 88, 48, 56, 95] read from
/// 352-byte-strided rows: several times slower than blocked).
inline void run_strided(const PlanNest& p) {
  const PlanAxis inner = p.axes[0];
  const std::size_t es = p.elem_size;
  std::array<std::size_t, plan_max_rank> block_axes{};
  const std::size_t nb = strided_block_axes(p, block_axes);
  if (nb == 0) {  // the destination's order: no table between the odometer and the rows
    const PlanLoops o = outer_axes(p, 1);
    with_strided_row(inner, es, [&](auto copy_row) {
      for_each_index(o, p.src + p.src_offset, p.dst + p.dst_offset, copy_row);
    });
    return;
  }
  std::array<bool, plan_max_rank> in_block{};
  PlanLoops block;
  for (std::size_t k = 0; k < nb; ++k) {
    in_block[block_axes[k]] = true;
    push_axis(block, p.axes[block_axes[k]]);
  }
  PlanLoops o;
  for (std::size_t k = 1; k < p.rank; ++k)
    if (!in_block[k]) push_axis(o, p.axes[k]);
  // Offsets of the block's rows, innermost (smallest source stride) first.
  std::array<std::ptrdiff_t, strided_block> src_row, dst_row;
  std::size_t rows = 0;
  Odometer<2> row(block);
  do {
    src_row[rows] = row.offset(src_operand);
    dst_row[rows] = row.offset(dst_operand);
    ++rows;
  } while (row.next());
  with_strided_row(inner, es, [&](auto copy_row) {
    for_each_index(o, p.src + p.src_offset, p.dst + p.dst_offset,
                   [&](const std::byte* s, std::byte* d) {
                     for (std::size_t r = 0; r < rows; ++r)
                       copy_row(s + src_row[r], d + dst_row[r]);
                   });
  });
}

}  // namespace strided::detail::copy_impl
