// Scratch bytes on the heap whose start is on a cache line, for the transpose's buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace strided::detail::copy_impl {

/// `bytes` of uninitialised scratch starting on a 64-byte line. Empty for 0 bytes (nothing is
/// allocated) and when the allocation fails: the callers then take a path without the buffer,
/// so a failed allocation is never an error.
class LineBuffer {
 public:
  static constexpr std::size_t alignment = 64;

  explicit LineBuffer(std::size_t bytes) noexcept
      : storage_(bytes == 0 ? nullptr : new (std::nothrow) std::byte[bytes + alignment]) {}

  bool empty() const noexcept { return storage_ == nullptr; }

  std::byte* data() const noexcept {
    const auto at = reinterpret_cast<std::uintptr_t>(storage_.get());
    return storage_.get() + (alignment - at % alignment) % alignment;
  }

 private:
  std::unique_ptr<std::byte[]> storage_;
};

}  // namespace strided::detail::copy_impl
