// Control of the threads that materialise large tensors: contiguous(), copy_to, host_slice, casts
// and stack / concat / stack_samples / concat_batches split work of 256 KiB or more into chunks
// and run them on a pool of worker threads owned by the library (or on the application's own
// executor). Results are the same bytes for every thread count. docs/semantics.md ("Threads and
// fork") has the rules.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <functional>

#include "strided/chunk_runner.hpp"

namespace strided {

/// An application's executor: `executor(count, run)` must call `run(i)` exactly once for every i in
/// [0, count), on any threads and in any order, and return only when all of them have returned.
using ParallelExecutor = std::function<void(std::size_t count, ChunkRunner run)>;

/// Sets how many threads (the caller included) large copies may use; 1 turns the pool off (no
/// thread is ever started), 0 restores the default. The default is STRIDED_NUM_THREADS when it
/// is a positive decimal integer (up to 65536), else std::thread::hardware_concurrency(); the
/// variable is read once, at the first large copy or call of num_threads() / set_num_threads()
/// (a later setenv changes nothing), and a set but invalid value ("abc", "0", "-1", "4 threads",
/// "") is reported once on stderr. Takes effect at the next copy: copies already running finish
/// with the count they started with. Workers already started stay asleep when the count goes down.
STRIDED_FUNC void set_num_threads(std::size_t n) noexcept;

/// The thread count large copies use now (>= 1).
STRIDED_FUNC std::size_t num_threads() noexcept;

/// Runs the chunks of every large copy on `executor` instead of the library's pool (an empty
/// function restores the pool), so that an application with TBB, OpenMP or its own pool has one
/// set of threads. How many chunks a copy is cut into still follows num_threads(). A copy made
/// inside a chunk runs inline.
STRIDED_FUNC void set_parallel_executor(ParallelExecutor executor);

}  // namespace strided

#if STRIDED_HEADER_ONLY
#include "strided/detail/parallel/parallel_for.hpp"  // which brings the definitions
#endif
