// The layout of a bit view (Tensor::bitcast, AnyTensor::bitcast): the same bytes seen as elements
// of another size, by PyTorch's rules for Tensor.view(dtype). Equal sizes keep the layout. A
// different size needs a last axis of stride 1, which scales by the size ratio; every other
// stride and the offset scale with it, so growing needs them divisible by the ratio.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided::detail {

/// A bit view's layout and the buffer's length in new elements.
struct BitcastView {
  Layout layout;
  std::size_t storage_len = 0;
};

/// Elements of `to` bytes from a tensor of `from`-byte elements whose buffer (`storage_len`
/// elements) starts at `address`; `to_align` is the new element type's alignment.
inline Result<BitcastView> bitcast_layout(const Layout& layout, std::size_t storage_len,
                                          std::size_t from, std::size_t to, std::uintptr_t address,
                                          std::size_t to_align) {
  constexpr const char* op = "bitcast";
  if (address % to_align != 0)
    return ShapeError::invalid_argument(
        op, "the buffer's address is not aligned for the new element type");
  if (from == to) return BitcastView{layout, storage_len};
  if (layout.rank() == 0)
    return ShapeError::invalid_argument(
        op, "a rank-0 tensor has no last axis to scale, so its element size cannot change");
  if (from % to != 0 && to % from != 0)
    return ShapeError::invalid_argument(op, "the element sizes must be multiples of one another");
  const std::size_t last = layout.rank() - 1;
  Shape shape = layout.shape();
  Strides strides = layout.strides();
  if (strides[last] != 1)
    return ShapeError::invalid_axis_argument(
        op, last, shape, "the last axis must have stride 1 for the element size to change");
  std::size_t offset = layout.offset();
  if (from > to) {  // each element becomes `ratio` elements
    const std::size_t ratio = from / to;
    const auto r = static_cast<std::ptrdiff_t>(ratio);
    bool overflow = __builtin_mul_overflow(shape[last], ratio, &shape[last]) ||
                    __builtin_mul_overflow(offset, ratio, &offset) ||
                    __builtin_mul_overflow(storage_len, ratio, &storage_len);
    for (std::size_t k = 0; k < last; ++k)
      overflow = overflow || __builtin_mul_overflow(strides[k], r, &strides[k]);
    if (overflow) return ShapeError::size_overflow(op, layout.shape());
  } else {  // every `ratio` elements become one
    const std::size_t ratio = to / from;
    const auto r = static_cast<std::ptrdiff_t>(ratio);
    if (shape[last] % ratio != 0)
      return ShapeError::invalid_axis_argument(
          op, last, shape, "the last axis's size must be a multiple of the size ratio");
    for (std::size_t k = 0; k < last; ++k) {
      if (strides[k] % r != 0)
        return ShapeError::invalid_axis_argument(op, k, shape,
                                                 "its stride must be a multiple of the size ratio");
      strides[k] /= r;
    }
    if (offset % ratio != 0)
      return ShapeError::invalid_argument(
          op,
          "the offset must be a multiple of the size ratio, so that the view starts on a "
          "whole new element");
    shape[last] /= ratio;
    offset /= ratio;
    storage_len /= ratio;
  }
  auto out = Layout::from_parts(std::move(shape), std::move(strides), offset, op);
  if (!out) return std::move(out).error();
  if (auto fits = out->check_storage(storage_len, op); !fits) return fits.error();
  return BitcastView{std::move(*out), storage_len};
}

}  // namespace strided::detail
