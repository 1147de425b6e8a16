// Streamed transposes into destination rows that do not start on a cache line.
//
// Streaming stores bypass the caches only when they write whole aligned lines. A whole-line
// kernel (k.wj * es == 64: each register tile writes 64 bytes of each destination row) that meets
// a row starting m bytes past a line fills the last 64 - m bytes of one line and the first m of
// the next; the line is complete only once the next tile along the row is transposed. So the
// kernel stores into a buffer that keeps, for each destination row of a macro-tile, the line the
// previous tile left, and whole lines are streamed from there (stream_realigned_rows). Storing
// straight to such rows is slow: every store first reads its line, and half of them split one.
#pragma once

#include <array>
#include <cstddef>

#include "strided/detail/copy/line_buffer.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

namespace strided::detail::copy_impl {

/// Destination rows a realigned macro-tile has at most (its side along I): 128 KiB of buffer.
/// Longer sides, as for aligned streams (streamed_row_run), measured no faster.
inline constexpr std::size_t max_realigned_rows = 1024;

/// For each destination row of a macro-tile, 128 bytes: the line the previous register tile along
/// the row left, then the line the kernel writes now. Heap-allocated (the transpose's tables
/// already take ~50 KiB of stack); empty for no rows (nothing is allocated) and when the
/// allocation fails, and the transpose then stores plainly.
class RealignBuffer {
 public:
  static constexpr std::size_t row_bytes = 128;

  explicit RealignBuffer(std::size_t rows) noexcept : storage_(rows * row_bytes) {}

  bool empty() const noexcept { return storage_.empty(); }

  /// Destination row r's 128 bytes (64-byte aligned).
  std::byte* row(std::size_t r) const noexcept { return storage_.data() + r * row_bytes; }

 private:
  LineBuffer storage_;
};

/// The full register tiles [0, iw) x [0, jw) of a macro-tile through buffer `b`, with kernel
/// `fn` (k's plain or buffered form). `begins` / `ends`: the macro-tile holds the first / last
/// full tiles of its destination rows (the caller walks a row's macro-tiles in order, so that
/// `b` carries each row's pending line from one to the next).
inline void transpose_realigned(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                                const std::ptrdiff_t* dst_i, std::size_t iw, std::size_t jw,
                                std::size_t es, simd::TileKernel k, simd::TileFn fn,
                                const RealignBuffer& b, bool begins, bool ends) {
  constexpr std::size_t max_w = 64;  // the tallest whole-line kernel: 64 x 64 u8
  std::array<std::ptrdiff_t, max_w> rows{};
  for (std::size_t c = 0; c < k.wi; ++c)
    rows[c] = static_cast<std::ptrdiff_t>(c * RealignBuffer::row_bytes + 64);
  for (std::size_t j = 0; j < jw; j += k.wj) {
    const bool first = begins && j == 0, last = ends && j + k.wj == jw;
    for (std::size_t i = 0; i <= iw; i += k.wi) {
      if (i < iw) fn(s + i * es, src_j + j, b.row(i), rows.data(), es);
      // The tile before, whose buffer lines the kernel stored a tile ago: a load spanning two
      // stores still in flight waits for both, so a tile is streamed one tile after its kernel
      // ran, not right after.
      if (i > 0)
        stream_realigned_rows(d + j * es, dst_i + i - k.wi, k.wi, b.row(i - k.wi), first, last);
    }
  }
}

}  // namespace strided::detail::copy_impl
