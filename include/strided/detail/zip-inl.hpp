// The engine of map / zip_with (declared in zip.hpp): chunks, scratch, copies of the inputs that
// need them, the merged loop nest, and a call of the row function per innermost row. Included by
// zip.hpp in header-only mode, compiled into libstrided otherwise.
//
// The output is cut into chunks of at most chunk_elements (a range along one axis times every
// axis inside it). Chunks write disjoint parts of the output and keep their scratch apart, so
// they can run in any order or concurrently. Inside a chunk every input is either read in place
// (contiguous, or its innermost stride is 0 or 1 and runs are long) or first copied into a
// contiguous scratch block by the copy engine.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/chunk_grid.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/odometer.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/detail/zip.hpp"
#include "strided/layout.hpp"
#include "strided/parallel.hpp"
#include "strided/shape.hpp"
#include "strided/shape_error.hpp"

namespace strided::detail {

STRIDED_FUNC Result<Layout> broadcast_to_common(const char* op,
                                                std::span<const Layout* const> inputs,
                                                std::span<Layout> views) {
  return guard_allocations(op, [&]() -> Result<Layout> {
    Shape common;
    for (const Layout* in : inputs) {
      auto joined = broadcast_shape(common, in->shape());
      if (!joined && joined.error().kind() == ShapeErrorKind::broadcast_incompatible)
        return ShapeError::broadcast_incompatible(op, common, in->shape());
      if (!joined) return std::move(joined).error();
      common = std::move(*joined);
    }
    auto out = Layout::contiguous(common);
    if (!out) return out;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      auto view = inputs[i]->broadcast_to(common);
      if (!view) return std::move(view).error();
      views[i] = std::move(*view);
    }
    return out;
  });
}

}  // namespace strided::detail

namespace strided::detail::zip {

/// Innermost runs shorter than this are not worth reading in place: the input is copied.
inline constexpr std::size_t min_direct_run = 64;

/// A joint loop nest over N inputs and the output (operand N).
template <std::size_t N>
using Nest = LoopNest<N + 1>;
static_assert(max_rank <= max_loops);

// Stride of an input along the innermost axis of extent > 1 (1 when there is none).
inline std::ptrdiff_t innermost_stride(const Shape& shape, const Strides& strides) noexcept {
  for (std::size_t k = shape.size(); k-- > 0;)
    if (shape[k] > 1) return strides[k];
  return 1;
}

/// Axes the chunks must not cut thin. When an input has to be copied (its innermost stride is
/// neither 0 nor 1, e.g. a transpose), the output's innermost axis and the axis along which each
/// such input is densest: the copy engine then reads long runs, the output is written in long
/// runs. None otherwise (chunks are then ranges of whole rows).
template <std::size_t N>
std::size_t key_axes(const Shape& shape, const std::array<const Strides*, N>& strides,
                     std::array<std::size_t, N + 1>& out) noexcept {
  std::size_t count = 0;
  for (const Strides* s : strides) {
    const std::ptrdiff_t inner = innermost_stride(shape, *s);
    if (inner == 0 || inner == 1) continue;
    std::size_t densest = max_rank;
    std::ptrdiff_t least = 0;
    for (std::size_t k = 0; k < shape.size(); ++k) {
      const std::ptrdiff_t m = (*s)[k] < 0 ? -(*s)[k] : (*s)[k];
      if (shape[k] == 1 || m == 0 || (densest != max_rank && m >= least)) continue;
      densest = k;
      least = m;
    }
    if (densest != max_rank) out[count++] = densest;
  }
  if (count > 0) out[count++] = shape.size() - 1;  // after the inputs' axes: they grow first
  return count;
}

/// One call's engine for N inputs.
template <std::size_t N>
class Engine {
 public:
  /// Scratch for one worker: a chunk-sized block per input that may need copying.
  using Scratch = std::array<std::shared_ptr<std::byte>, N>;

  explicit Engine(const Job& job) : job_(job), shape_(job.shape.begin(), job.shape.end()) {
    for (std::size_t i = 0; i < N; ++i) {
      strides_[i] = Strides(std::span<const std::ptrdiff_t>(job.inputs[i].strides, shape_.size()));
      stride_ptrs_[i] = &strides_[i];
    }
    grid_ = make_grid(shape_, std::span<const std::size_t>(
                                  keys_.data(), key_axes<N>(shape_, stride_ptrs_, keys_)));
  }

