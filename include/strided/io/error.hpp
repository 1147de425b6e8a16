// IoError: the error of every reader and writer of foreign data (.npy, safetensors, DLPack).
// Malformed input is an IoError with a kind, never undefined behaviour or an exception.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "strided/detail/allocation_guard.hpp"
#include "strided/error.hpp"
#include "strided/result.hpp"

namespace strided {

/// What went wrong while reading or writing foreign data. Values start at 1 because
/// std::error_code reads 0 as success.
enum class IoErrorKind : int {
  open_failed = 1,      ///< a file could not be opened, read or mapped (see IoError::sys_errno)
  write_failed,         ///< a file could not be created or written
  truncated,            ///< the input ends before the header or the data it announces
  bad_magic,            ///< the input does not start with the format's magic bytes
  unsupported_version,  ///< a format version this reader does not know
  malformed_header,     ///< the header does not parse, or a field has the wrong type
  header_too_large,     ///< the announced header size exceeds the reader's limit
  unsupported_dtype,    ///< an element type the format or strided cannot represent
  dtype_mismatch,       ///< the stored element type differs from the requested T
  size_mismatch,        ///< byte sizes disagree (data length vs numel x element size, file size)
  invalid_offsets,      ///< safetensors data offsets out of order, overlapping or with holes
  invalid_value,        ///< an element value T cannot hold (a bool byte other than 0 or 1)
  unsupported_device,   ///< DLPack memory that is not on the CPU
  not_found,            ///< no tensor of that name
  invalid_argument,     ///< a null pointer or an argument outside its domain
  shape,                ///< a ShapeError stopped the operation (see IoError::shape_error)
};

/// The lower-case name of a kind, e.g. "truncated".
constexpr const char* to_string(IoErrorKind kind) noexcept {
  switch (kind) {
    case IoErrorKind::open_failed:
      return "open_failed";
    case IoErrorKind::write_failed:
      return "write_failed";
    case IoErrorKind::truncated:
      return "truncated";
    case IoErrorKind::bad_magic:
      return "bad_magic";
    case IoErrorKind::unsupported_version:
      return "unsupported_version";
    case IoErrorKind::malformed_header:
      return "malformed_header";
    case IoErrorKind::header_too_large:
      return "header_too_large";
    case IoErrorKind::unsupported_dtype:
      return "unsupported_dtype";
    case IoErrorKind::dtype_mismatch:
      return "dtype_mismatch";
    case IoErrorKind::size_mismatch:
      return "size_mismatch";
    case IoErrorKind::invalid_offsets:
      return "invalid_offsets";
    case IoErrorKind::invalid_value:
      return "invalid_value";
    case IoErrorKind::unsupported_device:
      return "unsupported_device";
    case IoErrorKind::not_found:
      return "not_found";
    case IoErrorKind::invalid_argument:
      return "invalid_argument";
    case IoErrorKind::shape:
      return "shape";
  }
  return "unknown";
}

/// The error of the interop doors: its kind, the operation (`"load_npy"`), the source (a file
/// path, `"<memory>"` or `"<dlpack>"`) and a one-line description naming the field and the
/// offending value. message() = "op: source: description". A ShapeError met on the way (an
/// overflowing shape, a layout outside the data) is wrapped with kind `shape`.
class IoError {
 public:
  /// An error of `kind` in `op` on `source`, described by `what`.
  IoError(IoErrorKind kind, std::string op, std::string source, std::string what)
      : kind_(kind), op_(std::move(op)), source_(std::move(source)), what_(std::move(what)) {}

  /// An open/read/write failure carrying errno (0 when there is none).
  static IoError system(IoErrorKind kind, std::string op, std::string source, std::string what,
                        int err) {
    IoError e(kind, std::move(op), std::move(source), std::move(what));
    e.errno_ = err;
    if (err != 0) e.what_ += std::string(" (") + std::strerror(err) + ")";
    return e;
  }

  /// Wraps a ShapeError of this operation (raised by it, or relabelled with ShapeError::in) as
  /// kind `shape`: the operation is the error's, and its description becomes what().
  static IoError from_shape(ShapeError error, std::string source) {
    std::string op = error.op();
    return from_shape(std::move(error), std::move(op), std::move(source));
  }
  /// Wraps a ShapeError met inside `op` as kind `shape`; its message becomes the description
  /// (without its operation when that is `op`, so that no message names it twice).
  static IoError from_shape(ShapeError error, std::string op, std::string source) {
    // The message names the operation once: "op: source: what", not "op: source: op: what".
    std::string what = op == error.op() ? error.description() : error.message();
    IoError e(IoErrorKind::shape, std::move(op), std::move(source), std::move(what));
    e.shape_error_ = std::move(error);
    return e;
  }

  /// What went wrong.
  IoErrorKind kind() const noexcept { return kind_; }
  /// The operation that failed, e.g. "load_npy".
  const std::string& op() const noexcept { return op_; }
  /// The file path, or "<memory>" / "<dlpack>".
  const std::string& source() const noexcept { return source_; }
  /// The description without the op and source prefix.
  const std::string& what() const noexcept { return what_; }
  /// errno of a failed system call, else 0.
  int sys_errno() const noexcept { return errno_; }
  /// The wrapped error when kind() == IoErrorKind::shape.
  const ShapeError& shape_error() const noexcept { return shape_error_; }

  /// kind() as a std::error_code in the category "strided.io".
  std::error_code code() const noexcept;
  /// One line: "op: source: description".
  std::string message() const { return op_ + ": " + source_ + ": " + what_; }

 private:
  IoErrorKind kind_;
  std::string op_;
  std::string source_;
  std::string what_;
  int errno_ = 0;
  ShapeError shape_error_{ShapeErrorKind::invalid_argument, ""};
};

/// The category of IoErrorKind codes, named "strided.io".
inline const std::error_category& io_category() noexcept {
  static const detail::KindCategory<IoErrorKind> category("strided.io");
  return category;
}

/// `kind` as a std::error_code (found by ADL; makes IoErrorKind convert implicitly).
inline std::error_code make_error_code(IoErrorKind kind) noexcept {
  return {static_cast<int>(kind), io_category()};
}

inline std::error_code IoError::code() const noexcept { return make_error_code(kind_); }

namespace detail {

/// guard_allocations for the interop doors: memory exhaustion anywhere in `body` (a header
/// string, a JSON tree, a shape of more than 8 axes) is kind `shape` wrapping allocation_failed.
template <class F>
auto guard_io(const char* op, const std::string& source, F&& body) -> decltype(body()) {
  return guard_allocations(std::forward<F>(body), [&] {
    return IoError::from_shape(ShapeError::out_of_memory(op), source);
  });
}

}  // namespace detail

}  // namespace strided

template <>
struct std::is_error_code_enum<strided::IoErrorKind> : std::true_type {};
