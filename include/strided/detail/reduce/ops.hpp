// The reductions' per-element rules (sum, min/max, argmin/argmax, var): what a leaf of a few
// hundred elements reduces to, how two partial results combine, and what a partial result
// finishes as. The engine (strided/detail/reduce-inl.hpp) decides which elements form a leaf and
// in which fixed order the partials combine; an op only says what to do with them.
//
// An op has: Acc (a partial result), leaf(p, stride, n, first) for n >= 1 elements at p, p +
// stride, ... whose first has index `first` along the reduced elements, first(x, i) / step(a, x,
// i) for the lane-wise form (one element at a time, used when the outputs lie along contiguous
// memory), combine(earlier, later), and finish(acc, count) -> the output element.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "strided/half.hpp"

namespace strided::detail::reduce {

/// Independent accumulators per leaf: enough that the compiler keeps a whole vector register (or
/// several) busy from a plain loop, without -ffast-math, since each lane is its own sum.
inline constexpr std::size_t lanes = 16;

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

/// The type an element is compared in: float for the 16-bit floats (exact), else itself.
template <class T>
using compare_t = std::conditional_t<is_half_v<T>, float, T>;

/// Combines `acc[0..lanes)` pairwise (lane j with j + half), a fixed tree.
template <class A, class Combine>
A fold_lanes(A* acc, Combine&& combine) {
  for (std::size_t half = lanes / 2; half != 0; half /= 2)
    for (std::size_t j = 0; j != half; ++j) acc[j] = combine(acc[j], acc[j + half]);
  return acc[0];
}

/// Sums in A (float for f16 / bf16 / f32, double for f64 and for means of integers, uint64_t,
/// wrapping, for integer sums), finished as R: the sum, or the sum divided by the count (Mean).
template <class T, class A, class R, bool Mean>
struct SumOp {
  using Acc = A;
  static A load(T x) noexcept {
    if constexpr (std::is_same_v<A, std::uint64_t> && std::is_signed_v<T>)
      return static_cast<A>(static_cast<std::int64_t>(x));  // sign-extend, then wrap
    else if constexpr (is_half_v<T>)
      return static_cast<A>(static_cast<float>(x));
    else
      return static_cast<A>(x);
  }
  A leaf(const T* p, std::ptrdiff_t s, std::size_t n, std::size_t) const noexcept {
    A acc[lanes] = {};
    std::size_t i = 0;
    if (s == 1) {
      for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j != lanes; ++j) acc[j] += load(p[i + j]);
    } else {
      for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j != lanes; ++j)
          acc[j] += load(p[static_cast<std::ptrdiff_t>(i + j) * s]);
    }
    for (std::size_t j = 0; i < n; ++i, ++j) acc[j] += load(p[static_cast<std::ptrdiff_t>(i) * s]);
    return fold_lanes(acc, [](A a, A b) { return a + b; });
  }
  A first(T x, std::size_t) const noexcept { return load(x); }
  void step(A& a, T x, std::size_t) const noexcept { a += load(x); }
  A combine(A a, A b) const noexcept { return a + b; }
  R finish(A a, std::size_t count) const noexcept {
    if constexpr (Mean) {
      if (count == 0) return static_cast<R>(std::numeric_limits<float>::quiet_NaN());
      return static_cast<R>(a / static_cast<A>(count));
    } else if constexpr (std::is_same_v<R, std::int64_t>) {
      return static_cast<std::int64_t>(a);  // modular, as PyTorch's int64 sums
    } else {
      return static_cast<R>(a);
    }
  }
};

