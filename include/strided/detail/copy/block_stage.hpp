// Two L2-resident buffers through which a transpose of 1- or 2-byte elements moves its
// macro-tiles.
//
// The lanes kernels (64 x 64 u8, 32 x 32 u16) read 64 or 32 source rows at once and write as many
// destination rows: every register tile touches that many lines of each side, each in a different
// DRAM page and, when rows are a power of two apart, all in one or two L1 sets. Read straight from
// memory that way, a u8 transpose runs several times slower than the same kernels on rows
// already in L2: every tile waits on that many DRAM pages and conflicting L1 sets. A staged
// macro-tile copies its source
// rows into buffer A, one whole row run after another, transposes A into B with the same kernels,
// and writes B's rows out whole: memory sees runs of a macro-tile side, one at a time.
#pragma once

#include <array>
#include <cstddef>

#include "strided/detail/copy/line_buffer.hpp"

namespace strided::detail::copy_impl {

/// Macro-tile side of a staged transpose, in bytes along each side: 512 x 512 bytes per buffer,
/// the two together half of the smallest L2 measured (1 MiB).
inline constexpr std::size_t stage_side_bytes = 512;

/// Fewest source rows a staged transpose may have (its macro-tiles are then that many rows by a
/// side). The parallel copy hands each thread bands of source rows (parallel/copy_chunks.hpp):
/// 8192^2 u8 with 8 threads, bands of 256. Below 128 rows a macro-tile is so short that the
/// staging pass costs what it saves or more; from 128 rows on, staging wins (bench/NOTEBOOK.md
/// has the measurements).
inline constexpr std::size_t stage_min_rows = 128;

/// Buffers A (source rows) and B (destination rows) of a staged macro-tile and their row offsets.
/// Rows are one line longer than a side so that consecutive rows fall in different L1 sets.
/// Heap-allocated; empty when the allocation fails, and the transpose then runs unstaged.
class BlockStage {
 public:
  static constexpr std::size_t pitch = stage_side_bytes + LineBuffer::alignment;
  static constexpr std::size_t max_rows = stage_side_bytes;  // u8: one row per byte of side

  explicit BlockStage(bool wanted) noexcept : storage_(wanted ? 2 * max_rows * pitch : 0) {}

  bool empty() const noexcept { return storage_.empty(); }

  std::byte* a() const noexcept { return storage_.data(); }
  std::byte* b() const noexcept { return storage_.data() + max_rows * pitch; }
  /// Offsets of rows 0, 1, ... of either buffer.
  const std::ptrdiff_t* rows() const noexcept { return row_offsets.data(); }

 private:
  // A constant table, not a member filled per object: every transpose constructs a BlockStage,
  // and filling 512 offsets per call was a large part of a small transpose's fixed cost.
  static constexpr std::array<std::ptrdiff_t, max_rows> row_offsets = [] {
    std::array<std::ptrdiff_t, max_rows> rows{};
    for (std::size_t r = 0; r < max_rows; ++r) rows[r] = static_cast<std::ptrdiff_t>(r * pitch);
    return rows;
  }();

  LineBuffer storage_;
};

}  // namespace strided::detail::copy_impl
