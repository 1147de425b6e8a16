// Element buffers: 64-byte aligned, shared, and advised for transparent huge pages when large.
// Large buffers are recycled through the process-wide cache in buffer_cache.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>

#include "strided/detail/config.hpp"

namespace strided::detail {

inline constexpr std::size_t buffer_alignment = 64;

/// Buffers at least this large are aligned to a huge page and advised with MADV_HUGEPAGE: a fresh
/// 64 MiB buffer otherwise costs one page fault per 4 KiB on first touch, several times the copy
/// that fills it.
/// They are also the ones the buffer cache keeps, their size rounded up to a multiple of this.
inline constexpr std::size_t huge_page_size = std::size_t{2} << 20;

inline std::size_t buffer_align_for(std::size_t bytes) noexcept {
  return bytes >= huge_page_size ? huge_page_size : buffer_alignment;
}

/// Frees a buffer from try_allocate_buffer: a huge-page-aligned one goes to the buffer cache
/// (which keeps it or frees it), any other to operator delete.
/// A block of `bytes` (a multiple of huge_page_size) aligned to huge_page_size: from the buffer
/// cache when it holds one, else fresh, advised for transparent huge pages. nullptr when memory
/// runs out.
STRIDED_FUNC void* allocate_huge_block(std::size_t bytes) noexcept;
/// Gives a block of allocate_huge_block back (to the cache, which may free it).
STRIDED_FUNC void release_huge_block(void* block, std::size_t bytes) noexcept;

struct AlignedDelete {
  std::size_t align;
  std::size_t bytes;  // as allocated: a multiple of huge_page_size when align is huge_page_size
  void operator()(const void* p) const noexcept {
    void* block = const_cast<void*>(p);
    if (align == huge_page_size)
      release_huge_block(block, bytes);
    else
      ::operator delete (block, std::align_val_t{align});
  }
};

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

#if STRIDED_HEADER_ONLY
#include "strided/detail/buffer-inl.hpp"
#endif