/// min (Max = false) or max of the elements; a NaN anywhere makes the result NaN (PyTorch).
template <class T, bool Max>
struct ExtremumOp {
  using C = compare_t<T>;
  using Acc = C;
  // x replaces a when it is better, or when it is NaN (so NaN sticks: nothing beats it after).
  static C pick(C a, C x) noexcept {
    const bool better = Max ? x > a : x < a;
    return (better || x != x) ? x : a;  // NOLINT(misc-redundant-expression): NaN test
  }
  C leaf(const T* p, std::ptrdiff_t s, std::size_t n, std::size_t) const noexcept {
    C acc[lanes];
    for (std::size_t j = 0; j != lanes; ++j) acc[j] = static_cast<C>(p[0]);
    std::size_t i = 0;
    if (s == 1) {
      for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j != lanes; ++j) acc[j] = pick(acc[j], static_cast<C>(p[i + j]));
    } else {
      for (; i + lanes <= n; i += lanes)
        for (std::size_t j = 0; j != lanes; ++j)
          acc[j] = pick(acc[j], static_cast<C>(p[static_cast<std::ptrdiff_t>(i + j) * s]));
    }
    for (std::size_t j = 0; i < n; ++i, ++j)
      acc[j] = pick(acc[j], static_cast<C>(p[static_cast<std::ptrdiff_t>(i) * s]));
    return fold_lanes(acc, [](C a, C b) { return combine_values(a, b); });
  }
  static C combine_values(C a, C b) noexcept { return a != a ? a : pick(a, b); }
  C first(T x, std::size_t) const noexcept { return static_cast<C>(x); }
  void step(C& a, T x, std::size_t) const noexcept { a = pick(a, static_cast<C>(x)); }
  C combine(C a, C b) const noexcept { return combine_values(a, b); }
  T finish(C a, std::size_t) const noexcept { return static_cast<T>(a); }
};

/// The best value seen and the index of its first occurrence.
template <class C>
struct Best {
  C value;
  std::int64_t index;
};

/// argmin (Max = false) / argmax: the index of the first occurrence of the extremum, or of the
/// first NaN when there is one (PyTorch).
template <class T, bool Max>
struct ArgOp {
  using C = compare_t<T>;
  using Acc = Best<C>;
  // Does x (seen after a, in a's lane) replace a? Strictly better, or the lane's first NaN.
  static bool replaces(C a, C x) noexcept {
    const bool better = Max ? x > a : x < a;
    return better || (x != x && a == a);  // NOLINT(misc-redundant-expression): NaN tests
  }
  Acc leaf(const T* p, std::ptrdiff_t s, std::size_t n, std::size_t first) const noexcept {
    Acc best{static_cast<C>(p[0]), 0};
    std::size_t i = 1;
    if constexpr (std::is_floating_point_v<T>) {
      if (s == 1 && n >= lanes) {
        best = dense_float_leaf(p, n);
        i = n / lanes * lanes;
      }
    }
    for (; i < n; ++i) {
      const C x = static_cast<C>(p[static_cast<std::ptrdiff_t>(i) * s]);
      if (replaces(best.value, x)) best = {x, static_cast<std::int64_t>(i)};
    }
    best.index += static_cast<std::int64_t>(first);
    return best;
  }
  // The whole blocks of `lanes` floats of a contiguous leaf, lane by lane with bit-mask selects,
  // which the compiler vectorises (the one-pass loop's branch per element, or a float select,
  // stay scalar). Lane j keeps its best element's block and its first NaN's block; the lanes
  // then combine, ties to the smaller index, to the one-pass loop's answer over those blocks.
  static Acc dense_float_leaf(const T* p, std::size_t n) noexcept {
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    constexpr U none = ~U{0};
    U ext[lanes], at[lanes], nan_at[lanes];
    for (std::size_t j = 0; j != lanes; ++j) {
      ext[j] = std::bit_cast<U>(p[j]);
      at[j] = 0;
      nan_at[j] = __builtin_isunordered(p[j], p[j]) ? 0 : none;
    }
    const std::size_t whole = n / lanes * lanes;
    for (std::size_t i = lanes; i != whole; i += lanes)
      for (std::size_t j = 0; j != lanes; ++j) {
        const T x = p[i + j];
        const T e = std::bit_cast<T>(ext[j]);
        const U better =
            U{0} - static_cast<U>(Max ? __builtin_isgreater(x, e) : __builtin_isless(x, e));
        ext[j] = (std::bit_cast<U>(x) & better) | (ext[j] & ~better);
        at[j] = (static_cast<U>(i) & better) | (at[j] & ~better);
        const U first_nan = (U{0} - static_cast<U>(__builtin_isunordered(x, x))) &
                            (U{0} - static_cast<U>(nan_at[j] == none));
        nan_at[j] = (static_cast<U>(i) & first_nan) | (nan_at[j] & ~first_nan);
      }
    Acc best{std::bit_cast<T>(ext[0]), static_cast<std::int64_t>(at[0])};
    std::int64_t nan_index = -1;
    for (std::size_t j = 0; j != lanes; ++j) {
      if (nan_at[j] != none) {
        const auto k = static_cast<std::int64_t>(nan_at[j] + j);
        if (nan_index < 0 || k < nan_index) nan_index = k;
      }
      const Acc lane{std::bit_cast<T>(ext[j]), static_cast<std::int64_t>(at[j] + j)};
      const bool wins = Max ? lane.value > best.value : lane.value < best.value;
      if (wins || (lane.value == best.value && lane.index < best.index)) best = lane;
    }
    if (nan_index >= 0) return {p[nan_index], nan_index};
    return best;
  }
  Acc first(T x, std::size_t i) const noexcept {
    return {static_cast<C>(x), static_cast<std::int64_t>(i)};
  }
  void step(Acc& a, T x, std::size_t i) const noexcept {
    const C v = static_cast<C>(x);
    const bool r = replaces(a.value, v);
    a.value = r ? v : a.value;
    a.index = r ? static_cast<std::int64_t>(i) : a.index;
  }
  // `earlier` holds smaller indices than `later`, so it wins every tie.
  Acc combine(Acc earlier, Acc later) const noexcept {
    return replaces(earlier.value, later.value) ? later : earlier;
  }
  std::int64_t finish(Acc a, std::size_t) const noexcept { return a.index; }
};

