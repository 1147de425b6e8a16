// A bounded, process-wide cache of freed large element buffers (the idea of PyTorch's caching
// allocator, for host memory). A fresh multi-megabyte buffer comes from mmap: the kernel zeroes
// every page on first touch and unmaps it again at free, which costs about as much as the copy
// that fills it. A loop that drops one batch
// and builds the next of the same size gets the warm pages back from here instead.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

#if defined(__linux__)
#include <unistd.h>
#endif

#include "strided/detail/parallel/fork.hpp"
#include "strided/detail/sanitizers.hpp"

// The cache hides use-after-free from AddressSanitizer (a freed block stays addressable) and
// uninitialised reads from MemorySanitizer (a reused block keeps its old shadow), so it is compiled
// out under both, and when the user defines STRIDED_NO_BUFFER_CACHE.
#if defined(STRIDED_NO_BUFFER_CACHE) || defined(STRIDED_DETAIL_ASAN) || defined(STRIDED_DETAIL_MSAN)
#define STRIDED_DETAIL_BUFFER_CACHE 0
#else
#define STRIDED_DETAIL_BUFFER_CACHE 1
#endif

namespace strided::detail {

inline constexpr bool buffer_cache_compiled_in = STRIDED_DETAIL_BUFFER_CACHE != 0;

/// Every block the cache holds was allocated with `::operator new(bytes, align_val_t{this})`, and
/// `bytes` is a multiple of it: requests are rounded up to it so that equal-sized batches (give or
/// take the last huge page) share a size class.
inline constexpr std::size_t cache_block_granule = std::size_t{2} << 20;

/// The default limit: 512 MiB, so that one 308 MB batch of 8 x [64, 3, 224, 224] f32 (or a dozen
/// 38.5 MB batches of 64 images) stays warm, but never more than 1/8 of physical memory.
inline std::size_t default_buffer_cache_limit() noexcept {
  std::size_t limit = std::size_t{512} << 20;
#if defined(__linux__) && defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    const auto eighth = static_cast<std::size_t>(pages) / 8 * static_cast<std::size_t>(page);
    if (eighth < limit) limit = eighth;
  }
#endif
  return limit;
}

/// Parses STRIDED_BUFFER_CACHE_BYTES: decimal digits with an optional K, M or G suffix (powers of
/// 1024). Returns false for anything else (the default is kept: an environment variable cannot
/// report an error, and a typo should not silently hold gigabytes).
inline bool parse_cache_bytes(const char* text, std::size_t& out) noexcept {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  std::size_t value = 0;
  const std::size_t max = static_cast<std::size_t>(-1);
  for (; *text >= '0' && *text <= '9'; ++text) {
    const auto digit = static_cast<std::size_t>(*text - '0');
    if (value > (max - digit) / 10) return false;
    value = value * 10 + digit;
  }
  unsigned shift = 0;
  if (*text == 'K' || *text == 'k') shift = 10;
  if (*text == 'M' || *text == 'm') shift = 20;
  if (*text == 'G' || *text == 'g') shift = 30;
  if (shift != 0) ++text;
  if (*text != '\0' || value > (max >> shift)) return false;
  out = value << shift;
  return true;
}

/// The limit the process starts with: 0 when the cache is compiled out, else the environment
/// variable when it parses, else the default.
inline std::size_t initial_buffer_cache_limit() noexcept {
  if constexpr (!buffer_cache_compiled_in) return 0;
  std::size_t bytes = 0;
  if (parse_cache_bytes(std::getenv("STRIDED_BUFFER_CACHE_BYTES"), bytes)) return bytes;
  return default_buffer_cache_limit();
}

inline void free_cache_block(void* block) noexcept {
  ::operator delete (block, std::align_val_t{cache_block_granule});
}

/// Counters for tests and tuning; a snapshot under the cache's lock.
struct BufferCacheCounters {
  std::size_t limit_bytes = 0;    ///< the current limit (0: disabled)
  std::size_t cached_bytes = 0;   ///< bytes held now, not in use by any tensor
  std::size_t cached_blocks = 0;  ///< blocks held now
  std::uint64_t hits = 0;         ///< large requests served from the cache
  std::uint64_t misses = 0;       ///< large requests that went to the system allocator
};

/// At most `max_blocks` blocks and `limit` bytes, least recently freed evicted first. A request
/// takes the most recently freed block of exactly its size class (warmest in cache and TLB). A
/// block is removed from the table before it is returned, under the lock, so no two live buffers
/// can ever share one. Blocks are freed outside the lock (munmap of 300 MB takes milliseconds).
class BufferCache {
 public:
  static constexpr std::size_t max_blocks = 64;

