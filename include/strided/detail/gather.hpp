// The gather engine: copies the slices of a strided source at a list of indices along one axis
// into a row-major destination (index_select, strided/gather.hpp). It sees bytes, element strides
// and an element size, never a Tensor; its definition is in gather-inl.hpp.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <span>

namespace strided::detail {

/// One gather: out[o..., j, i...] = src[o..., indices[j], i...] for a source of `shape`.
struct GatherArgs {
  std::span<const std::size_t> shape;           ///< the source's shape
  const std::byte* src = nullptr;               ///< the source's element [0, ..., 0]
  std::span<const std::ptrdiff_t> src_strides;  ///< in elements; any sign, zero included
  std::size_t axis = 0;                         ///< the axis indexed (< shape.size())
  std::span<const std::int64_t> indices;        ///< each in [0, shape[axis]): checked by the caller
  std::byte* dst = nullptr;  ///< row-major, `shape` with extent indices.size() at `axis`
  std::size_t elem_size = 0;
};

/// Runs one gather on the calling thread or, above the parallel threshold, on the pool. The
/// destination gets the same bytes for any thread count.
STRIDED_FUNC void gather_strided(const GatherArgs& args);

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/gather-inl.hpp"
#endif