  std::size_t chunk_count() const noexcept { return grid_.count; }

  /// Allocates `s` for the inputs that are not contiguous; false when memory ran out.
  bool allocate(Scratch& s) const noexcept {
    for (std::size_t i = 0; i < N; ++i) {
      // A row-major input walks as a fresh row-major output does: never copied. Beside a
      // strided output it may be.
      if (job_.inputs[i].contiguous && job_.out_strides == nullptr) continue;
      s[i] = try_allocate_buffer<std::byte>(chunk_elements * job_.inputs[i].elem_size);
      if (s[i] == nullptr) return false;
    }
    return true;
  }

  /// Computes chunk `c` (any order, any thread, each chunk once per worker's scratch).
  void run_chunk(std::size_t c, Scratch& scratch) const {
    ChunkPlan plan;
    locate(c, plan);
    choose_sources(plan, scratch);
    walk(plan);
  }

 private:
  struct ChunkPlan {
    std::size_t rank = 0;  // chunk axes: shape_[axis..], first one cut to `len`
    std::array<std::size_t, max_rank> extent{};
    std::array<std::array<std::ptrdiff_t, max_rank>, N + 1> stride{};  // [N]: output
    std::array<std::ptrdiff_t, max_rank> compact{};  // a copied input's strides in scratch
    std::ptrdiff_t out_offset = 0;                   // elements from the output's element [0, ...]
    std::array<std::ptrdiff_t, N> in_offset{};
    std::array<const std::byte*, N> at{};  // where each input's chunk starts (in place or copied)
    std::array<bool, N> copied{};
    Nest<N> nest;
  };

  // The chunk's axes, strides and starting offsets.
  void locate(std::size_t c, ChunkPlan& plan) const noexcept {
    plan.rank = shape_.size();
    std::array<std::size_t, max_rank> start{};
    chunk_bounds(grid_, shape_, c, start.data(), plan.extent.data());
    std::ptrdiff_t row_major_stride = 1, compact = 1;
    for (std::size_t k = plan.rank; k-- > 0;) {
      const auto first = static_cast<std::ptrdiff_t>(start[k]);
      plan.stride[N][k] = job_.out_strides != nullptr ? job_.out_strides[k] : row_major_stride;
      plan.compact[k] = compact;  // row-major strides of the chunk alone: the scratch layout
      plan.out_offset += first * plan.stride[N][k];
      for (std::size_t i = 0; i < N; ++i) {
        plan.stride[i][k] = strides_[i][k];
        plan.in_offset[i] += first * plan.stride[i][k];
      }
      row_major_stride *= static_cast<std::ptrdiff_t>(shape_[k]);
      compact *= static_cast<std::ptrdiff_t>(plan.extent[k]);
    }
  }

  // True when input i's chunk walks as the output's does (size-1 axes aside).
  bool in_order(const ChunkPlan& plan, std::size_t i) const noexcept {
    for (std::size_t j = 0; j < plan.rank; ++j)
      if (plan.extent[j] > 1 && plan.stride[i][j] != plan.stride[N][j]) return false;
    return true;
  }

  // Stride of input i along the innermost chunk axis that has more than one index.
  static std::ptrdiff_t innermost(const ChunkPlan& plan, std::size_t i) noexcept {
    for (std::size_t j = plan.rank; j-- > 0;)
      if (plan.extent[j] > 1) return plan.stride[i][j];
    return 1;
  }

  // Decides, per input, in place or copied; copies; builds the joint nest.
  void choose_sources(ChunkPlan& plan, Scratch& scratch) const {
    std::array<bool, N> ordered{};
    for (std::size_t i = 0; i < N; ++i) {
      ordered[i] = in_order(plan, i);
      const std::ptrdiff_t s = innermost(plan, i);
      const bool runs_ok = s == 1 || (s == 0 && N <= max_dispatched_inputs);
      plan.copied[i] = !ordered[i] && !runs_ok;
    }
    build(plan);
    if (plan.nest.rank > 0 && plan.nest.extent[0] < min_direct_run) {
      for (std::size_t i = 0; i < N; ++i) plan.copied[i] = !ordered[i];
      build(plan);
    }
    for (std::size_t i = 0; i < N; ++i) copy_input(plan, scratch, i);
  }

