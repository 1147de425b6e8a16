// Layout's split, chunk and unbind (declared in layout_class.hpp): not constexpr, since they
// return a std::vector, so in the compiled mode they are defined once in libstrided
// (src/tensor.cpp) instead of in every translation unit that splits a tensor. Included by
// layout_views.hpp in the header-only mode.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/layout_class.hpp"
#include "strided/layout_views.hpp"
#include "strided/result.hpp"
#include "strided/shape_error.hpp"

namespace strided {

STRIDED_FUNC Result<std::vector<Layout>> Layout::split(std::size_t dim, std::size_t size) const {
  return detail::guard_allocations("split", [&]() -> Result<std::vector<Layout>> {
    if (dim >= rank()) return ShapeError::axis_out_of_range("split", dim, shape_);
    const std::size_t total = shape_[dim];
    std::vector<Layout> out;
    if (total == 0) {
      out.push_back(*this);
      return out;
    }
    if (size == 0) return ShapeError::invalid_argument("split", "the piece size must not be zero");
    out.reserve(total / size + 1);
    for (std::size_t start = 0; start < total; start += std::min(size, total - start)) {
      out.push_back(*this);
      auto narrowed = out.back().narrow_in_place(dim, start, std::min(size, total - start));
      if (!narrowed) return std::move(narrowed).error();
    }
    return out;
  });
}

STRIDED_FUNC Result<std::vector<Layout>> Layout::chunk(std::size_t dim, std::size_t n) const {
  return detail::guard_allocations("chunk", [&]() -> Result<std::vector<Layout>> {
    if (dim >= rank()) return ShapeError::axis_out_of_range("chunk", dim, shape_);
    if (n == 0)
      return ShapeError::invalid_argument("chunk", "the number of chunks must not be zero");
    const std::size_t total = shape_[dim];
    if (total == 0) return std::vector<Layout>(n, *this);
    return split(dim, total / n + (total % n != 0 ? 1 : 0));
  });
}

STRIDED_FUNC Result<std::vector<Layout>> Layout::unbind(std::size_t dim) const {
  return detail::guard_allocations("unbind", [&]() -> Result<std::vector<Layout>> {
    if (dim >= rank()) return ShapeError::axis_out_of_range("unbind", dim, shape_);
    std::vector<Layout> out;
    out.reserve(shape_[dim]);
    for (std::size_t i = 0; i < shape_[dim]; ++i) {
      out.push_back(*this);
      auto selected = out.back().select_in_place(dim, i);
      if (!selected) return std::move(selected).error();
    }
    return out;
  });
}

}  // namespace strided