  explicit BufferCache(std::size_t limit) noexcept : limit_(limit) {}
  BufferCache(const BufferCache&) = delete;
  BufferCache& operator=(const BufferCache&) = delete;

  /// A cached block of exactly `bytes` (a multiple of the granule), or nullptr.
  void* take(std::size_t bytes) noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (limit_ == 0) return nullptr;
    Entry* best = nullptr;
    for (Entry& e : entries_)
      if (e.block != nullptr && e.bytes == bytes && (best == nullptr || e.stamp > best->stamp))
        best = &e;
    if (best == nullptr) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    void* block = best->block;
    remove(*best);
    return block;
  }

  /// Takes ownership of `block` (`bytes` long, from operator new with the granule's alignment):
  /// keeps it, evicting older blocks to make room, or frees it when it cannot fit.
  void put(void* block, std::size_t bytes) noexcept {
    Victims victims{};
    std::size_t n = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      if (bytes > limit_) {
        victims[n++] = block;
      } else {
        while (cached_bytes_ + bytes > limit_ || cached_blocks_ == max_blocks)
          victims[n++] = evict_oldest();
        Entry& slot = *free_slot();
        slot = Entry{block, bytes, ++clock_};
        cached_bytes_ += bytes;
        ++cached_blocks_;
      }
    }
    for (std::size_t i = 0; i < n; ++i) free_cache_block(victims[i]);
  }

  /// Sets the limit (0 disables the cache) and frees what no longer fits.
  void set_limit(std::size_t limit) noexcept {
    Victims victims{};
    std::size_t n = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      limit_ = limit;
      while (cached_bytes_ > limit_) victims[n++] = evict_oldest();
    }
    for (std::size_t i = 0; i < n; ++i) free_cache_block(victims[i]);
  }

  /// Frees every cached block; returns whether there was any.
  bool release() noexcept {
    Victims victims{};
    std::size_t n = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      while (cached_blocks_ != 0) victims[n++] = evict_oldest();
    }
    for (std::size_t i = 0; i < n; ++i) free_cache_block(victims[i]);
    return n != 0;
  }

  // Around fork (see parallel/fork.hpp): the table is consistent at the fork and the child's
  // lock is free; the child keeps the blocks, which fork copied with the rest of the memory.
  void lock_for_fork() noexcept { mutex_.lock(); }
  void unlock_after_fork() noexcept { mutex_.unlock(); }

  BufferCacheCounters counters() const noexcept {
    const std::lock_guard<std::mutex> lock(mutex_);
    return {limit_, cached_bytes_, cached_blocks_, hits_, misses_};
  }

 private:
  struct Entry {
    void* block = nullptr;  // nullptr: a free slot
    std::size_t bytes = 0;
    std::uint64_t stamp = 0;  // when it was put; larger is more recent
  };
  // Up to every cached block plus the one being put.
  using Victims = std::array<void*, max_blocks + 1>;

  void remove(Entry& e) noexcept {
    cached_bytes_ -= e.bytes;
    --cached_blocks_;
    e = Entry{};
  }

  // Precondition: cached_blocks_ != 0.
  void* evict_oldest() noexcept {
    Entry* oldest = nullptr;
    for (Entry& e : entries_)
      if (e.block != nullptr && (oldest == nullptr || e.stamp < oldest->stamp)) oldest = &e;
    void* block = oldest->block;
    remove(*oldest);
    return block;
  }

  // Precondition: cached_blocks_ < max_blocks.
  Entry* free_slot() noexcept {
    for (Entry& e : entries_)
      if (e.block == nullptr) return &e;
    return nullptr;
  }

  mutable std::mutex mutex_;
  std::array<Entry, max_blocks> entries_{};
  std::size_t limit_;
  std::size_t cached_bytes_ = 0;
  std::size_t cached_blocks_ = 0;
  std::uint64_t clock_ = 0;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

/// The process-wide cache. Built on first use (reading the environment once) in static storage and
/// never destroyed: tensors released during static destruction, after any destructor of ours would
/// have run, still find it alive. Blocks cached at exit are returned by the OS with the process.
inline BufferCache& buffer_cache() noexcept {
  alignas(BufferCache) static unsigned char storage[sizeof(BufferCache)];
  static BufferCache* const cache = [] {
    auto* made = ::new (static_cast<void*>(storage)) BufferCache(initial_buffer_cache_limit());
    register_fork_handlers([] { buffer_cache().lock_for_fork(); },
                           [] { buffer_cache().unlock_after_fork(); },
                           [] { buffer_cache().unlock_after_fork(); });
    return made;
  }();
  return *cache;
}

}  // namespace strided::detail
