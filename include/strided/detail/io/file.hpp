// Whole-file reads into aligned shared buffers, read-only memory maps, whole-file writes and
// little-endian integer codecs, shared by the .npy and safetensors readers and writers.
#pragma once

#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "strided/detail/buffer.hpp"
#include "strided/io/error.hpp"
#include "strided/result.hpp"

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define STRIDED_HAVE_MMAP 1
#else
#define STRIDED_HAVE_MMAP 0
#endif

namespace strided::detail {

static_assert(std::endian::native == std::endian::little,
              "strided's .npy, safetensors and DLPack doors assume a little-endian host");

/// Bytes shared by every tensor that aliases them: a heap buffer or a memory map.
struct SharedBytes {
  std::shared_ptr<const std::byte> data;
  std::size_t size = 0;
  std::span<const std::byte> span() const noexcept { return {data.get(), size}; }
};

/// A 64-byte aligned copy of `bytes`.
STRIDED_FUNC Result<SharedBytes, IoError> copy_bytes(std::span<const std::byte> bytes,
                                                     const char* op, const std::string& source);

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

/// Reads the whole file into a 64-byte aligned buffer.
STRIDED_FUNC Result<SharedBytes, IoError> read_file(const std::string& path, const char* op);

/// Maps the whole file read-only; the mapping lives until the last shared_ptr copy dies. Falls
/// back to read_file where mmap does not exist or the file is empty.
STRIDED_FUNC Result<SharedBytes, IoError> map_file(const std::string& path, const char* op);

/// Writes `parts` one after the other into a new file at `path` (replacing it).
STRIDED_FUNC Result<void, IoError> write_file(const std::string& path,
                                              std::span<const std::span<const std::byte>> parts,
                                              const char* op);

/// Little-endian unsigned integer of `N` bytes at `p`.
template <std::size_t N>
std::uint64_t load_le(const std::byte* p) noexcept {
  std::uint64_t v = 0;
  for (std::size_t i = N; i-- > 0;) v = (v << 8) | std::to_integer<std::uint64_t>(p[i]);
  return v;
}

/// Appends the low `N` bytes of `v`, little-endian.
template <std::size_t N, class Out>
void store_le(Out& out, std::uint64_t v) {
  for (std::size_t i = 0; i < N; ++i) out.push_back(static_cast<std::byte>((v >> (8 * i)) & 0xFF));
}

/// True when every byte is 0 or 1: the only bytes that are valid `bool` objects.
inline bool valid_bool_bytes(std::span<const std::byte> bytes) noexcept {
  for (std::byte b : bytes)
    if (std::to_integer<unsigned>(b) > 1) return false;
  return true;
}

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/io/file-inl.hpp"
#endif
