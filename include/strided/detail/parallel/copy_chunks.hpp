// How one strided copy is cut into chunks for several threads, so that the kernels stay unaware.
//
// The axes of extent >= 2 are ordered by destination stride, largest first. The outer few of them
// (just enough to make twice as many units as chunks) enumerate "units"; the last of those is the
// split axis. A chunk is a range of units and runs as ordinary serial copies, one per run of
// consecutive indices along the split axis, each of which the planner sees as a whole copy (for a
// 2-D transpose: a band of destination rows, or of destination columns when the source's rows
// are kept whole, see keep_source_rows_inside; the planner tiles it as usual). Chunk boundaries
// fall where the destination is at a cache-line boundary, when such indices exist, so that no
// two threads write the same line of a contiguous destination.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "strided/detail/copy/args.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/parallel/parallel_for.hpp"

namespace strided::detail {

class CopyChunks {
 public:
  static constexpr std::size_t max_rank = 64;

  /// Precondition: no extent 0, elem_size > 0, at most max_rank extents >= 2, and the byte size
  /// fits in size_t.
  CopyChunks(const CopyArgs& args, std::size_t chunks) noexcept : args_(args) {
    // Every chunk carries the whole copy's size, so it streams when the copy would (args.hpp).
    std::size_t bytes = args.elem_size;
    for (std::size_t n : args.shape) bytes *= n;
    args_.whole_dst_bytes = std::max(args.whole_dst_bytes, bytes);
    for (std::size_t k = 0; k < args.shape.size(); ++k)
      if (args.shape[k] > 1) order_[rank_++] = static_cast<std::uint8_t>(k);
    std::stable_sort(order_.begin(), order_.begin() + rank_, [&](std::uint8_t x, std::uint8_t y) {
      return magnitude(args.dst_strides[x]) > magnitude(args.dst_strides[y]);
    });
    keep_source_rows_inside(chunks);
    while (outer_ < rank_ && units_ < 2 * chunks) units_ *= args.shape[order_[outer_++]];
    chunks_ = std::min(chunks, units_);
    if (outer_ == 0) return;  // a single element
    split_extent_ = args.shape[order_[outer_ - 1]];
  }

  std::size_t count() const noexcept { return chunks_; }

  /// Runs chunk c (< count()) as serial copies: copy(const CopyArgs&).
  template <class Copy>
  void run(std::size_t c, Copy&& copy) const {
    std::array<std::size_t, max_rank> shape{};
    std::array<std::ptrdiff_t, max_rank> ss{}, ds{};
    std::size_t sub_rank = 1;  // slot 0: the split axis
    for (std::size_t t = outer_; t < rank_; ++t, ++sub_rank) {
      shape[sub_rank] = args_.shape[order_[t]];
      ss[sub_rank] = args_.src_strides[order_[t]];
      ds[sub_rank] = args_.dst_strides[order_[t]];
    }
    const std::size_t end = boundary(c + 1);
    for (std::size_t u = boundary(c); u < end;) {
      const std::size_t j = split_extent_ == 0 ? 0 : u % split_extent_;
      const std::size_t run = std::min(split_extent_ - j, end - u);
      const std::byte* src = args_.src;
      std::byte* dst = args_.dst;
      locate(u, src, dst);
      CopyArgs sub = args_;
      sub.src = src;
      sub.dst = dst;
      if (outer_ != 0) {
        shape[0] = run;
        ss[0] = args_.src_strides[order_[outer_ - 1]];
        ds[0] = args_.dst_strides[order_[outer_ - 1]];
      } else {
        shape[0] = 1;
      }
      sub.shape = {shape.data(), sub_rank};
      sub.src_strides = {ss.data(), sub_rank};
      sub.dst_strides = {ds.data(), sub_rank};
      copy(static_cast<const CopyArgs&>(sub));
      u += outer_ != 0 ? run : 1;
    }
  }

