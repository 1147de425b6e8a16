// Reading, mapping and writing whole files (declared in file.hpp). Included by file.hpp in
// header-only mode, compiled into libstrided otherwise.
#pragma once

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <memory>
#include <span>
#include <string>

#include "strided/detail/io/file.hpp"

namespace strided::detail {

STRIDED_FUNC Result<SharedBytes, IoError> copy_bytes(std::span<const std::byte> bytes,
                                                     const char* op, const std::string& source) {
  std::shared_ptr<std::byte> buffer = try_allocate_buffer<std::byte>(bytes.size());
  if (buffer == nullptr)
    return IoError::from_shape(ShapeError::allocation_failed(op, bytes.size()), source);
  if (!bytes.empty()) std::memcpy(buffer.get(), bytes.data(), bytes.size());
  return SharedBytes{std::move(buffer), bytes.size()};
}

STRIDED_FUNC Result<SharedBytes, IoError> read_file(const std::string& path, const char* op) {
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

STRIDED_FUNC Result<SharedBytes, IoError> map_file(const std::string& path, const char* op) {
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

STRIDED_FUNC Result<void, IoError> write_file(const std::string& path,
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

}  // namespace strided::detail
