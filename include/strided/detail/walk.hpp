// Visiting the elements of a layout in logical (row-major) order, for the engines that read
// elements one at a time (comparison, printing previews, reference checks).
#pragma once

#include <cstddef>

#include "strided/layout.hpp"

namespace strided::detail {

/// Calls `visit(storage_index)` for every element of `layout`, in row-major order, and stops
/// early when `visit` returns false. Returns false if it stopped early.
template <class Visit>
bool for_each_storage_index(const Layout& layout, Visit&& visit) {
  if (layout.empty()) return true;
  const std::size_t rank = layout.rank();
  const Shape& shape = layout.shape();
  const Strides& strides = layout.strides();
  Shape index(rank, 0);
  auto at = static_cast<std::ptrdiff_t>(layout.offset());
  while (true) {
    if (!visit(static_cast<std::size_t>(at))) return false;
    std::size_t k = rank;
    while (true) {  // odometer: bump the innermost axis, carry outwards
      if (k == 0) return true;
      --k;
      if (++index[k] < shape[k]) {
        at += strides[k];
        break;
      }
      at -= static_cast<std::ptrdiff_t>(shape[k] - 1) * strides[k];
      index[k] = 0;
    }
  }
}

/// Calls `visit(i, j)` with the storage indices of the same logical element in two layouts of
/// equal shape, in row-major order; stops early when `visit` returns false.
template <class Visit>
bool for_each_storage_index_pair(const Layout& a, const Layout& b, Visit&& visit) {
  if (a.empty()) return true;
  const std::size_t rank = a.rank();
  const Shape& shape = a.shape();
  Shape index(rank, 0);
  auto i = static_cast<std::ptrdiff_t>(a.offset());
  auto j = static_cast<std::ptrdiff_t>(b.offset());
  while (true) {
    if (!visit(static_cast<std::size_t>(i), static_cast<std::size_t>(j))) return false;
    std::size_t k = rank;
    while (true) {
      if (k == 0) return true;
      --k;
      if (++index[k] < shape[k]) {
        i += a.strides()[k];
        j += b.strides()[k];
        break;
      }
      const auto back = static_cast<std::ptrdiff_t>(shape[k] - 1);
      i -= back * a.strides()[k];
      j -= back * b.strides()[k];
      index[k] = 0;
    }
  }
}

}  // namespace strided::detail
