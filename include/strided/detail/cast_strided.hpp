// A cast from any strided source view into any strided destination view: Tensor::cast_into's
// engine. Dense into dense goes straight to the cast engine (cast_elements). Otherwise map /
// zip_with's engine (zip.hpp) walks the destination in chunks, restaging a strided source
// through its per-thread scratch with the copy engine's tiled kernels (a transposed image is
// read as tiles, not one element at a time), and each row is converted by cast_row. When that
// scratch cannot be allocated, the same rows are walked on the calling thread, staged block by
// block through the stack: a cast_into never fails for want of memory. Either way every element
// is converted by the exact kernels of Tensor::cast.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <span>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/cast.hpp"
#include "strided/detail/odometer.hpp"
#include "strided/detail/zip.hpp"

namespace strided::detail {

/// Elements per staged block: small enough that both scratch arrays stay on the stack and in L1.
inline constexpr std::size_t cast_stage_block = 256;

/// n elements from `src` (element stride ss) converted into `dst` (element stride ds).
template <class From, class To>
void cast_row(const From* src, std::ptrdiff_t ss, To* dst, std::ptrdiff_t ds, std::size_t n) {
  if (ss == 1 && ds == 1) return cast_elements(src, dst, n);
  From in[cast_stage_block];
  To out[cast_stage_block];
  for (std::size_t first = 0; first < n; first += cast_stage_block) {
    const std::size_t m = n - first < cast_stage_block ? n - first : cast_stage_block;
    const From* s = src + static_cast<std::ptrdiff_t>(first) * ss;
    To* d = dst + static_cast<std::ptrdiff_t>(first) * ds;
    for (std::size_t i = 0; i < m; ++i) in[i] = s[static_cast<std::ptrdiff_t>(i) * ss];
    cast_elements(in, out, m);
    for (std::size_t i = 0; i < m; ++i) d[static_cast<std::ptrdiff_t>(i) * ds] = out[i];
  }
}

/// The row function of a cast for the zip engine: one row, any strides.
template <class From, class To>
void cast_zip_row(void*, const zip::Row& row) {
  cast_row(reinterpret_cast<const From*>(row.in[0]), row.in_stride[0],
           reinterpret_cast<To*>(row.out), row.out_stride, row.n);
}

/// Converts every element of the source view (`src` at element [0, ...], strides `ss`, stride 0
/// allowed; `src_contiguous`: row-major) into the destination view (`dst`, strides `ds`), both
/// over `shape`, which has at least one element.
template <class From, class To>
void cast_strided(std::span<const std::size_t> shape, const From* src,
                  std::span<const std::ptrdiff_t> ss, bool src_contiguous, To* dst,
                  std::span<const std::ptrdiff_t> ds) {
  LoopNest<2> nest;
  merge_loops(nest, shape, [&](std::size_t m, std::size_t k) { return m == 0 ? ss[k] : ds[k]; });
  if (nest.rank == 0) nest.push_outer(1, {0, 0});  // rank 0, or every axis of size 1
  if (nest.rank == 1 && nest.stride[0][0] == 1 && nest.stride[1][0] == 1)
    return cast_elements(src, dst, nest.extent[0]);
  const zip::Input input{reinterpret_cast<const std::byte*>(src), ss.data(), sizeof(From),
                         src_contiguous};
  const zip::Job job{
      shape,   &input,   reinterpret_cast<std::byte*>(dst), sizeof(To), &cast_zip_row<From, To>,
      nullptr, ds.data()};
  // The engine's scratch (and the vector that holds it) are optional here: out of memory, the
  // engine has written nothing and the rows are walked below instead.
  if (guard_allocations([&] { return zip::run<1>(job); }, [] { return false; })) return;
  Odometer<2> at(nest, 1);
  do
    cast_row(src + at.offset(0), nest.stride[0][0], dst + at.offset(1), nest.stride[1][0],
             nest.extent[0]);
  while (at.next());
}

}  // namespace strided::detail