 private:
  // The source's most contiguous axis is moved inside every chunk, so that no chunk reads a
  // shorter piece of the source rows than the whole copy would. A short one fixed per chunk made
  // single-element copies (a rank-22 permute of extent-2 axes whose source rows are an outer
  // destination axis). A long one is moved when the copy streams: its transpose's macro-tiles
  // run 4 KiB along the source rows (copy/transpose.hpp), and bands of destination rows cut
  // those runs to 1/8; cut along the source rows instead, each chunk writes a band of
  // destination columns. In cache it stays a split axis (there, bands of rows beat bands of
  // columns), and so it does when the other axes cannot make enough units
  // without it (1000 x 3: split by columns, every chunk would write into every line).
  void keep_source_rows_inside(std::size_t chunks) noexcept {
    constexpr std::size_t long_axis = 64;
    std::size_t best = rank_;
    for (std::size_t t = 0; t < rank_; ++t) {
      const std::size_t s = magnitude(args_.src_strides[order_[t]]);
      if (s != 0 && (best == rank_ || s < magnitude(args_.src_strides[order_[best]]))) best = t;
    }
    if (best == rank_) return;
    if (args_.shape[order_[best]] >= long_axis) {
      if (!copy_impl::streams_copy_of(args_.whole_dst_bytes)) return;
      std::size_t others = 1;
      for (std::size_t t = 0; t < rank_ && others < 2 * chunks; ++t)
        if (t != best) others *= args_.shape[order_[t]];
      if (others < 2 * chunks) return;
    }
    std::rotate(order_.begin() + static_cast<std::ptrdiff_t>(best),
                order_.begin() + static_cast<std::ptrdiff_t>(best) + 1,
                order_.begin() + static_cast<std::ptrdiff_t>(rank_));
  }

  static std::size_t magnitude(std::ptrdiff_t s) noexcept {
    return s < 0 ? std::size_t{0} - static_cast<std::size_t>(s) : static_cast<std::size_t>(s);
  }

  // The first unit of chunk c: the even split, or the nearest unit below it (within the same
  // outer indices, above the previous even split, at most a line's worth of units away) whose
  // destination starts a cache line. Never below the previous chunk's start, so chunks tile.
  std::size_t boundary(std::size_t c) const noexcept {
    if (c >= chunks_) return units_;
    const std::size_t even = split_point(units_, chunks_, c);
    if (c == 0 || outer_ == 0) return even;
    const std::size_t previous = split_point(units_, chunks_, c - 1);
    const std::size_t row_start = even - even % split_extent_;
    for (std::size_t u = even, tries = 0; u > previous && tries < cache_line_bytes; --u, ++tries) {
      if (starts_line(u)) return u;
      if (u == row_start) break;
    }
    return even;
  }

  bool starts_line(std::size_t u) const noexcept {
    const std::byte* src = args_.src;
    std::byte* dst = args_.dst;
    locate(u, src, dst);
    return reinterpret_cast<std::uintptr_t>(dst) % cache_line_bytes == 0;
  }

  // Moves src / dst to the first element of unit u.
  void locate(std::size_t u, const std::byte*& src, std::byte*& dst) const noexcept {
    const std::size_t es = args_.elem_size;
    for (std::size_t t = outer_; t-- > 0;) {
      const std::size_t axis = order_[t];
      const std::size_t n = args_.shape[axis];
      const auto i = static_cast<std::ptrdiff_t>(u % n);
      u /= n;
      src += i * byte_stride(args_.src_strides[axis], es);
      dst += i * byte_stride(args_.dst_strides[axis], es);
    }
  }

  CopyArgs args_;
  std::array<std::uint8_t, max_rank> order_{};
  std::size_t rank_ = 0;
  std::size_t outer_ = 0;
  std::size_t units_ = 1;
  std::size_t chunks_ = 1;
  std::size_t split_extent_ = 0;
};

}  // namespace strided::detail
