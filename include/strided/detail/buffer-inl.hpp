// The large-buffer half of buffer.hpp: huge-page blocks through the buffer cache. Included by
// buffer.hpp in header-only mode, compiled into libstrided otherwise.
#pragma once

#include <cstddef>
#include <new>

#include "strided/detail/buffer.hpp"
#include "strided/detail/buffer_cache.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace strided::detail {

static_assert(cache_block_granule == huge_page_size);

STRIDED_FUNC void* allocate_huge_block(std::size_t bytes) noexcept {
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

STRIDED_FUNC void release_huge_block(void* block, std::size_t bytes) noexcept {
  buffer_cache().put(block, bytes);
}

}  // namespace strided::detail
