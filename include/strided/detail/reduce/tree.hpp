// The fixed summation tree of the reductions: leaves of at most leaf_len consecutive reduced
// elements, combined pairwise by a binary counter in leaf order; leaves grouped in aligned blocks
// of block_leaves, the unit a thread computes. The tree depends on the shape of the work alone,
// so the result is bit-identical for any number of threads: threads only decide who computes
// which block.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "strided/detail/odometer.hpp"

namespace strided::detail::reduce {

/// Elements per leaf: lanes x 16, so that each lane adds 16 values in sequence before the
/// pairwise tree takes over (NumPy's pairwise sum adds 16 per accumulator too).
inline constexpr std::size_t leaf_len = 256;
/// Leaves per block (a power of two, so that a full block is one subtree of the counter).
inline constexpr std::size_t block_leaves = 64;

/// Pairwise combination by a binary counter: after 2^k pushes, level k holds their combination
/// as a balanced tree. Partials always combine as (earlier, later).
template <class Op>
class PairwiseStack {
 public:
  using Acc = typename Op::Acc;
  void push(const Op& op, Acc v) noexcept {
    std::size_t k = 0;
    for (; (count_ >> k & 1) != 0; ++k) v = op.combine(level_[k], v);
    level_[k] = v;
    ++count_;
  }
  bool empty() const noexcept { return count_ == 0; }
  /// The combination of everything pushed (at least one push), the earliest subtree first.
  Acc total(const Op& op) const noexcept {
    std::size_t k = 63;
    while ((count_ >> k & 1) == 0) --k;
    Acc out = level_[k];
    while (k-- > 0)
      if ((count_ >> k & 1) != 0) out = op.combine(out, level_[k]);
    return out;
  }

 private:
  std::uint64_t count_ = 0;
  std::array<Acc, 64> level_;
};

/// Walks loops [first, rank) of a nest in row-major order from any index: seek() jumps, next()
/// steps, offset() is the storage offset of the current index.
class NestCursor {
 public:
  NestCursor(const LoopNest<1>& nest, std::size_t first) noexcept : nest_(nest), first_(first) {}
  void seek(std::size_t i) noexcept {
    offset_ = 0;
    for (std::size_t k = first_; k < nest_.rank; ++k) {
      index_[k] = i % nest_.extent[k];
      i /= nest_.extent[k];
      offset_ += static_cast<std::ptrdiff_t>(index_[k]) * nest_.stride[0][k];
    }
  }
  void next() noexcept {
    for (std::size_t k = first_; k < nest_.rank; ++k) {
      if (++index_[k] < nest_.extent[k]) {
        offset_ += nest_.stride[0][k];
        return;
      }
      offset_ -= static_cast<std::ptrdiff_t>(nest_.extent[k] - 1) * nest_.stride[0][k];
      index_[k] = 0;
    }
  }
  std::ptrdiff_t offset() const noexcept { return offset_; }

 private:
  const LoopNest<1>& nest_;
  std::size_t first_;
  std::ptrdiff_t offset_ = 0;
  std::array<std::size_t, max_loops> index_{};
};

/// The leaves of one reduced sub-view: its runs (loop 0 of the nest, all of one length) cut into
/// pieces of leaf_len, numbered run by run.
struct LeafGrid {
  std::size_t run_len;         // elements per run
  std::size_t leaves_per_run;  // ceil(run_len / leaf_len)
  std::size_t leaves;          // in the whole sub-view
  std::size_t blocks;          // ceil(leaves / block_leaves)

  explicit LeafGrid(const LoopNest<1>& nest) noexcept
      : run_len(nest.extent[0]), leaves_per_run((run_len + leaf_len - 1) / leaf_len) {
    std::size_t runs = 1;
    for (std::size_t k = 1; k < nest.rank; ++k) runs *= nest.extent[k];
    leaves = runs * leaves_per_run;
    blocks = (leaves + block_leaves - 1) / block_leaves;
  }
};

/// Block `b` of the sub-view at `base` with loops `nest`: its leaves combined by the counter.
template <class Op, class T>
typename Op::Acc reduce_block(const Op& op, const T* base, const LoopNest<1>& nest,
                              const LeafGrid& grid, std::size_t b) noexcept {
  const std::size_t g0 = b * block_leaves;
  const std::size_t g1 = g0 + block_leaves < grid.leaves ? g0 + block_leaves : grid.leaves;
  NestCursor runs(nest, 1);
  std::size_t run = g0 / grid.leaves_per_run;
  std::size_t piece = g0 % grid.leaves_per_run;
  runs.seek(run);
  const std::ptrdiff_t stride = nest.stride[0][0];
  PairwiseStack<Op> stack;
  for (std::size_t g = g0; g != g1; ++g) {
    const std::size_t start = piece * leaf_len;
    const std::size_t n = grid.run_len - start < leaf_len ? grid.run_len - start : leaf_len;
    const T* p = base + runs.offset() + static_cast<std::ptrdiff_t>(start) * stride;
    stack.push(op, op.leaf(p, stride, n, run * grid.run_len + start));
    if (++piece == grid.leaves_per_run) {
      piece = 0;
      ++run;
      runs.next();
    }
  }
  return stack.total(op);
}

}  // namespace strided::detail::reduce
