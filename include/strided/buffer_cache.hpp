// Control of the buffer cache: freed element buffers of 2 MiB or more are kept (up to a byte
// limit) and handed to the next allocation of the same size, so that a loop which drops one batch
// and builds the next reuses warm pages instead of asking the kernel for freshly zeroed ones.
// docs/performance.md ("The buffer cache") has the figures and the reasons for the default.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>

#include "strided/detail/buffer_cache.hpp"

namespace strided {

/// Whether this build has the cache at all: false under AddressSanitizer, HWASan and
/// MemorySanitizer (a recycled block would hide use-after-free and uninitialised reads) and when
/// STRIDED_NO_BUFFER_CACHE is defined. Without it every limit reads as 0.
inline constexpr bool buffer_cache_available = detail::buffer_cache_compiled_in;

/// A snapshot of the cache.
struct BufferCacheStats {
  std::size_t limit_bytes = 0;    ///< the current limit; 0 when disabled
  std::size_t cached_bytes = 0;   ///< bytes held now, in use by no tensor
  std::size_t cached_blocks = 0;  ///< blocks held now
  std::uint64_t hits = 0;         ///< allocations of >= 2 MiB served from the cache
  std::uint64_t misses = 0;       ///< allocations of >= 2 MiB that went to the system
};

/// Sets the most bytes the cache may hold while no tensor uses them (0 disables it and frees
/// everything held). Blocks beyond the new limit are freed, least recently released first. The
/// process starts with STRIDED_BUFFER_CACHE_BYTES (digits, optional K/M/G suffix, read once at the
/// first large allocation) or else min(512 MiB, physical memory / 8). Has no effect when
/// buffer_cache_available is false.
inline void set_buffer_cache_limit(std::size_t bytes) noexcept {
  detail::buffer_cache().set_limit(buffer_cache_available ? bytes : 0);
}

/// The current limit in bytes (0: disabled).
inline std::size_t buffer_cache_limit() noexcept {
  return detail::buffer_cache().counters().limit_bytes;
}

/// Returns every cached block to the system (the limit is unchanged), e.g. before a phase of the
/// program that needs the memory for something else.
inline void release_buffer_cache() noexcept { (void)detail::buffer_cache().release(); }

/// The cache's current state and counters.
inline BufferCacheStats buffer_cache_stats() noexcept {
  const detail::BufferCacheCounters c = detail::buffer_cache().counters();
  return {c.limit_bytes, c.cached_bytes, c.cached_blocks, c.hits, c.misses};
}

}  // namespace strided
