// Walking a tensor by runs: the few long arithmetic progressions of storage that make up a view,
// for code that consumes strided tensors (kernels, serialisers) without a copy or a get() per
// element.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>

#include "strided/detail/odometer.hpp"
#include "strided/layout.hpp"
#include "strided/tensor.hpp"

namespace strided {

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
  static_assert(max_rank <= detail::max_loops);
  const Strides& strides = t.layout().strides();
  detail::LoopNest<1> nest;
  detail::merge_loops(nest, t.shape().span(),
                      [&strides](std::size_t, std::size_t k) { return strides[k]; });
  const T* base = t.storage().get() + t.offset();
  if (nest.rank == 0) {
    run(base, std::size_t{1}, std::ptrdiff_t{1});
    return;
  }
  detail::Odometer<1> at(nest, 1);  // the outer loops; loop 0 is the run
  do run(base + at.offset(0), nest.extent[0], nest.stride[0][0]);
  while (at.next());
}

}  // namespace strided
