// What the engines see of the threads layer: how many chunks a piece of work is worth, and a
// parallel_for that runs them. The pool behind it is pool-inl.hpp.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>

#include "strided/chunk_runner.hpp"

namespace strided::detail {

/// Work below this many bytes runs on the calling thread: waking a worker costs about as much as
/// copying that much (docs/semantics.md, "Threads and fork").
inline constexpr std::size_t parallel_threshold_bytes = std::size_t{256} << 10;
/// No chunk smaller than this; and at most this many chunks per thread (the spare ones let a
/// thread that got a core first take more of the work on a loaded machine).
inline constexpr std::size_t min_chunk_bytes = std::size_t{64} << 10;
inline constexpr std::size_t chunks_per_thread = 4;
/// Chunks end on multiples of this in the destination, so no two threads write the same line.
inline constexpr std::size_t cache_line_bytes = 64;

/// The start of part `c` of `total` items cut into `parts` near-equal parts (c <= parts), without
/// the overflow of total * c.
constexpr std::size_t split_point(std::size_t total, std::size_t parts, std::size_t c) noexcept {
  return total / parts * c + total % parts * c / parts;
}

/// How many chunks `bytes` of copy-class work should be split into: 1 (run inline) below the
/// threshold, with one thread, or inside a chunk; else up to chunks_per_thread per thread and
/// none below min_chunk_bytes.
STRIDED_FUNC std::size_t chunk_count(std::size_t bytes) noexcept;

/// Runs run(0) ... run(chunks - 1), each exactly once, possibly at the same time on several
/// threads; returns when all have returned. Inline when chunks < 2, inside a chunk, with one
/// thread, or while another thread has the pool. run must not throw.
STRIDED_FUNC void run_chunks(std::size_t chunks, ChunkRunner run);

/// How many workers the pool has started (0 until the first parallel job), for tests.
STRIDED_FUNC std::size_t pool_worker_count() noexcept;

/// run_chunks over any callable; a single chunk never leaves the calling thread.
template <class F>
void parallel_for(std::size_t chunks, F&& run_chunk) {
  if (chunks < 2) {
    if (chunks == 1) run_chunk(std::size_t{0});
    return;
  }
  run_chunks(chunks, ChunkRunner(run_chunk));
}

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/parallel/pool-inl.hpp"
#endif
