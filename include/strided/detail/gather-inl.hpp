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
#include "strided/detail/parallel/parallel_for.hpp"

namespace strided::detail {

namespace gather_impl {

// Rows ahead of the one being copied are prefetched, about this many bytes of them: random rows
// defeat the hardware prefetchers, and each row's DRAM latency must overlap the copies of others.
inline constexpr std::size_t prefetch_bytes = 2048;
inline constexpr std::size_t max_rows_ahead = 32;

// Smaller rows are copied with plain stores: a streamed row shorter than a line would be mostly
// head and tail.
inline constexpr std::size_t min_streamed_row = 64;

// Rows up to this size, when aligned, are streamed line by line (stream_line) with no head or
// tail to check; the rows ahead are prefetched whole (prefetch_row).
inline constexpr std::size_t max_line_row = 512;

/// How a row is written: memcpy; streamed whole 64-byte lines (rows of whole lines, aligned on
/// both sides); streamed with a plain head and tail (copy_impl::stream_copy).
enum class RowStore { plain, stream_lines, stream };
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

// The first lines of the row at `p` (at most 8: stream_copy prefetches longer rows as it goes).
inline void prefetch_row(const std::byte* p, std::size_t row) noexcept {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::size_t lines = std::min<std::size_t>((row + 63) / 64, 8);
  for (std::size_t l = 0; l < lines; ++l)
    __builtin_prefetch(reinterpret_cast<const void*>(at + 64 * l));
}

inline void store_row(RowStore how, std::byte* d, const std::byte* s, std::size_t row,
                      const std::byte* next) noexcept {
  switch (how) {
    case RowStore::plain:
      std::memcpy(d, s, row);
      return;
    case RowStore::stream_lines:
      for (std::size_t l = 0; l < row; l += 64) copy_impl::stream_line(d + l, s + l);
      return;
    case RowStore::stream:
      copy_impl::stream_copy(d, s, row, next - s);
      return;
  }
}

// Rows u0 .. u1 - 1 of the output (row u = outer index u / k, index j = u % k), `row` bytes each.
inline void copy_rows(const GatherArgs& a, std::size_t row, std::size_t u0, std::size_t u1,
                      RowStore how) {
  const std::size_t k = a.indices.size();
  const std::int64_t* idx = a.indices.data();
  const std::ptrdiff_t step = byte_stride(a.src_strides[a.axis], a.elem_size);
  const std::size_t ahead = std::clamp<std::size_t>(prefetch_bytes / row, 1, max_rows_ahead);
  std::size_t o = u0 / k, j = u0 % k;
  const std::byte* base = a.src + byte_stride(outer_offset(a, o), a.elem_size);
  for (std::size_t q = j; q < std::min(k, j + ahead); ++q) prefetch_row(base + idx[q] * step, row);
  std::byte* d = a.dst + u0 * row;
  for (std::size_t u = u0; u < u1; ++u, d += row) {
    const std::byte* s = base + idx[j] * step;
    if (j + ahead < k) prefetch_row(base + idx[j + ahead] * step, row);
    if (++j == k) {
      j = 0;
      base = a.src + byte_stride(outer_offset(a, ++o), a.elem_size);
    }
    store_row(how, d, s, row, base + idx[j] * step);
  }
  if (how != RowStore::plain) copy_impl::stream_fence();
}

// How rows go out: streamed when the whole output is large (as the copy engine decides), by
// whole lines when every source row and the destination's first row start on one.
inline RowStore row_store(const GatherArgs& a, std::size_t row, std::size_t bytes) noexcept {
  if (row < min_streamed_row || !copy_impl::streams_copy_of(bytes)) return RowStore::plain;
  const auto aligned = [](std::uintptr_t x) { return x % 64 == 0; };
  const auto step = static_cast<std::uintptr_t>(byte_stride(a.src_strides[a.axis], a.elem_size));
  // Longer rows go through stream_copy, which prefetches the next row as it copies this one.
  bool lines = row <= max_line_row && row % 64 == 0 &&
               aligned(reinterpret_cast<std::uintptr_t>(a.dst)) && aligned(step);
  for (std::size_t d = 0; lines && d < a.axis; ++d)
    lines = aligned(static_cast<std::uintptr_t>(byte_stride(a.src_strides[d], a.elem_size)));
  lines = lines && aligned(reinterpret_cast<std::uintptr_t>(a.src));
  return lines ? RowStore::stream_lines : RowStore::stream;
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

STRIDED_FUNC void gather_strided(const GatherArgs& args) {
  using namespace gather_impl;
  // An axis of extent 1 is only ever at index 0, and its stride may be anything a layout allows
  // (up to PTRDIFF_MAX elements), which in bytes would overflow: it becomes 0.
  std::array<std::ptrdiff_t, 64> strides{};
  for (std::size_t d = 0; d < args.shape.size(); ++d)
    strides[d] = args.shape[d] == 1 ? 0 : args.src_strides[d];
  GatherArgs a = args;
  a.src_strides = std::span(strides.data(), args.shape.size());
  const std::size_t k = a.indices.size();
  const std::size_t outer = product(a.shape.first(a.axis));
  const std::size_t inner = product(a.shape.subspan(a.axis + 1));
  const std::size_t bytes = outer * k * inner * a.elem_size;
  if (bytes == 0) return;
  const std::size_t chunks = chunk_count(bytes);
  const std::size_t units = outer * k;
  if (inner_is_contiguous(a) && (chunks < 2 || units >= chunks)) {
    const std::size_t row = inner * a.elem_size;
    const RowStore how = row_store(a, row, bytes);
    return parallel_for(chunks, [&](std::size_t c) {
      copy_rows(a, row, split_point(units, chunks, c), split_point(units, chunks, c + 1), how);
    });
  }
  // Few large slices (each split by the copy engine itself), or slices that are views.
  if (chunks < 2 || k < chunks) return copy_slices(a, 0, k, bytes);
  parallel_for(chunks, [&](std::size_t c) {
    copy_slices(a, split_point(k, chunks, c), split_point(k, chunks, c + 1), bytes);
  });
}

}  // namespace strided::detail