/// Count, mean and sum of squared deviations of a set of values, in double.
struct Moments {
  double count;
  double mean;
  double m2;
};

/// var (Std = false) / std with PyTorch's correction: m2 / max(count - correction, 0). A leaf
/// takes two passes over its (cached) elements; partials combine by Chan et al.'s formula, so the
/// whole is one pass over memory and as accurate as two passes.
template <class T, class R, bool Std>
struct VarOp {
  using Acc = Moments;
  double correction = 1;
  static double load(T x) noexcept {
    if constexpr (is_half_v<T>)
      return static_cast<double>(static_cast<float>(x));
    else
      return static_cast<double>(x);
  }
  Acc leaf(const T* p, std::ptrdiff_t s, std::size_t n, std::size_t) const noexcept {
    double acc[lanes] = {};
    for (std::size_t i = 0; i < n; ++i)
      acc[i % lanes] += load(p[static_cast<std::ptrdiff_t>(i) * s]);
    const double mean =
        fold_lanes(acc, [](double a, double b) { return a + b; }) / static_cast<double>(n);
    double dev[lanes] = {};
    for (std::size_t i = 0; i < n; ++i) {
      const double d = load(p[static_cast<std::ptrdiff_t>(i) * s]) - mean;
      dev[i % lanes] += d * d;
    }
    return {static_cast<double>(n), mean,
            fold_lanes(dev, [](double a, double b) { return a + b; })};
  }
  Acc first(T x, std::size_t) const noexcept { return {1, load(x), 0}; }
  void step(Acc& a, T x, std::size_t) const noexcept {  // Welford
    const double v = load(x);
    a.count += 1;
    const double d = v - a.mean;
    a.mean += d / a.count;
    a.m2 += d * (v - a.mean);
  }
  Acc combine(Acc a, Acc b) const noexcept {
    const double count = a.count + b.count;
    const double delta = b.mean - a.mean;
    return {count, a.mean + delta * (b.count / count),
            a.m2 + b.m2 + delta * delta * (a.count * b.count / count)};
  }
  R finish(Acc a, std::size_t count) const noexcept {
    const double m2 = count == 0 ? 0.0 : a.m2;
    const double divisor = std::max(static_cast<double>(count) - correction, 0.0);
    const double var = m2 / divisor;  // 0 / 0 is NaN, as PyTorch's var of too few elements
    return static_cast<R>(Std ? std::sqrt(var) : var);
  }
};

}  // namespace strided::detail::reduce
