// Reductions: sum, mean, min, max, argmin, argmax, var, std, over all elements or a list of
// axes, with PyTorch's names, dtype rules and NaN rules (docs/reductions.md). Each reads any view
// (transposed, broadcast, flipped) in place, returns a new tensor or writes into the caller's
// buffer (the *_into forms), and gives bit-identical results for any number of threads.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "strided/detail/reduce/run.hpp"
#include "strided/tensor.hpp"

namespace strided {

/// The element type of sum(Tensor<T>): std::int64_t for bool and every integer type but
/// std::uint64_t (which stays std::uint64_t), T for the floating types.
template <BuiltinElement T>
using sum_type_t = std::conditional_t<std::is_same_v<T, std::uint64_t>, std::uint64_t,
                                      std::conditional_t<std::is_integral_v<T>, std::int64_t, T>>;

/// The element type of mean / var / std of Tensor<T>: T for the floating types, double for bool
/// and the integers (NumPy's rule; PyTorch refuses integer means).
template <BuiltinElement T>
using mean_type_t = std::conditional_t<std::is_integral_v<T>, double, T>;

// Each reduction comes in four forms, e.g. for sum:
//   sum(t)                      all elements, a rank-0 tensor
//   sum(t, axes, keepdim)       the listed axes (each once, each < rank), removed or kept as 1
//   sum_into(t, out)            all elements, written to out[0] (out.size() must be 1)
//   sum_into(t, axes, out)      the listed axes, row-major into out (size = the result's numel)
// An empty axis list reduces nothing (NumPy's axis=()). The *_into forms allocate nothing and
// check everything before they write (memory_overlap when out overlaps t's memory).

#define STRIDED_REDUCTION(NAME, RESULT)                                                        \
  template <BuiltinElement T>                                                                  \
  Result<Tensor<RESULT>> NAME(const Tensor<T>& t) {                                            \
    return detail::reduce::run<detail::reduce::ReduceKind::NAME, RESULT>(#NAME, t, nullptr,    \
                                                                         false);               \
  }                                                                                            \
  template <BuiltinElement T>                                                                  \
  Result<Tensor<RESULT>> NAME(const Tensor<T>& t, const Shape& axes, bool keepdim = false) {   \
    return detail::reduce::run<detail::reduce::ReduceKind::NAME, RESULT>(#NAME, t, &axes,      \
                                                                         keepdim);             \
  }                                                                                            \
  template <BuiltinElement T>                                                                  \
  Result<void> NAME##_into(const Tensor<T>& t, std::span<RESULT> out) {                        \
    return detail::reduce::run_into<detail::reduce::ReduceKind::NAME>(#NAME, t, nullptr, out); \
  }                                                                                            \
  template <BuiltinElement T>                                                                  \
  Result<void> NAME##_into(const Tensor<T>& t, const Shape& axes, std::span<RESULT> out) {     \
    return detail::reduce::run_into<detail::reduce::ReduceKind::NAME>(#NAME, t, &axes, out);   \
  }

///@{
/// Sum (torch.sum, np.sum): integers and bool sum into std::int64_t (wrapping), f16 / bf16 in
/// float rounded once, f32 in float and f64 in double, pairwise. Empty: 0.
STRIDED_REDUCTION(sum, sum_type_t<T>)
///@}
///@{
/// Mean (torch.mean, np.mean): the sum as for sum() (in double for integers), divided by the
/// count. Empty: NaN.
STRIDED_REDUCTION(mean, mean_type_t<T>)
///@}
///@{
/// Minimum (torch.amin, np.min); NaN if any element is NaN. Empty: invalid_argument.
STRIDED_REDUCTION(min, T)
///@}
///@{
/// Maximum (torch.amax, np.max); NaN if any element is NaN. Empty: invalid_argument.
STRIDED_REDUCTION(max, T)
///@}

#undef STRIDED_REDUCTION

#define STRIDED_ARG_REDUCTION(NAME)                                                               \
  template <BuiltinElement T>                                                                     \
  Result<Tensor<std::int64_t>> NAME(const Tensor<T>& t) {                                         \
    return detail::reduce::run<detail::reduce::ReduceKind::NAME, std::int64_t>(#NAME, t, nullptr, \
                                                                               false);            \
  }                                                                                               \
  template <BuiltinElement T>                                                                     \
  Result<Tensor<std::int64_t>> NAME(const Tensor<T>& t, std::size_t axis, bool keepdim = false) { \
    const Shape axes{axis};                                                                       \
    return detail::reduce::run<detail::reduce::ReduceKind::NAME, std::int64_t>(#NAME, t, &axes,   \
                                                                               keepdim);          \
  }                                                                                               \
  template <BuiltinElement T>                                                                     \
  Result<void> NAME##_into(const Tensor<T>& t, std::span<std::int64_t> out) {                     \
    return detail::reduce::run_into<detail::reduce::ReduceKind::NAME>(#NAME, t, nullptr, out);    \
  }                                                                                               \
  template <BuiltinElement T>                                                                     \
  Result<void> NAME##_into(const Tensor<T>& t, std::size_t axis, std::span<std::int64_t> out) {   \
    const Shape axes{axis};                                                                       \
    return detail::reduce::run_into<detail::reduce::ReduceKind::NAME>(#NAME, t, &axes, out);      \
  }

///@{
/// The row-major index of the first minimum / maximum, or of the first NaN when there is one: of
/// all elements (a rank-0 tensor; keepdim gives all axes size 1), or along one axis. Empty:
/// invalid_argument.
STRIDED_ARG_REDUCTION(argmin)
///@}
///@{
/// The row-major index of the first minimum / maximum, or of the first NaN when there is one: of
/// all elements (a rank-0 tensor; keepdim gives all axes size 1), or along one axis. Empty:
/// invalid_argument.
STRIDED_ARG_REDUCTION(argmax)
///@}
#undef STRIDED_ARG_REDUCTION

#define STRIDED_VAR_REDUCTION(NAME)                                                              \
  template <BuiltinElement T>                                                                    \
  Result<Tensor<mean_type_t<T>>> NAME(const Tensor<T>& t) {                                      \
    return NAME(t, 1.0);                                                                         \
  }                                                                                              \
  template <BuiltinElement T, class C>                                                           \
  requires std::is_arithmetic_v<C> Result<Tensor<mean_type_t<T>>> NAME(const Tensor<T>& t,       \
                                                                       C correction) {           \
    return detail::reduce::run<detail::reduce::ReduceKind::NAME, mean_type_t<T>>(                \
        #NAME, t, nullptr, false, static_cast<double>(correction));                              \
  }                                                                                              \
  template <BuiltinElement T>                                                                    \
  Result<Tensor<mean_type_t<T>>> NAME(const Tensor<T>& t, const Shape& axes,                     \
                                      double correction = 1, bool keepdim = false) {             \
    return detail::reduce::run<detail::reduce::ReduceKind::NAME, mean_type_t<T>>(                \
        #NAME, t, &axes, keepdim, correction);                                                   \
  }                                                                                              \
  template <BuiltinElement T>                                                                    \
  Result<void> NAME##_into(const Tensor<T>& t, std::span<mean_type_t<T>> out,                    \
                           double correction = 1) {                                              \
    return detail::reduce::run_into<detail::reduce::ReduceKind::NAME>(#NAME, t, nullptr, out,    \
                                                                      correction);               \
  }                                                                                              \
  template <BuiltinElement T>                                                                    \
  Result<void> NAME##_into(const Tensor<T>& t, const Shape& axes, std::span<mean_type_t<T>> out, \
                           double correction = 1) {                                              \
    return detail::reduce::run_into<detail::reduce::ReduceKind::NAME>(#NAME, t, &axes, out,      \
                                                                      correction);               \
  }

///@{
/// The sum of squared deviations from the mean divided by max(count - correction, 0)
/// (PyTorch's default correction 1: the unbiased estimate), std its square root; computed in
/// double, returned as mean_type_t<T>. Fewer elements than the correction: NaN or inf.
/// All elements: var(t) or var(t, correction) (any arithmetic type: var(t, {0}) is axis 0).
STRIDED_VAR_REDUCTION(var)
///@}
///@{
/// The sum of squared deviations from the mean divided by max(count - correction, 0)
/// (PyTorch's default correction 1: the unbiased estimate), std its square root; computed in
/// double, returned as mean_type_t<T>. Fewer elements than the correction: NaN or inf.
/// All elements: var(t) or var(t, correction) (any arithmetic type: var(t, {0}) is axis 0).
STRIDED_VAR_REDUCTION(std)
///@}
#undef STRIDED_VAR_REDUCTION

}  // namespace strided

#if STRIDED_HEADER_ONLY
#include "strided/detail/reduce-inl.hpp"
#endif
