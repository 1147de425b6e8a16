// Walking a tensor by runs: the few long arithmetic progressions of storage that make up a view,
// for code that consumes strided tensors (kernels, serialisers) without a copy or a get() per
// element.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <array>
#include <cstddef>

#include "strided/layout.hpp"
#include "strided/tensor.hpp"

namespace strided {

namespace detail {

/// A view's loop nest after dropping size-1 axes and merging every pair of neighbouring axes
/// that walk one arithmetic progression (outer stride == inner stride * inner extent).
/// axes [0, rank) are ordered innermost first; rank 0 means a single element.
struct RunNest {
  std::size_t rank = 0;
  std::array<std::size_t, max_rank> extent{};
  std::array<std::ptrdiff_t, max_rank> stride{};
};

/// The merged nest of a non-empty layout.
inline RunNest merge_runs(const Layout& layout) noexcept {
  RunNest nest;
  const Shape& shape = layout.shape();
  const Strides& strides = layout.strides();
  for (std::size_t k = shape.size(); k-- > 0;) {
    if (shape[k] == 1) continue;
    if (nest.rank > 0) {
      const std::size_t in = nest.rank - 1;
      if (strides[k] == nest.stride[in] * static_cast<std::ptrdiff_t>(nest.extent[in])) {
        nest.extent[in] *= shape[k];
        continue;
      }
    }
    nest.extent[nest.rank] = shape[k];
    nest.stride[nest.rank] = strides[k];
    ++nest.rank;
  }
  return nest;
}

}  // namespace detail

/// Calls `run(first, length, stride)` for every maximal run of `t`, where a run is `length`
/// elements at `first`, `first + stride`, ..., `first + (length - 1) * stride` (stride in
/// elements: 1 for contiguous memory, 0 for a broadcast axis, negative for a flipped one).
///
/// Order guarantee: runs come in row-major order, so concatenating them gives the elements of
/// `t` exactly in row-major order (the order of `values()`). Runs are maximal: two neighbouring
/// axes are one run whenever they walk one progression, so a contiguous tensor (of any rank) is
/// one run of stride 1, a rank-0 tensor one run of length 1, and an empty tensor no run. A
/// transposed matrix of shape [r, c] is r runs of length c and stride r.
template <Element T, class Run>
void for_each_run(const Tensor<T>& t, Run&& run) {
  if (t.empty()) return;
  const detail::RunNest nest = detail::merge_runs(t.layout());
  const T* base = t.storage().get() + t.offset();
  if (nest.rank == 0) {
    run(base, std::size_t{1}, std::ptrdiff_t{1});
    return;
  }
  std::array<std::size_t, max_rank> index{};
  std::ptrdiff_t at = 0;
  while (true) {
    run(base + at, nest.extent[0], nest.stride[0]);
    std::size_t k = 1;
    for (; k < nest.rank; ++k) {  // odometer over the outer axes, innermost first
      if (++index[k] < nest.extent[k]) {
        at += nest.stride[k];
        break;
      }
      at -= static_cast<std::ptrdiff_t>(nest.extent[k] - 1) * nest.stride[k];
      index[k] = 0;
    }
    if (k == nest.rank) return;
  }
}

}  // namespace strided
