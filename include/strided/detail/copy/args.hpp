// Arguments of the strided copy engine (see copy.hpp for the entry point).
#pragma once

#include <cstddef>
#include <span>

namespace strided::detail {

/// One copy of `shape` elements of `elem_size` bytes. `src` / `dst` point at element [0, ..., 0];
/// strides count elements (not bytes) and may be negative or zero (zero only in the source).
struct CopyArgs {
  std::span<const std::size_t> shape;
  const std::byte* src = nullptr;
  std::span<const std::ptrdiff_t> src_strides;
  std::byte* dst = nullptr;
  std::span<const std::ptrdiff_t> dst_strides;
  std::size_t elem_size = 0;
  /// Destination bytes of the whole copy when this one is a piece of it (a parallel chunk), else
  /// 0. Streaming stores are chosen by the whole copy's size: a chunk of a copy far larger than
  /// the caches must stream as the copy would on one thread, or it pays a read of every
  /// destination line.
  std::size_t whole_dst_bytes = 0;
};

/// The one place element strides become byte strides. CopyArgs counts elements (as Layout does);
/// from the plan on (PlanAxis, every kernel) strides count bytes, so that rows of any length fold
/// into one element. Callers that move within CopyArgs (the parallel chunks, the out-of-contract
/// fallback) convert here too.
constexpr std::ptrdiff_t byte_stride(std::ptrdiff_t elements, std::size_t elem_size) noexcept {
  return elements * static_cast<std::ptrdiff_t>(elem_size);
}

}  // namespace strided::detail
