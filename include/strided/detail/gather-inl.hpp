// The gather engine's definition (declared in gather.hpp). The source is seen as
// [outer..., axis, inner...]: when the inner axes are one contiguous run, each (outer, index) pair
// is one row copied with memcpy (streaming stores for a large output, and the rows ahead
// prefetched, since indices in any order defeat the hardware prefetchers); otherwise each index's
// slice goes through the copy engine, which plans it as any other strided copy.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/copy/args.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/gather.hpp"
#include "strided/detail/parallel/pool.hpp"

namespace strided::detail {

namespace gather_impl {

// How many rows ahead of the one being copied are prefetched: enough in flight to cover a DRAM
// access per row when rows are a cache line or two.
inline constexpr std::size_t prefetch_rows = 8;

// Smaller rows are copied with plain stores: a streamed row shorter than a line would be mostly
// head and tail.
inline constexpr std::size_t min_streamed_row = 64;

inline std::size_t product(std::span<const std::size_t> extents) noexcept {
  std::size_t n = 1;
  for (std::size_t e : extents) n *= e;
  return n;
}

// Whether the axes after `axis` form one run of stride 1 in the source (axes of extent 1 aside).
inline bool inner_is_contiguous(const GatherArgs& a) noexcept {
  std::ptrdiff_t expected = 1;
  for (std::size_t k = a.shape.size(); k-- > a.axis + 1;) {
    if (a.shape[k] == 1) continue;
    if (a.src_strides[k] != expected) return false;
    expected *= static_cast<std::ptrdiff_t>(a.shape[k]);
  }
  return true;
}

// The storage offset (elements) of outer index `o`, the axes before `axis` read row-major. An `o`
// one past the last wraps to 0, which the row loop relies on for its look-ahead.
inline std::ptrdiff_t outer_offset(const GatherArgs& a, std::size_t o) noexcept {
  std::ptrdiff_t off = 0;
  for (std::size_t d = a.axis; d-- > 0;) {
    off += static_cast<std::ptrdiff_t>(o % a.shape[d]) * a.src_strides[d];
    o /= a.shape[d];
  }
  return off;
}

// Rows u0 .. u1 - 1 of the output (row u = outer index u / k, index j = u % k), `row` bytes each.
inline void copy_rows(const GatherArgs& a, std::size_t row, std::size_t u0, std::size_t u1,
                      bool stream) {
  const std::size_t k = a.indices.size();
  const std::int64_t* idx = a.indices.data();
  const std::ptrdiff_t step = byte_stride(a.src_strides[a.axis], a.elem_size);
  std::size_t o = u0 / k, j = u0 % k;
  const std::byte* base = a.src + byte_stride(outer_offset(a, o), a.elem_size);
  std::byte* d = a.dst + u0 * row;
  for (std::size_t u = u0; u < u1; ++u, d += row) {
    const std::byte* s = base + idx[j] * step;
    if (j + prefetch_rows < k) __builtin_prefetch(base + idx[j + prefetch_rows] * step);
    if (++j == k) {
      j = 0;
      base = a.src + byte_stride(outer_offset(a, ++o), a.elem_size);
    }
    if (!stream) {
      std::memcpy(d, s, row);
      continue;
    }
    const std::byte* next = base + idx[j] * step;
    copy_impl::stream_copy(d, s, row, next - s);
  }
  if (stream) copy_impl::stream_fence();
}

// The slice at indices[j0 .. j1 - 1] through the copy engine: shape and strides without `axis`.
inline void copy_slices(const GatherArgs& a, std::size_t j0, std::size_t j1,
                        std::size_t whole_bytes) {
  std::array<std::size_t, 64> shape{};
  std::array<std::ptrdiff_t, 64> ss{}, ds{};
  const std::size_t rank = a.shape.size();
  std::ptrdiff_t dst_step = 1;  // row-major strides of the output, innermost first
  for (std::size_t d = rank, r = rank - 1; d-- > 0;) {
    const std::size_t extent = d == a.axis ? a.indices.size() : a.shape[d];
    if (d == a.axis) {
      dst_step *= static_cast<std::ptrdiff_t>(extent);
      continue;
    }
    --r;
    shape[r] = extent;
    ss[r] = a.src_strides[d];
    ds[r] = dst_step;
    dst_step *= static_cast<std::ptrdiff_t>(extent);
  }
  std::size_t inner = product(a.shape.subspan(a.axis + 1));
  const std::ptrdiff_t step = byte_stride(a.src_strides[a.axis], a.elem_size);
  for (std::size_t j = j0; j < j1; ++j)
    copy_strided({.shape = std::span(shape.data(), rank - 1),
                  .src = a.src + a.indices[j] * step,
                  .src_strides = std::span(ss.data(), rank - 1),
                  .dst = a.dst + j * inner * a.elem_size,
                  .dst_strides = std::span(ds.data(), rank - 1),
                  .elem_size = a.elem_size,
                  .whole_dst_bytes = whole_bytes});
}

}  // namespace gather_impl

inline void gather_strided(const GatherArgs& a) {
  using namespace gather_impl;
  const std::size_t k = a.indices.size();
  const std::size_t outer = product(a.shape.first(a.axis));
  const std::size_t inner = product(a.shape.subspan(a.axis + 1));
  const std::size_t bytes = outer * k * inner * a.elem_size;
  if (bytes == 0) return;
  const std::size_t chunks = chunk_count(bytes);
  const std::size_t units = outer * k;
  if (inner_is_contiguous(a) && (chunks < 2 || units >= chunks)) {
    const std::size_t row = inner * a.elem_size;
    const bool stream = row >= min_streamed_row && copy_impl::streams_copy_of(bytes);
    return parallel_for(chunks, [&](std::size_t c) {
      copy_rows(a, row, split_point(units, chunks, c), split_point(units, chunks, c + 1), stream);
    });
  }
  // Few large slices (each split by the copy engine itself), or slices that are views.
  if (chunks < 2 || k < chunks) return copy_slices(a, 0, k, bytes);
  parallel_for(chunks, [&](std::size_t c) {
    copy_slices(a, split_point(k, chunks, c), split_point(k, chunks, c + 1), bytes);
  });
}

}  // namespace strided::detail
