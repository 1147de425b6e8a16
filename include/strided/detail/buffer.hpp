// Element buffers: 64-byte aligned, shared, and advised for transparent huge pages when large.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace strided::detail {

inline constexpr std::size_t buffer_alignment = 64;

/// Buffers at least this large are aligned to a huge page and advised with MADV_HUGEPAGE: a fresh
/// 64 MiB buffer otherwise costs one page fault per 4 KiB on first touch (~9x a memcpy here).
inline constexpr std::size_t huge_page_size = std::size_t{2} << 20;

inline std::size_t buffer_align_for(std::size_t bytes) noexcept {
  return bytes >= huge_page_size ? huge_page_size : buffer_alignment;
}

struct AlignedDelete {
  std::size_t align;
  void operator()(const void* p) const noexcept {
    ::operator delete (const_cast<void*>(p), std::align_val_t{align});
  }
};

/// Allocates `count` uninitialised elements of the trivially copyable `T`. Returns nullptr when the
/// byte count overflows or memory is exhausted: callers turn that into `allocation_failed` or
/// `std::bad_alloc`.
template <class T>
std::shared_ptr<T> try_allocate_buffer(std::size_t count) noexcept {
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(T)) return nullptr;
  const std::size_t bytes = count == 0 ? 1 : count * sizeof(T);
  const std::size_t align =
      buffer_align_for(bytes) < alignof(T) ? alignof(T) : buffer_align_for(bytes);
  void* raw = ::operator new (bytes, std::align_val_t{align}, std::nothrow);
  if (raw == nullptr) return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == huge_page_size) {
    const std::size_t rounded = (bytes + huge_page_size - 1) / huge_page_size * huge_page_size;
    (void)::madvise(raw, rounded, MADV_HUGEPAGE);  // advice only: failure changes nothing
  }
#endif
#if defined(__cpp_exceptions)
  try {
    return std::shared_ptr<T>(static_cast<T*>(raw), AlignedDelete{align});
  } catch (...) {    // the control block could not be allocated; shared_ptr already called
    return nullptr;  // the deleter on `raw` ([util.smartptr.shared.const]), so no delete here
  }
#else
  return std::shared_ptr<T>(static_cast<T*>(raw), AlignedDelete{align});
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
