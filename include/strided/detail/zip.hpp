// Engine of map / zip_with (strided/map.hpp): one pass over N input views, already broadcast to
// the output's shape, writing a new row-major output.
//
// The output is cut into chunks of at most chunk_elements (a range along one axis times every
// axis inside it). Chunks write disjoint parts of the output and keep their scratch apart, so
// they can run in any order or concurrently. Inside a chunk every input is either read in place
// (contiguous, or its innermost stride is 0 or 1 and runs are long) or first copied into a
// contiguous scratch block by the copy engine (transposes, negative and odd strides: the copy
// engine's tiled kernels beat a strided loop). What is left is a loop nest whose innermost loop
// is `out[i] = f(a[i], b, ...)` (dense_row), written so that the compiler vectorises it.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <tuple>
#include <utility>

#include "strided/detail/buffer.hpp"
#include "strided/detail/chunk_grid.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/odometer.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/shape.hpp"

namespace strided::detail::zip {

/// Innermost runs shorter than this are not worth reading in place: the input is copied.
inline constexpr std::size_t min_direct_run = 64;
/// Inputs whose broadcast (stride-0) runs get their own loop; more inputs are copied instead.
inline constexpr std::size_t max_dispatched_inputs = 4;

/// A joint loop nest over N inputs and the output (operand N).
template <std::size_t N>
using Nest = LoopNest<N + 1>;
static_assert(max_rank <= max_loops);

/// Reads a dense run (element i) or a broadcast value hoisted out of the loop.
template <class T, bool Broadcast>
struct Access {
  const T* p;
  const T& operator[](std::size_t i) const noexcept { return p[i]; }
};
template <class T>
struct Access<T, true> {
  T v;
  explicit Access(const T* p) noexcept : v(*p) {}
  const T& operator[](std::size_t) const noexcept { return v; }
};

/// Elements per block of dense_row: a cache line of the output.
template <class R>
inline constexpr std::size_t row_block = sizeof(R) < cache_line_bytes ? cache_line_bytes / sizeof(R)
                                                                      : 1;

/// out[i] = f(in[i]...) for i < n, the inputs whose bit is set in Mask broadcast (read once).
/// The loop the compiler vectorises. In blocks of a constant count, with `out` restrict (map and
/// zip_with always write a fresh buffer): GCC's cost model at -O2 ("very cheap") declines a loop
/// that needs an epilogue or a runtime alias check, and left the plain loop scalar (map_bench
/// built at -O2 held no packed instruction); -O3 and clang vectorised it either way.
template <unsigned Mask, class R, class F, class... T, std::size_t... I>
void dense_row_of(F& f, R* __restrict out, std::size_t n, std::index_sequence<I...>,
                  const T*... in) {
  const std::tuple<Access<T, ((Mask >> I) & 1u) != 0>...> arg{
      Access<T, ((Mask >> I) & 1u) != 0>{in}...};
  // Both loops store through `out` itself: a lambda doing the store (captured by reference) loses
  // the restrict, and GCC -O2 then leaves the blocks scalar (codegen.kernels-O2 fails).
  constexpr std::size_t block = row_block<R>;
  std::size_t i = 0;
  for (; i + block <= n; i += block)
    for (std::size_t k = 0; k < block; ++k) out[i + k] = f(std::get<I>(arg)[i + k]...);
  for (; i < n; ++i) out[i] = f(std::get<I>(arg)[i]...);
}

template <unsigned Mask, class R, class F, class... T>
void dense_row(F& f, R* out, std::size_t n, const T*... in) {
  dense_row_of<Mask>(f, out, n, std::index_sequence_for<T...>{}, in...);
}

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

/// One map/zip_with call: `f` applied to N inputs broadcast to `shape`, into `out`.
template <class R, class F, class... T>
class Job {
 public:
  static constexpr std::size_t N = sizeof...(T);
  using Pointers = std::tuple<const T*...>;

  Job(F& f, R* out, const Shape& shape, Pointers base, std::array<const Strides*, N> strides)
      : f_(f),
        out_(out),
        shape_(shape),
        base_(base),
        strides_(strides),
        grid_(make_grid(shape, std::span<const std::size_t>(keys_.data(),
                                                            key_axes<N>(shape, strides, keys_)))) {}

