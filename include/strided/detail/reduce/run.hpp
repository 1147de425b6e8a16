// The reductions' front end: the axes a user names checked, the result's shape, the caller's
// buffer checked, then the engine (strided/detail/reduce/engine.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/reduce/engine.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/tensor.hpp"
#include "strided/tensor_span.hpp"

namespace strided::detail::reduce {

/// The *_into form: every check before the first write; allocates nothing.
template <ReduceKind K, class T, class R>
Result<void> run_into(const char* op_name, const Tensor<T>& t, const Shape* axes, std::span<R> out,
                      double correction = 1) {
  return guard_allocations(op_name, [&]() -> Result<void> {
    auto mask = checked_mask(op_name, t.shape(), axes, needs_nonempty(K));
    if (!mask) return std::move(mask).error();
    std::size_t outputs = 1;
    for (std::size_t k = 0; k != t.rank(); ++k)
      if ((*mask >> k & 1) == 0) outputs *= t.shape()[k];
    if (out.size() != outputs)
      return ShapeError::element_count_mismatch(op_name, out.size(),
                                                reduced_shape(t.shape(), *mask, false));
    if (extents_overlap(byte_extent(t.storage().get(), t.layout(), sizeof(T)), span_extent(out)))
      return ShapeError::memory_overlap(op_name);
    reduce_strided<K, T>({t.storage().get(), &t.layout(), *mask, correction, out.data(), false});
    return {};
  });
}

/// The form that returns a new tensor of the result's shape.
template <ReduceKind K, class R, class T>
Result<Tensor<R>> run(const char* op_name, const Tensor<T>& t, const Shape* axes, bool keepdim,
                      double correction = 1) {
  return guard_allocations(op_name, [&]() -> Result<Tensor<R>> {
    auto mask = checked_mask(op_name, t.shape(), axes, needs_nonempty(K));
    if (!mask) return std::move(mask).error();
    auto layout = Layout::contiguous(reduced_shape(t.shape(), *mask, keepdim));
    if (!layout) return std::move(layout).error();
    const std::size_t n = layout->numel();
    auto buffer = try_allocate_buffer<R>(n);
    if (buffer == nullptr) return ShapeError::allocation_failed(op_name, n);
    reduce_strided<K, T>({t.storage().get(), &t.layout(), *mask, correction, buffer.get(), true});
    return Tensor<R>::from_shared(std::move(buffer), n, std::move(*layout));
  });
}

}  // namespace strided::detail::reduce