  void build(ChunkPlan& plan) const noexcept {
    auto stride = plan.stride;
    for (std::size_t i = 0; i < N; ++i)
      if (plan.copied[i]) stride[i] = plan.compact;
    merge_loops(plan.nest, std::span<const std::size_t>(plan.extent.data(), plan.rank),
                [&stride](std::size_t m, std::size_t k) { return stride[m][k]; });
  }

  void copy_input(ChunkPlan& plan, Scratch& scratch, std::size_t i) const {
    const std::size_t size = job_.inputs[i].elem_size;
    const std::byte* from =
        job_.inputs[i].base + plan.in_offset[i] * static_cast<std::ptrdiff_t>(size);
    if (!plan.copied[i]) {
      plan.at[i] = from;
      return;
    }
    std::byte* to = scratch[i].get();
    copy_strided({.shape = std::span<const std::size_t>(plan.extent.data(), plan.rank),
                  .src = from,
                  .src_strides = std::span<const std::ptrdiff_t>(plan.stride[i].data(), plan.rank),
                  .dst = to,
                  .dst_strides = std::span<const std::ptrdiff_t>(plan.compact.data(), plan.rank),
                  .elem_size = size});
    plan.at[i] = to;
  }

  // Hands every innermost row of the nest to the row function.
  void walk(const ChunkPlan& plan) const {
    const Nest<N>& nest = plan.nest;
    std::byte* out = job_.out + plan.out_offset * static_cast<std::ptrdiff_t>(job_.out_size);
    std::array<const std::byte*, N> in{};
    std::array<std::ptrdiff_t, N> in_stride{};
    Row row{out, 1, 1, in.data(), in_stride.data()};
    if (nest.rank == 0) {
      in = plan.at;
      return job_.row(job_.context, row);
    }
    row.n = nest.extent[0];
    row.out_stride = nest.stride[N][0];
    for (std::size_t i = 0; i < N; ++i) in_stride[i] = nest.stride[i][0];
    Odometer<N + 1> at(nest, 1);  // the outer loops; loop 0 is the row
    do {
      row.out = out + at.offset(N) * static_cast<std::ptrdiff_t>(job_.out_size);
      for (std::size_t i = 0; i < N; ++i)
        in[i] = plan.at[i] + at.offset(i) * static_cast<std::ptrdiff_t>(job_.inputs[i].elem_size);
      job_.row(job_.context, row);
    } while (at.next());
  }

  const Job& job_;
  Shape shape_;
  std::array<Strides, N> strides_;
  std::array<const Strides*, N> stride_ptrs_{};
  std::array<std::size_t, N + 1> keys_{};
  ChunkGrid grid_{};
};

template <std::size_t N>
requires(N >= 1 && N <= max_inputs) bool run(const Job& job) {
  const Engine<N> engine(job);
  std::size_t bytes = job.out_size;
  for (std::size_t n : job.shape) bytes *= n;
  // Chunks are independent (disjoint output): the pool runs `parts` groups of them, each group
  // with its own scratch, allocated here so that running out of memory is an error before the
  // row function is first called. At most one group per thread bounds the scratch memory.
  const std::size_t parts = std::min({chunk_count(bytes), engine.chunk_count(), num_threads()});
  std::vector<typename Engine<N>::Scratch> scratch(std::max<std::size_t>(parts, 1));
  for (auto& s : scratch)
    if (!engine.allocate(s)) return false;
  parallel_for(scratch.size(), [&](std::size_t p) {
    const std::size_t first = split_point(engine.chunk_count(), scratch.size(), p);
    const std::size_t last = split_point(engine.chunk_count(), scratch.size(), p + 1);
    for (std::size_t c = first; c < last; ++c) engine.run_chunk(c, scratch[p]);
  });
  return true;
}

}  // namespace strided::detail::zip
