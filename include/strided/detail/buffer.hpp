// Element buffers: 64-byte aligned, shared, and advised for transparent huge pages when large.
// Large buffers are recycled through the process-wide cache in buffer_cache.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

#include "strided/detail/buffer_cache.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace strided::detail {

inline constexpr std::size_t buffer_alignment = 64;

/// Buffers at least this large are aligned to a huge page and advised with MADV_HUGEPAGE: a fresh
/// 64 MiB buffer otherwise costs one page fault per 4 KiB on first touch (~9x a memcpy here).
/// They are also the ones the buffer cache keeps, their size rounded up to a multiple of this.
inline constexpr std::size_t huge_page_size = std::size_t{2} << 20;
static_assert(cache_block_granule == huge_page_size);

inline std::size_t buffer_align_for(std::size_t bytes) noexcept {
  return bytes >= huge_page_size ? huge_page_size : buffer_alignment;
}

/// Frees a buffer from try_allocate_buffer: a huge-page-aligned one goes to the buffer cache
/// (which keeps it or frees it), any other to operator delete.
struct AlignedDelete {
  std::size_t align;
  std::size_t bytes;  // as allocated: a multiple of huge_page_size when align is huge_page_size
  void operator()(const void* p) const noexcept {
    void* block = const_cast<void*>(p);
    if (align == huge_page_size)
      buffer_cache().put(block, bytes);
    else
      ::operator delete (block, std::align_val_t{align});
  }
};

/// A block of `bytes` (a multiple of huge_page_size): a cached one if there is one of that size,
/// else a fresh one advised for huge pages. When the system has no memory left, the cache is
/// emptied and the allocation tried once more. nullptr on failure.
inline void* allocate_huge_block(std::size_t bytes) noexcept {
  if (void* cached = buffer_cache().take(bytes)) return cached;
  void* raw = ::operator new (bytes, std::align_val_t{huge_page_size}, std::nothrow);
  if (raw == nullptr && buffer_cache().release())
    raw = ::operator new (bytes, std::align_val_t{huge_page_size}, std::nothrow);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (raw != nullptr)
    (void)::madvise(raw, bytes, MADV_HUGEPAGE);  // advice: failure changes nothing
#endif
  return raw;
}

/// Allocates `count` uninitialised elements of the trivially copyable `T` (a recycled buffer may
/// hold anything). Returns nullptr when the byte count overflows or memory is exhausted: callers
/// turn that into `allocation_failed` or `std::bad_alloc`.
template <class T>
std::shared_ptr<T> try_allocate_buffer(std::size_t count) noexcept {
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) return nullptr;
  std::size_t bytes = count == 0 ? 1 : count * sizeof(T);
  const std::size_t align =
      buffer_align_for(bytes) < alignof(T) ? alignof(T) : buffer_align_for(bytes);
  void* raw = nullptr;
  if (align == huge_page_size) {
    if (bytes > std::numeric_limits<std::size_t>::max() - (huge_page_size - 1)) return nullptr;
    bytes = (bytes + huge_page_size - 1) / huge_page_size * huge_page_size;
    raw = allocate_huge_block(bytes);
  } else {
    raw = ::operator new (bytes, std::align_val_t{align}, std::nothrow);
  }
  if (raw == nullptr) return nullptr;
#if defined(__cpp_exceptions)
  try {
    return std::shared_ptr<T>(static_cast<T*>(raw), AlignedDelete{align, bytes});
  } catch (...) {    // the control block could not be allocated; shared_ptr already called
    return nullptr;  // the deleter on `raw` ([util.smartptr.shared.const]), so no delete here
  }
#else
  return std::shared_ptr<T>(static_cast<T*>(raw), AlignedDelete{align, bytes});
#endif
}

/// As try_allocate_buffer, but throws std::bad_alloc (for functions that return a plain value).
template <class T>
std::shared_ptr<T> allocate_buffer(std::size_t count) {
  std::shared_ptr<T> buffer = try_allocate_buffer<T>(count);
#if defined(__cpp_exceptions)
  if (buffer == nullptr) throw std::bad_alloc();
#else
  if (buffer == nullptr) std::abort();
#endif
  return buffer;
}

}  // namespace strided::detail
