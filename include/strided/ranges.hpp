// Ranges: arange (evenly spaced by a step, NumPy's length rule) and linspace (a number of evenly
// spaced values between two ends), with NumPy's values bit for bit. docs/operations.md has the
// rules beside NumPy's and PyTorch's.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "strided/detail/allocation_guard.hpp"
#include "strided/error.hpp"
#include "strided/half.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"
#include "strided/tensor.hpp"

namespace strided {

/// The element types ranges are made of: integers (not bool), float, double, f16 and bf16.
template <class T>
concept RangeElement =
    (std::is_integral_v<T> && !std::is_same_v<T, bool>) || std::is_floating_point_v<T> ||
    std::is_same_v<T, f16> || std::is_same_v<T, bf16>;

/// The type arange's bounds and step are given in for elements T: std::int64_t for integers
/// (exact), double for floating-point elements (as Python numbers reach NumPy).
template <RangeElement T>
using range_scalar_t = std::conditional_t<std::is_integral_v<T>, std::int64_t, double>;

namespace detail {

// x as stored: GCC may fuse a product and a sum into one FMA (it does on aarch64 by default),
// which rounds once where NumPy rounds twice.
template <class F>
[[gnu::always_inline]] inline F rounded(F x) noexcept {
  __asm__("" : "+m"(x));
  return x;
}

/// A fresh tensor of `n` elements, filled by fill(T* out); size_overflow when n elements of T
/// cannot be addressed.
template <class T, class Fill>
Result<Tensor<T>> make_range(const char* op, std::size_t n, Fill&& fill) {
  if (n > static_cast<std::size_t>(PTRDIFF_MAX) / sizeof(T))
    return ShapeError::size_overflow(op, Shape{n});
  auto buffer = try_allocate_buffer<T>(n);
  if (buffer == nullptr) return ShapeError::allocation_failed(op, n);
  fill(buffer.get());
  return Tensor<T>::from_shared(std::move(buffer), n, Layout::contiguous(Shape{n}).value());
}

template <class T>
Result<Tensor<T>> arange_integer(std::int64_t start, std::int64_t stop, std::int64_t step) {
  __extension__ typedef __int128 Wide;  // exact for every int64 difference and product
  const Wide diff = Wide{stop} - start;
  Wide n = 0;  // NumPy's ceil((stop - start) / step), in exact arithmetic
  if (step > 0 && diff > 0) n = (diff + step - 1) / step;
  if (step < 0 && diff < 0) n = (diff + step + 1) / step;
  if (n > static_cast<Wide>(PTRDIFF_MAX))
    return ShapeError::size_overflow("arange", Shape{std::numeric_limits<std::size_t>::max()});
  const Wide last = Wide{start} + (n - 1) * step;
  if (n > 0 &&
      (Wide{start} < std::numeric_limits<T>::min() || Wide{start} > std::numeric_limits<T>::max() ||
       last < std::numeric_limits<T>::min() || last > std::numeric_limits<T>::max()))
    return ShapeError::invalid_argument("arange", "the range's values do not fit the element type");
  return make_range<T>("arange", static_cast<std::size_t>(n), [&](T* out) {
    for (std::size_t i = 0; i < static_cast<std::size_t>(n); ++i)
      out[i] = static_cast<T>(start + static_cast<std::int64_t>(i) * step);
  });
}

// NumPy's float fill: out[0] = start, out[1] = start + step (rounded to T), then
// out[i] = start + i * delta with delta = out[1] - out[0], in T's arithmetic (float for f16 and
// bf16, as NumPy's half fill).
template <class T>
void fill_float_range(T* out, std::size_t n, double start, double step) {
  using F = std::conditional_t<std::is_same_v<T, double>, double, float>;
  if (n == 0) return;
  out[0] = static_cast<T>(start);
  if (n == 1) return;
  out[1] = static_cast<T>(start + step);
  const F first = static_cast<F>(out[0]);
  const F delta = static_cast<F>(static_cast<F>(out[1]) - first);
  for (std::size_t i = 2; i < n; ++i)
    out[i] = static_cast<T>(static_cast<F>(first + rounded(static_cast<F>(i) * delta)));
}

template <class T>
Result<Tensor<T>> arange_float(double start, double stop, double step) {
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    return ShapeError::invalid_argument("arange", "start, stop and step must be finite");
  const double length = std::ceil((stop - start) / step);
  if (!(length < 0x1p63))  // also an infinite (stop - start): NumPy's "maximum size exceeded"
    return ShapeError::size_overflow("arange", Shape{std::numeric_limits<std::size_t>::max()});
  const std::size_t n = length > 0 ? static_cast<std::size_t>(length) : 0;
  return make_range<T>("arange", n, [&](T* out) { fill_float_range(out, n, start, step); });
}

// NumPy's linspace in double: i * step + start (two roundings), or (i / div) * delta + start
// when the step underflows to 0; the last value is `stop` exactly when the endpoint is included.
inline double linspace_value(std::size_t i, std::size_t n, double start, double stop,
                             bool endpoint) {
  if (endpoint && n > 1 && i == n - 1) return stop;
  const double delta = stop - start;
  const std::size_t div = endpoint ? n - 1 : n;
  const auto x = static_cast<double>(i);
  if (div == 0) return rounded(x * delta) + start;
  const double step = delta / static_cast<double>(div);
  if (step == 0) return rounded(rounded(x / static_cast<double>(div)) * delta) + start;
  return rounded(x * step) + start;
}

}  // namespace detail

/// @name Ranges (row-major rank-1 tensors)
///@{

/// NumPy `np.arange(start, stop, step, dtype=T)`, PyTorch `torch.arange(start, stop, step)`:
/// ceil((stop - start) / step) values start, start + step, ... (none when that is <= 0); the
/// values are NumPy's bit for bit (floating types: start + i * (x1 - start) with x1 = start +
/// step rounded to T, in T's arithmetic, through float for f16 and bf16). Errors: step 0 and
/// non-finite bounds are invalid_argument, as are integer values outside T; a length that cannot
/// be addressed is size_overflow.
template <RangeElement T>
Result<Tensor<T>> arange(range_scalar_t<T> start, range_scalar_t<T> stop,
                         range_scalar_t<T> step = 1) {
  return detail::guard_allocations("arange", [&]() -> Result<Tensor<T>> {
    if (step == 0) return ShapeError::invalid_argument("arange", "step must not be zero");
    if constexpr (std::is_integral_v<T>)
      return detail::arange_integer<T>(start, stop, step);
    else
      return detail::arange_float<T>(start, stop, step);
  });
}
/// arange(0, stop, 1).
template <RangeElement T>
Result<Tensor<T>> arange(range_scalar_t<T> stop) {
  return arange<T>(0, stop, 1);
}

/// NumPy `np.linspace(start, stop, n, endpoint, dtype=T)`, PyTorch `torch.linspace(start, stop,
/// n)` (endpoint always): `n` evenly spaced values from `start`, the last one `stop` when
/// `endpoint`, else the interval's n-th part short of it. Computed in double as NumPy does, then
/// rounded once to T (floored for integers, as NumPy); n = 1 gives [start], n = 0 an empty
/// tensor. Errors: an integer T with values that are not finite or outside T is
/// invalid_argument; size_overflow for an n that cannot be addressed.
template <RangeElement T>
Result<Tensor<T>> linspace(double start, double stop, std::size_t n, bool endpoint = true) {
  return detail::guard_allocations("linspace", [&]() -> Result<Tensor<T>> {
    if constexpr (std::is_integral_v<T>) {
      for (std::size_t i : {std::size_t{0}, n > 0 ? n - 1 : 0}) {
        const double v =
            n == 0 ? 0 : std::floor(detail::linspace_value(i, n, start, stop, endpoint));
        if (!(v >= static_cast<double>(std::numeric_limits<T>::min()) &&
              v < static_cast<double>(std::numeric_limits<T>::max()) + 1.0))
          return ShapeError::invalid_argument("linspace", "the values do not fit the element type");
      }
    }
    return detail::make_range<T>("linspace", n, [&](T* out) {
      for (std::size_t i = 0; i < n; ++i) {
        const double v = detail::linspace_value(i, n, start, stop, endpoint);
        if constexpr (std::is_integral_v<T>)
          out[i] = static_cast<T>(std::floor(v));
        else
          out[i] = static_cast<T>(v);
      }
    });
  });
}
///@}

}  // namespace strided
