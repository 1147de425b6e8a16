// The reduction engine: a plan (kept axes and reduced axes, each merged into few loops; for
// order-free reductions the reduced axes reordered by memory, flipped strides made positive and
// broadcast axes put outermost) and two loop forms over it:
//   - along the reduced elements (the reduced axes walk memory innermost, or nothing better
//     exists): each output is its own reduction by the fixed tree of reduce/tree.hpp;
//   - across the outputs (the outputs' innermost axis is contiguous and the reduced one is not,
//     e.g. a sum over the rows of a matrix): a tile of neighbouring outputs is reduced at once,
//     one contiguous row of the tile per reduced element, with the same leaf-and-counter tree
//     built over groups of rows.
// Threads split blocks (one output) or outputs / tiles (several), never the tree itself.
// This file defines the entry points of strided/detail/reduce/engine.hpp: strided/reduce.hpp
// includes it in header-only mode, src/reduce.cpp for libstrided.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <type_traits>
#include <utility>

#include "strided/detail/odometer.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/detail/reduce/engine.hpp"
#include "strided/detail/reduce/ops.hpp"
#include "strided/detail/reduce/tree.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/reduce.hpp"

namespace strided::detail::reduce {

/// Which axes a reduction removes, as built from the user's axes.
struct ReducePlan {
  LoopNest<1> kept;         // the output's axes, merged, innermost first (row-major output order)
  LoopNest<1> reduced;      // the reduced axes, merged, innermost first; rank >= 1
  std::ptrdiff_t base = 0;  // storage index of the first element (after flipping reduced axes)
  std::size_t outputs = 1;  // product of the kept extents
  std::size_t count = 1;    // product of the reduced extents
};

/// The plan of reducing the axes set in `mask` of `layout`. `ordered`: the reduced elements must
/// be visited in row-major order (argmin / argmax); otherwise memory order is chosen.
inline ReducePlan make_plan(const Layout& layout, std::uint64_t mask, bool ordered) {
  ReducePlan plan;
  plan.base = static_cast<std::ptrdiff_t>(layout.offset());
  const std::size_t rank = layout.rank();
  std::array<std::size_t, max_loops> kept_ext{}, red_ext{};
  std::array<std::ptrdiff_t, max_loops> kept_str{}, red_str{};
  std::size_t nk = 0, nr = 0;
  for (std::size_t k = 0; k != rank; ++k) {
    const std::size_t n = layout.shape()[k];
    std::ptrdiff_t s = layout.strides()[k];
    if ((mask >> k & 1) == 0) {
      kept_ext[nk] = n, kept_str[nk++] = s;
      plan.outputs *= n;
      continue;
    }
    plan.count *= n;
    if (!ordered && s < 0 && n > 0) {  // walk a flipped axis forwards: same elements
      plan.base += static_cast<std::ptrdiff_t>(n - 1) * s;
      s = -s;
    }
    red_ext[nr] = n, red_str[nr++] = s;
  }
  if (!ordered) {  // outermost first: broadcast axes, then by decreasing stride
    std::array<std::size_t, max_loops> order{};
    for (std::size_t i = 0; i != nr; ++i) order[i] = i;
    auto key = [&](std::size_t i) { return red_str[i] == 0 ? PTRDIFF_MAX : red_str[i]; };
    std::stable_sort(order.begin(), order.begin() + nr,
                     [&](std::size_t a, std::size_t b) { return key(a) > key(b); });
    std::array<std::size_t, max_loops> e{};
    std::array<std::ptrdiff_t, max_loops> s{};
    for (std::size_t i = 0; i != nr; ++i) e[i] = red_ext[order[i]], s[i] = red_str[order[i]];
    red_ext = e, red_str = s;
  }
  merge_loops(plan.kept, std::span(kept_ext.data(), nk),
              [&](std::size_t, std::size_t k) { return kept_str[k]; });
  merge_loops(plan.reduced, std::span(red_ext.data(), nr),
              [&](std::size_t, std::size_t k) { return red_str[k]; });
  if (plan.reduced.rank == 0) plan.reduced.push_outer(1, {0});
  return plan;
}

/// One output: the reduction of the sub-view at `base`, by blocks; the blocks of a round are
/// spread over the threads when `threads_bytes` is worth it, then joined in block order.
template <class Op, class T>
typename Op::Acc reduce_subview(const Op& op, const T* base, const LoopNest<1>& nest,
                                std::size_t bytes) {
  const LeafGrid grid(nest);
  if (grid.blocks == 1) return reduce_block(op, base, nest, grid, 0);
  constexpr std::size_t round = 256;
  std::array<typename Op::Acc, round> results;
  PairwiseStack<Op> stack;
  const std::size_t chunks = chunk_count(bytes);
  for (std::size_t b0 = 0; b0 < grid.blocks; b0 += round) {
    const std::size_t nb = std::min(round, grid.blocks - b0);
    const std::size_t parts = std::min(chunks, nb);
    parallel_for(parts, [&](std::size_t p) {
      for (std::size_t b = split_point(nb, parts, p); b != split_point(nb, parts, p + 1); ++b)
        results[b] = reduce_block(op, base, nest, grid, b0 + b);
    });
    for (std::size_t b = 0; b != nb; ++b) stack.push(op, results[b]);
  }
  return stack.total(op);
}

/// Rows of the across-outputs form that one leaf adds in sequence per output.
inline constexpr std::size_t leaf_rows = 16;
/// Bytes of partial results a tile keeps (on the stack): its width follows from the levels.
inline constexpr std::size_t tile_bytes = 32 * 1024;

/// Asks for the `w` elements at `p` + `ahead` elements to be fetched into cache. The tile's
/// rows are short runs far apart in memory, which the hardware prefetchers do not follow across
/// pages; a touch of the next row while this one is summed keeps the loads at memory speed. The
/// address is formed as an integer: it may lie past the tensor (a prefetch never faults).
template <class T>
void prefetch_row(const T* p, std::ptrdiff_t ahead, std::size_t w) noexcept {
  const auto at =
      reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(ahead) * sizeof(T);
  for (std::size_t b = 0; b < w * sizeof(T); b += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(at + b));
}

/// One full leaf of the across-outputs form: cur[c] = row[0][c] + row[1][c] + ... in sequence
/// (the trip count is a constant, so the compiler unrolls the rows and vectorises over c; cur,
/// the tile's scratch, never overlaps the input, which __restrict tells it).
template <class Op, class T>
void leaf_across(const Op& op, const std::array<const T*, leaf_rows>& row, std::size_t pos,
                 std::size_t w, typename Op::Acc* __restrict cur) {
  for (std::size_t c = 0; c != w; ++c) {
    typename Op::Acc a = op.first(row[0][c], pos);
    for (std::size_t r = 1; r != leaf_rows; ++r) op.step(a, row[r][c], pos + r);
    cur[c] = a;
  }
}

/// Outputs [c0, c0 + w) of the outputs' innermost loop (contiguous in the input) at input offset
/// `at`, reduced over all of plan.reduced at once into out[0, w).
template <class Op, class T, class R>
void reduce_tile(const Op& op, const T* at, const ReducePlan& plan, std::size_t w, R* out,
                 typename Op::Acc* scratch) {
  using Acc = typename Op::Acc;
  constexpr std::size_t cap = tile_bytes / sizeof(Acc);
  std::array<Acc, cap> stack_buf;  // without scratch: levels then the current leaf, w wide each
  Acc* const buf = scratch != nullptr ? scratch : stack_buf.data();
  Acc* cur = buf;
  std::uint64_t leaves = 0;
  Odometer<1> rows(plan.reduced, 0);
  std::size_t pos = 0;
  // The same row of the next leaf: far enough ahead to arrive before it is needed.
  const std::ptrdiff_t ahead = plan.reduced.stride[0][0] * static_cast<std::ptrdiff_t>(leaf_rows);
  for (bool more = true; more;) {
    std::array<const T*, leaf_rows> row;  // the leaf's rows, gathered first so that one pass
    std::size_t n = 0;                    // over the tile reads them all (one load of cur[c])
    do {
      row[n++] = at + rows.offset(0);
      prefetch_row(row[n - 1], ahead, w);
    } while ((more = rows.next()) && n != leaf_rows);
    if (n == leaf_rows)
      leaf_across(op, row, pos, w, cur);
    else
      for (std::size_t c = 0; c != w; ++c) {
        Acc a = op.first(row[0][c], pos);
        for (std::size_t r = 1; r != n; ++r) op.step(a, row[r][c], pos + r);
        cur[c] = a;
      }
    pos += n;
    std::size_t k = 0;  // the counter's push, one lane per output
    for (; (leaves >> k & 1) != 0; ++k)
      for (std::size_t c = 0; c != w; ++c) cur[c] = op.combine(cur[(k + 1) * w + c], cur[c]);
    std::copy_n(cur, w, cur + (k + 1) * w);
    ++leaves;
  }
  std::size_t top = 63;
  while ((leaves >> top & 1) == 0) --top;
  for (std::size_t c = 0; c != w; ++c) {
    Acc acc = buf[(top + 1) * w + c];
    for (std::size_t k = top; k-- > 0;)
      if ((leaves >> k & 1) != 0) acc = op.combine(acc, buf[(k + 1) * w + c]);
    out[c] = op.finish(acc, plan.count);
  }
}

/// The counter's levels for `count` reduced elements, plus one for the current leaf.
inline std::size_t tile_slots(std::size_t count) noexcept {
  const std::size_t leaves = (count + leaf_rows - 1) / leaf_rows;
  std::size_t levels = 1;
  while (levels < 64 && (leaves >> levels) != 0) ++levels;
  return levels + 1;
}

/// How many outputs a tile on the stack holds: as many as fit with the counter's levels, a
/// multiple of the lanes, at least one.
template <class Acc>
std::size_t tile_width(std::size_t count) noexcept {
  const std::size_t w = tile_bytes / sizeof(Acc) / tile_slots(count);
  return w >= lanes ? w / lanes * lanes : std::max<std::size_t>(w, 1);
}

/// Every output of the across-outputs form: tiles over the innermost kept loop, spread over the
/// threads. Narrow tiles read each row as short runs far apart, which runs well below memory
/// speed; so when `may_allocate`, each thread gets a heap scratch wide enough for its share of
/// a whole row (the rows are then read in memory order), and the stack tiles are the fallback
/// (the *_into forms, or no memory). The tree of every output is the same either way.
template <class Op, class T, class R>
void reduce_across(const Op& op, const T* data, const ReducePlan& plan, std::span<R> out,
                   std::size_t bytes, bool may_allocate) {
  using Acc = typename Op::Acc;
  const std::size_t inner = plan.kept.extent[0];
  const std::size_t threads = chunk_count(bytes);
  const std::size_t slots = tile_slots(plan.count);
  std::size_t w = std::min(inner, tile_width<Acc>(plan.count));
  std::unique_ptr<Acc[]> scratch;
  if (may_allocate && w < inner) {
    const std::size_t share = (inner + threads - 1) / threads;
    const std::size_t wide = std::min(inner, (share + lanes - 1) / lanes * lanes);
    scratch.reset(new (std::nothrow) Acc[threads * slots * wide]);
    if (scratch != nullptr) w = wide;
  }
  const std::size_t tiles = (inner + w - 1) / w;
  const std::size_t items = plan.outputs / inner * tiles;
  const std::size_t parts = std::min(threads, items);
  parallel_for(parts, [&](std::size_t p) {
    NestCursor outer(plan.kept, 1);
    Acc* const buf = scratch != nullptr ? scratch.get() + p * slots * w : nullptr;
    for (std::size_t i = split_point(items, parts, p); i != split_point(items, parts, p + 1); ++i) {
      outer.seek(i / tiles);
      const std::size_t c0 = i % tiles * w;
      const T* at = data + plan.base + outer.offset() + static_cast<std::ptrdiff_t>(c0);
      reduce_tile(op, at, plan, std::min(w, inner - c0), out.data() + i / tiles * inner + c0, buf);
    }
  });
}

/// Every output of the along-the-reduced-elements form.
template <class Op, class T, class R>
void reduce_along(const Op& op, const T* data, const ReducePlan& plan, std::span<R> out,
                  std::size_t bytes) {
  if (plan.outputs == 1) {
    out[0] = op.finish(reduce_subview(op, data + plan.base, plan.reduced, bytes), plan.count);
    return;
  }
  const std::size_t parts = std::min(chunk_count(bytes), plan.outputs);
  parallel_for(parts, [&](std::size_t p) {
    NestCursor at(plan.kept, 0);
    std::size_t o = split_point(plan.outputs, parts, p);
    at.seek(o);
    for (; o != split_point(plan.outputs, parts, p + 1); ++o, at.next()) {
      const T* base = data + plan.base + at.offset();
      out[o] = op.finish(reduce_subview(op, base, plan.reduced, 0), plan.count);
    }
  });
}

/// Reduces the axes in `mask` of the view (`data`, `layout`) into `out` (one element per output,
/// row-major), which the caller sized. An empty reduction gives finish(Acc{}, 0) everywhere.
template <class Op, class T, class R>
void reduce_into(const Op& op, const T* data, const Layout& layout, std::uint64_t mask,
                 bool ordered, std::span<R> out, bool may_allocate) {
  const ReducePlan plan = make_plan(layout, mask, ordered);
  if (plan.outputs == 0) return;
  if (plan.count == 0) {
    std::fill(out.begin(), out.end(), op.finish(typename Op::Acc{}, 0));
    return;
  }
  const std::size_t bytes = plan.outputs * plan.count * sizeof(T);
  const bool across = plan.reduced.stride[0][0] != 1 && plan.kept.rank > 0 &&
                      plan.kept.stride[0][0] == 1 && plan.kept.extent[0] >= lanes;
  if (across)
    reduce_across(op, data, plan, out, bytes, may_allocate);
  else
    reduce_along(op, data, plan, out, bytes);
}

template <class T>
using sum_acc_t = std::conditional_t<std::is_integral_v<T>, std::uint64_t,
                                     std::conditional_t<std::is_same_v<T, double>, double, float>>;
template <class T>
using mean_acc_t = std::conditional_t<std::is_integral_v<T>, double, sum_acc_t<T>>;

/// The per-element rule of reduction K over elements of type T (strided/reduce.hpp's result
/// types), with var / std's correction.
template <ReduceKind K, class T>
auto op_of(double correction) noexcept {
  if constexpr (K == ReduceKind::sum)
    return SumOp<T, sum_acc_t<T>, sum_type_t<T>, false>{};
  else if constexpr (K == ReduceKind::mean)
    return SumOp<T, mean_acc_t<T>, mean_type_t<T>, true>{};
  else if constexpr (K == ReduceKind::min || K == ReduceKind::max)
    return ExtremumOp<T, K == ReduceKind::max>{};
  else if constexpr (K == ReduceKind::argmin || K == ReduceKind::argmax)
    return ArgOp<T, K == ReduceKind::argmax>{};
  else
    return VarOp<T, mean_type_t<T>, K == ReduceKind::std>{correction};
}

template <ReduceKind K, class T>
void reduce_strided(const ReduceArgs& args) {
  using Op = decltype(op_of<K, T>(1.0));
  using R = decltype(std::declval<const Op&>().finish(typename Op::Acc{}, 0));
  const Op op = op_of<K, T>(args.correction);
  // argmin / argmax report the first extremum in row-major order, so they walk in that order.
  constexpr bool ordered = K == ReduceKind::argmin || K == ReduceKind::argmax;
  const std::size_t outputs = [&] {
    std::size_t n = 1;
    for (std::size_t k = 0; k != args.layout->rank(); ++k)
      if ((args.mask >> k & 1) == 0) n *= args.layout->shape()[k];
    return n;
  }();
  reduce_into(op, static_cast<const T*>(args.data), *args.layout, args.mask, ordered,
              std::span<R>(static_cast<R*>(args.out), outputs), args.may_allocate);
}

/// The mask of the axes in `axes` (nullptr: every axis), each < rank and named once.
inline Result<std::uint64_t> axes_mask(const char* op, const Shape& shape, const Shape* axes) {
  const std::size_t rank = shape.size();
  if (axes == nullptr) return rank == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << rank) - 1;
  std::uint64_t mask = 0;
  for (const std::size_t axis : *axes) {
    if (axis >= rank) return ShapeError::axis_out_of_range(op, axis, shape);
    const std::uint64_t bit = std::uint64_t{1} << axis;
    if ((mask & bit) != 0) return ShapeError::duplicate_axis(op, axis, *axes);
    mask |= bit;
  }
  return mask;
}

/// An error for the first reduced axis of size 0 (min / max / argmin / argmax have no identity).
inline Result<void> check_nonempty(const char* op, const Shape& shape, std::uint64_t mask) {
  for (std::size_t k = 0; k != shape.size(); ++k)
    if ((mask >> k & 1) != 0 && shape[k] == 0)
      return ShapeError::invalid_axis_argument(op, k, shape,
                                               "cannot reduce an empty axis: the operation has "
                                               "no identity");
  return {};
}

STRIDED_FUNC Result<std::uint64_t> checked_mask(const char* op, const Shape& shape,
                                                const Shape* axes, bool nonempty) {
  auto mask = axes_mask(op, shape, axes);
  if (mask && nonempty)
    if (auto ok = check_nonempty(op, shape, *mask); !ok) return std::move(ok).error();
  return mask;
}

STRIDED_FUNC Shape reduced_shape(const Shape& shape, std::uint64_t mask, bool keepdim) {
  Shape out;
  for (std::size_t k = 0; k != shape.size(); ++k) {
    if ((mask >> k & 1) == 0)
      out.push_back(shape[k]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

}  // namespace strided::detail::reduce