  std::size_t chunk_count() const noexcept { return grid_.count; }

  /// Scratch for one worker: a chunk-sized block per input that may need copying.
  struct Scratch {
    std::tuple<std::shared_ptr<T>...> block;
  };
  /// Allocates `s`; false when memory ran out. `needed[i]`: input i is not contiguous.
  bool allocate(Scratch& s, const std::array<bool, N>& needed) const noexcept {
    return allocate_each(s, needed, std::index_sequence_for<T...>{});
  }

  /// Computes chunk `c` (any order, any thread, each chunk once per worker's scratch).
  void run_chunk(std::size_t c, Scratch& scratch) const {
    ChunkPlan plan;
    locate(c, plan);
    choose_sources(plan, scratch);
    dispatch<0u, 0>(plan);
  }

 private:
  struct ChunkPlan {
    std::size_t rank = 0;  // chunk axes: shape_[axis..], first one cut to `len`
    std::array<std::size_t, max_rank> extent{};
    std::array<std::array<std::ptrdiff_t, max_rank>, N + 1> stride{};  // [N]: output
    std::array<std::ptrdiff_t, max_rank> compact{};  // a copied input's strides in scratch
    std::size_t out_offset = 0;
    std::array<std::ptrdiff_t, N> in_offset{};
    Pointers at{};  // where each input's chunk starts (in place or in scratch)
    std::array<bool, N> copied{};
    Nest<N> nest;
  };

  template <std::size_t... I>
  bool allocate_each(Scratch& s, const std::array<bool, N>& needed,
                     std::index_sequence<I...>) const noexcept {
    bool ok = true;
    ((needed[I] ? (std::get<I>(s.block) = try_allocate_buffer<T>(chunk_elements),
                   ok = ok && std::get<I>(s.block) != nullptr)
                : ok),
     ...);
    return ok;
  }

  // The chunk's axes, strides and starting offsets.
  void locate(std::size_t c, ChunkPlan& plan) const noexcept {
    plan.rank = shape_.size();
    std::array<std::size_t, max_rank> start{};
    chunk_bounds(grid_, shape_, c, start.data(), plan.extent.data());
    std::ptrdiff_t row_major = 1, compact = 1;
    for (std::size_t k = plan.rank; k-- > 0;) {
      const auto first = static_cast<std::ptrdiff_t>(start[k]);
      plan.stride[N][k] = row_major;
      plan.compact[k] = compact;  // row-major strides of the chunk alone: the scratch layout
      plan.out_offset += start[k] * static_cast<std::size_t>(row_major);
      for (std::size_t i = 0; i < N; ++i) {
        plan.stride[i][k] = (*strides_[i])[k];
        plan.in_offset[i] += first * plan.stride[i][k];
      }
      row_major *= static_cast<std::ptrdiff_t>(shape_[k]);
      compact *= static_cast<std::ptrdiff_t>(plan.extent[k]);
    }
  }

  // True when input i's chunk is row-major over the chunk's axes (size-1 axes aside).
  bool in_order(const ChunkPlan& plan, std::size_t i) const noexcept {
    for (std::size_t j = 0; j < plan.rank; ++j)
      if (plan.extent[j] > 1 && plan.stride[i][j] != plan.stride[N][j]) return false;
    return true;
  }

  // Stride of input i along the innermost chunk axis that has more than one index.
  std::ptrdiff_t innermost_stride(const ChunkPlan& plan, std::size_t i) const noexcept {
    for (std::size_t j = plan.rank; j-- > 0;)
      if (plan.extent[j] > 1) return plan.stride[i][j];
    return 1;
  }

