// Element-wise functions over any views: map (one input) and zip_with (any number of inputs of
// any element types, broadcast together by NumPy's rules), each one pass into a new row-major
// tensor. The engine is strided/detail/zip.hpp; the run walker for hand-written kernels is
// strided/runs.hpp.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/row_major.hpp"
#include "strided/detail/zip.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/runs.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

namespace strided {

/// The element type zip_with(f, Tensor<T>...) produces: what `f` returns for elements of T...
template <class F, class... T>
using zip_result_t = std::remove_cvref_t<std::invoke_result_t<F&, const T&...>>;

namespace detail {

template <class R, class F, class... T>
Result<Tensor<R>> zip_apply(const char* op, F& f, const Tensor<T>&... in) {
  static_assert(sizeof...(T) <= zip::max_inputs,
                "zip_with takes at most 8 inputs: nest the calls for more");
  return guard_allocations(op, [&]() -> Result<Tensor<R>> {
    const std::array<const Layout*, sizeof...(T)> layouts{&in.layout()...};
    std::array<Layout, sizeof...(T)> views{};
    auto layout = broadcast_to_common(op, layouts, views);
    if (!layout) return std::move(layout).error();
    const std::size_t n = layout->numel();
    auto out = try_allocate_buffer<R>(n);
    if (out == nullptr) return ShapeError::allocation_failed(op, n);
    if (n != 0) {
      std::size_t k = 0;
      const std::array<zip::Input, sizeof...(T)> inputs{
          zip::Input{reinterpret_cast<const std::byte*>(in.storage().get() + views[k].offset()),
                     views[k].strides().data(), sizeof(T), views[k++].is_contiguous()}...};
      const zip::Job job{layout->shape().span(),
                         inputs.data(),
                         reinterpret_cast<std::byte*>(out.get()),
                         sizeof(R),
                         &zip::zip_row<R, F, T...>,
                         const_cast<void*>(static_cast<const void*>(&f))};
      if (!zip::run<sizeof...(T)>(job)) return ShapeError::allocation_failed(op, n);
    }
    return Tensor<R>::from_shared(std::move(out), n, std::move(*layout));
  });
}

/// The bytes `view` (a layout over t's buffer) reaches.
template <class T>
ByteExtent extent_of(const Tensor<T>& t, const Layout& view) {
  return byte_extent(t.storage().get(), view, sizeof(T));
}

/// The *_into forms: every input broadcast to dst's shape and checked not to overlap it, before
/// the engine writes through dst's strides.
template <class R, class F, class... T>
Result<void> zip_apply_into(const char* op, TensorSpan<R> dst, F& f, const Tensor<T>&... in) {
  static_assert(sizeof...(T) <= zip::max_inputs,
                "zip_with_into takes at most 8 inputs: nest the calls for more");
  return guard_allocations(op, [&]() -> Result<void> {
    std::array<Layout, sizeof...(T)> views{};
    std::size_t i = 0;
    const auto out = byte_extent(dst.data(), dst.layout(), sizeof(R));
    Result<void> checked;
    auto check = [&](const auto& t) {
      if (!checked) return;
      auto v = t.layout().broadcast_to(dst.shape());
      if (!v && v.error().kind() == ShapeErrorKind::allocation_failed)
        checked = v.error().in(op);
      else if (!v)
        checked = ShapeError::broadcast_incompatible(op, t.shape(), dst.shape());
      else if (extents_overlap(extent_of(t, *v), out))
        checked = ShapeError::memory_overlap(op);
      else
        views[i++] = std::move(*v);
    };
    (check(in), ...);
    if (!checked || dst.empty()) return checked;
    std::size_t k = 0;
    const std::array<zip::Input, sizeof...(T)> inputs{
        zip::Input{reinterpret_cast<const std::byte*>(in.storage().get() + views[k].offset()),
                   views[k].strides().data(), sizeof(T), views[k++].is_contiguous()}...};
    const zip::Job job{dst.shape().span(),
                       inputs.data(),
                       reinterpret_cast<std::byte*>(dst.data() + dst.offset()),
                       sizeof(R),
                       &zip::zip_row<R, F, T...>,
                       const_cast<void*>(static_cast<const void*>(&f)),
                       dst.strides().data()};
    if (!zip::run<sizeof...(T)>(job)) return ShapeError::out_of_memory(op);
    return {};
  });
}

}  // namespace detail

/// `f` applied to every element of `t` (any view), in one pass, into a new row-major tensor of
/// the same shape whose element type is what `f` returns. `f` is called once per element, in an
/// unspecified order and, above the parallel threshold (256 KiB of output), from several threads
/// at once: it must not depend on the order and must be safe to call concurrently (as for
/// std::execution::par). Errors: allocation_failed when memory runs out, before `f` is called.
template <Element T, class F>
requires std::invocable<F&, const T&> && Element<zip_result_t<F, T>>
    Result<Tensor<zip_result_t<F, T>>> map(const Tensor<T>& t, F&& f) {
  return detail::zip_apply<zip_result_t<F, T>>("map", f, t);
}

/// `f(a[i], b[i], ...)` for every index i of the inputs broadcast together by NumPy's rules
/// (trailing axes aligned; size-1 and missing axes stretched), in one pass, into a new row-major
/// tensor. Inputs may be any views and have different element types. `f` is called once per
/// output element, in an unspecified order (see map). Errors: broadcast_incompatible naming the
/// common shape of the inputs so far and the first input that does not fit; allocation_failed.
template <class F, Element... T>
requires(sizeof...(T) >= 1) &&
    std::invocable<F&, const T&...>&& Element<zip_result_t<F, T...>> Result<
        Tensor<zip_result_t<F, T...>>> zip_with(F&& f, const Tensor<T>&... inputs) {
  return detail::zip_apply<zip_result_t<F, T...>>("zip_with", f, inputs...);
}

/// map into the caller's destination: `dst[i] = f(t[i])` for every index of dst, `t` broadcast to
/// dst's shape (NumPy `np.negative(t, out=dst)`, PyTorch `torch.neg(t, out=dst)`); what `f`
/// returns is converted to R by static_cast. Called as map is (any order, several threads).
/// Allocates nothing but the engine's per-thread scratch for inputs it restages. Errors, before `f`
/// is called and anything is written: broadcast_incompatible (t's shape, dst's shape);
/// memory_overlap when dst overlaps t's memory (an in-place map included); allocation_failed (out
/// of memory).
template <Element R, Element T, class F>
requires std::invocable<F&, const T&> && std::convertible_to<zip_result_t<F, T>, R> Result<void>
map_into(TensorSpan<R> dst, F&& f, const Tensor<T>& t) {
  return detail::zip_apply_into<R>("map_into", dst, f, t);
}

/// zip_with into the caller's destination: `dst[i] = f(a[i], b[i], ...)` for every index of dst,
/// each input broadcast to dst's shape (NumPy `np.add(a, b, out=dst)`, PyTorch
/// `torch.add(a, b, out=dst)`). Errors as map_into's, naming the first input that does not
/// broadcast or overlaps.
template <Element R, class F, Element... T>
requires(sizeof...(T) >= 1) &&
    std::invocable<F&, const T&...>&& std::convertible_to<zip_result_t<F, T...>, R> Result<
        void> zip_with_into(TensorSpan<R> dst, F&& f, const Tensor<T>&... inputs) {
  return detail::zip_apply_into<R>("zip_with_into", dst, f, inputs...);
}

}  // namespace strided
