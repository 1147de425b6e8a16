// map / zip_with (strided/map.hpp): one pass over N input views, already broadcast to the
// output's shape, writing a new row-major output.
//
// Two halves. The engine (zip-inl.hpp, compiled once into libstrided in the compiled mode) knows
// nothing of the user's function: it cuts the output into chunks, gives each worker scratch,
// copies the inputs that are better copied (transposes, negative and odd strides: the copy
// engine's tiled kernels beat a strided loop), merges the loops, and hands each innermost row to
// a row function. The row function (zip_row below) is the only code compiled per lambda: the loop
// `out[i] = f(a[i], b, ...)` (dense_row), written so that the compiler vectorises it.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <span>
#include <tuple>
#include <utility>

#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"

namespace strided::detail {

/// The output layout of an element-wise op: row-major over the inputs' common (NumPy-broadcast)
/// shape, each input's layout broadcast to that shape in `views` (same length as `inputs`).
/// broadcast_incompatible names the common shape of the inputs before the first one that does not
/// fit, and that input's shape; every error is reported as `op`'s.
STRIDED_FUNC Result<Layout> broadcast_to_common(const char* op,
                                                std::span<const Layout* const> inputs,
                                                std::span<Layout> views);

}  // namespace strided::detail

namespace strided::detail::zip {

/// The most inputs one zip_with call takes (nest the calls for more).
inline constexpr std::size_t max_inputs = 8;
/// Inputs whose broadcast (stride-0) runs get a loop of their own; beyond this many inputs the
/// engine copies broadcast inputs instead, so that the row kernels stay 2^N in number.
inline constexpr std::size_t max_dispatched_inputs = 4;

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
/// zip_with write a fresh buffer, the *_into forms a destination checked not to overlap the
/// inputs): GCC's cost model at -O2 ("very cheap") declines a loop that needs an epilogue or a
/// runtime alias check, and left the plain loop scalar (map_bench built at -O2 held no packed
/// instruction); -O3 and clang vectorised it either way.
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
    for (std::size_t k = 0; k < block; ++k)
      out[i + k] = static_cast<R>(f(std::get<I>(arg)[i + k]...));
  for (; i < n; ++i) out[i] = static_cast<R>(f(std::get<I>(arg)[i]...));
}

template <unsigned Mask, class R, class F, class... T>
void dense_row(F& f, R* out, std::size_t n, const T*... in) {
  dense_row_of<Mask>(f, out, n, std::index_sequence_for<T...>{}, in...);
}

/// One innermost row: `n` outputs from `out` on (element stride `out_stride`), input k read from
/// `in[k]` with element stride `in_stride[k]` (0: broadcast along the row).
struct Row {
  std::byte* out;
  std::ptrdiff_t out_stride;
  std::size_t n;
  const std::byte* const* in;
  const std::ptrdiff_t* in_stride;
};

/// The per-lambda half: runs one row with the user's function (`context` points at it).
using RowFunction = void (*)(void* context, const Row& row);

/// An input view: its element [0, ...] and its strides (elements) over the output's shape.
struct Input {
  const std::byte* base;
  const std::ptrdiff_t* strides;
  std::size_t elem_size;
  bool contiguous;  // row-major over the output's shape: no scratch beside a row-major output
};

/// One map / zip_with call for the engine.
struct Job {
  std::span<const std::size_t> shape;  // the output's
  const Input* inputs;                 // N of them: run<N>
  std::byte* out;                      // the output's element [0, ...]
  std::size_t out_size;
  RowFunction row;
  void* context;
  /// The output's strides (elements, any sign, no two indices on one element; none of the
  /// inputs' memory), or null for a fresh row-major output.
  const std::ptrdiff_t* out_strides = nullptr;
};

/// Runs `job`, whose inputs are N, on the pool. False, before the row function is first called,
/// when the scratch blocks could not be allocated. libstrided holds N = 1 ... max_inputs.
template <std::size_t N>
requires(N >= 1 && N <= max_inputs) bool run(const Job& job);

/// out[i] = f(in[i]...) over a strided row, for the rows the dense kernels do not take.
template <class R, class F, class... T, std::size_t... I>
void strided_row(F& f, const Row& row, std::index_sequence<I...>) {
  R* out = reinterpret_cast<R*>(row.out);
  for (std::size_t i = 0; i < row.n; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    out[k * row.out_stride] =
        static_cast<R>(f(reinterpret_cast<const T*>(row.in[I])[k * row.in_stride[I]]...));
  }
}

/// Turns "which inputs are broadcast along the row" into the compile-time mask of dense_row.
template <unsigned Mask, std::size_t I, class R, class F, class... T>
void dispatch_row(F& f, const Row& row) {
  constexpr std::size_t N = sizeof...(T);
  if constexpr (I == N || N > max_dispatched_inputs) {
    [&]<std::size_t... J>(std::index_sequence<J...>) {
      dense_row<Mask, R>(f, reinterpret_cast<R*>(row.out), row.n,
                         reinterpret_cast<const T*>(row.in[J])...);
    }
    (std::index_sequence_for<T...>{});
  } else if (row.in_stride[I] == 0) {
    dispatch_row<Mask | (1u << I), I + 1, R, F, T...>(f, row);
  } else {
    dispatch_row<Mask, I + 1, R, F, T...>(f, row);
  }
}

/// The row function of one lambda: a dense kernel when the output and every input move by 1 or
/// 0 along the row (what the engine arranges wherever it can), the strided loop otherwise.
template <class R, class F, class... T>
void zip_row(void* context, const Row& row) {
  F& f = *static_cast<F*>(context);
  bool dense = row.out_stride == 1;
  for (std::size_t k = 0; k < sizeof...(T) && dense; ++k)
    dense =
        row.in_stride[k] == 1 || (row.in_stride[k] == 0 && sizeof...(T) <= max_dispatched_inputs);
  if (dense)
    dispatch_row<0u, 0, R, F, T...>(f, row);
  else
    strided_row<R, F, T...>(f, row, std::index_sequence_for<T...>{});
}

}  // namespace strided::detail::zip

#if STRIDED_HEADER_ONLY
#include "strided/detail/zip-inl.hpp"
#endif