  // Decides, per input, in place or copied; copies; builds the joint nest.
  void choose_sources(ChunkPlan& plan, Scratch& scratch) const {
    std::array<bool, N> ordered{};
    for (std::size_t i = 0; i < N; ++i) {
      ordered[i] = in_order(plan, i);
      const std::ptrdiff_t s = innermost_stride(plan, i);
      const bool runs_ok = s == 1 || (s == 0 && N <= max_dispatched_inputs);
      plan.copied[i] = !ordered[i] && !runs_ok;
    }
    build(plan);
    if (plan.nest.rank > 0 && plan.nest.extent[0] < min_direct_run) {
      for (std::size_t i = 0; i < N; ++i) plan.copied[i] = !ordered[i];
      build(plan);
    }
    copy_inputs(plan, scratch, std::index_sequence_for<T...>{});
  }

  void build(ChunkPlan& plan) const noexcept {
    auto stride = plan.stride;
    for (std::size_t i = 0; i < N; ++i)
      if (plan.copied[i]) stride[i] = plan.compact;
    merge_loops(plan.nest, std::span<const std::size_t>(plan.extent.data(), plan.rank),
                [&stride](std::size_t m, std::size_t k) { return stride[m][k]; });
  }

  template <std::size_t... I>
  void copy_inputs(ChunkPlan& plan, Scratch& scratch, std::index_sequence<I...>) const {
    (copy_input<I>(plan, scratch), ...);
  }

  template <std::size_t I>
  void copy_input(ChunkPlan& plan, Scratch& scratch) const {
    using E = std::tuple_element_t<I, std::tuple<T...>>;
    const E* from = std::get<I>(base_) + plan.in_offset[I];
    if (!plan.copied[I]) {
      std::get<I>(plan.at) = from;
      return;
    }
    E* to = std::get<I>(scratch.block).get();
    copy_strided({.shape = std::span<const std::size_t>(plan.extent.data(), plan.rank),
                  .src = reinterpret_cast<const std::byte*>(from),
                  .src_strides = std::span<const std::ptrdiff_t>(plan.stride[I].data(), plan.rank),
                  .dst = reinterpret_cast<std::byte*>(to),
                  .dst_strides = std::span<const std::ptrdiff_t>(plan.compact.data(), plan.rank),
                  .elem_size = sizeof(E)});
    std::get<I>(plan.at) = to;
  }

  // Turns "which inputs are broadcast along the innermost loop" into a compile-time mask.
  template <unsigned Mask, std::size_t I>
  void dispatch(const ChunkPlan& plan) const {
    if constexpr (I == N || N > max_dispatched_inputs) {
      walk<Mask>(plan, std::index_sequence_for<T...>{});
    } else {
      if (plan.nest.rank > 0 && plan.nest.stride[I][0] == 0)
        dispatch<Mask | (1u << I), I + 1>(plan);
      else
        dispatch<Mask, I + 1>(plan);
    }
  }

  template <unsigned Mask, std::size_t... I>
  void walk(const ChunkPlan& plan, std::index_sequence<I...>) const {
    const Nest<N>& nest = plan.nest;
    R* out = out_ + plan.out_offset;
    if (nest.rank == 0) {
      *out = f_(*std::get<I>(plan.at)...);
      return;
    }
    const std::size_t n = nest.extent[0];
    const bool dense_out = nest.stride[N][0] == 1;
    Odometer<N + 1> at(nest, 1);  // the outer loops; loop 0 is the row
    do {
      if (dense_out)
        dense_row<Mask>(f_, out + at.offset(N), n, std::get<I>(plan.at) + at.offset(I)...);
      else
        strided_row<I...>(out + at.offset(N), n, nest, std::get<I>(plan.at) + at.offset(I)...);
    } while (at.next());
  }

  // A last column piece of width 1 leaves an innermost loop the output walks with a stride.
  template <std::size_t... I>
  void strided_row(R* out, std::size_t n, const Nest<N>& nest, const T*... in) const {
    for (std::size_t i = 0; i < n; ++i) {
      const auto k = static_cast<std::ptrdiff_t>(i);
      out[k * nest.stride[N][0]] = f_(in[k * nest.stride[I][0]]...);
    }
  }

  F& f_;
  R* out_;
  const Shape& shape_;
  Pointers base_;
  std::array<const Strides*, N> strides_;
  std::array<std::size_t, N + 1> keys_{};  // before grid_: its initialiser fills them
  ChunkGrid grid_;
};

}  // namespace strided::detail::zip
