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
inline Result<SharedBytes, IoError> copy_bytes(std::span<const std::byte> bytes, const char* op,
                                               const std::string& source) {
  std::shared_ptr<std::byte> buffer = try_allocate_buffer<std::byte>(bytes.size());
  if (buffer == nullptr)
    return IoError::from_shape(ShapeError::allocation_failed(op, bytes.size()), source);
  if (!bytes.empty()) std::memcpy(buffer.get(), bytes.data(), bytes.size());
  return SharedBytes{std::move(buffer), bytes.size()};
}

struct FileCloser {
  void operator()(std::FILE* f) const noexcept { std::fclose(f); }
};

/// Reads the whole file into a 64-byte aligned buffer.
inline Result<SharedBytes, IoError> read_file(const std::string& path, const char* op) {
  errno = 0;
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "rb"));
  if (file == nullptr)
    return IoError::system(IoErrorKind::open_failed, op, path, "cannot open the file", errno);
  if (std::fseek(file.get(), 0, SEEK_END) != 0)
    return IoError::system(IoErrorKind::open_failed, op, path, "cannot seek", errno);
  const long end = std::ftell(file.get());
  if (end < 0 || std::fseek(file.get(), 0, SEEK_SET) != 0)
    return IoError::system(IoErrorKind::open_failed, op, path, "cannot tell the file size", errno);
  const auto size = static_cast<std::size_t>(end);
  std::shared_ptr<std::byte> buffer = try_allocate_buffer<std::byte>(size);
  if (buffer == nullptr)
    return IoError(IoErrorKind::open_failed, op, path,
                   "could not allocate " + std::to_string(size) + " bytes to read the file");
  if (size != 0 && std::fread(buffer.get(), 1, size, file.get()) != size)
    return IoError::system(IoErrorKind::open_failed, op, path, "short read", errno);
  return SharedBytes{std::move(buffer), size};
}

/// Maps the whole file read-only; the mapping lives until the last shared_ptr copy dies. Falls
/// back to read_file where mmap does not exist or the file is empty.
inline Result<SharedBytes, IoError> map_file(const std::string& path, const char* op) {
#if STRIDED_HAVE_MMAP
  errno = 0;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return IoError::system(IoErrorKind::open_failed, op, path, "cannot open the file", errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return IoError::system(IoErrorKind::open_failed, op, path, "cannot stat the file", err);
  }
  const auto size = static_cast<std::size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return read_file(path, op);
  }
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int err = errno;
  ::close(fd);  // the mapping keeps the file referenced
  if (addr == MAP_FAILED)
    return IoError::system(IoErrorKind::open_failed, op, path, "cannot map the file", err);
  auto unmap = [size](const std::byte* p) { ::munmap(const_cast<std::byte*>(p), size); };
#if defined(__cpp_exceptions)
  try {
    return SharedBytes{std::shared_ptr<const std::byte>(static_cast<const std::byte*>(addr), unmap),
                       size};
  } catch (const std::bad_alloc&) {  // the deleter already ran
    return IoError::from_shape(ShapeError::out_of_memory(op), path);
  }
#else
  return SharedBytes{std::shared_ptr<const std::byte>(static_cast<const std::byte*>(addr), unmap),
                     size};
#endif
#else
  return read_file(path, op);
#endif
}

/// Writes `parts` one after the other into a new file at `path` (replacing it).
inline Result<void, IoError> write_file(const std::string& path,
                                        std::span<const std::span<const std::byte>> parts,
                                        const char* op) {
  errno = 0;
  std::unique_ptr<std::FILE, FileCloser> file(std::fopen(path.c_str(), "wb"));
  if (file == nullptr)
    return IoError::system(IoErrorKind::write_failed, op, path, "cannot create the file", errno);
  for (std::span<const std::byte> part : parts)
    if (!part.empty() && std::fwrite(part.data(), 1, part.size(), file.get()) != part.size())
      return IoError::system(IoErrorKind::write_failed, op, path, "short write", errno);
  std::FILE* raw = file.release();
  if (std::fclose(raw) != 0)
    return IoError::system(IoErrorKind::write_failed, op, path, "cannot close the file", errno);
  return {};
}

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
