// IoError: the error of every reader and writer of foreign data (.npy, safetensors, DLPack).
// Malformed input is an IoError with a kind, never undefined behaviour or an exception.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstring>
#include <optional>
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
  allocation_failed,    ///< memory ran out (IoError::shape_error says for what)
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
    case IoErrorKind::allocation_failed:
      return "allocation_failed";
  }
  return "unknown";
}

/// The error of the interop doors: its kind, the operation (the public function called, e.g.
/// `"load_npy"`), the source (a file path, `"<memory>"` or `"<dlpack>"`) and a one-line
/// description naming the field and the offending value. message() = "op: source: description".
/// A ShapeError met on the way is wrapped (from_shape): kind `allocation_failed` when memory ran
/// out, else kind `shape` (an overflowing shape, a layout outside the data).
class IoError {
 public:
  /// An error of `kind` in `op` (a string literal: the public function called) on `source`,
  /// described by `what`.
  IoError(IoErrorKind kind, const char* op, std::string source, std::string what)
      : kind_(kind), op_(op), source_(std::move(source)), what_(std::move(what)) {}

  /// An open/read/write failure carrying errno (0 when there is none).
  static IoError system(IoErrorKind kind, const char* op, std::string source, std::string what,
                        int err) {
    IoError e(kind, op, std::move(source), std::move(what));
    e.errno_ = err;
    if (err != 0) e.what_ += std::string(" (") + std::strerror(err) + ")";
    return e;
  }

  /// The one way to wrap a ShapeError: kind `allocation_failed` when its kind is, else kind
  /// `shape`. The operation is the error's (relabel it first with ShapeError::in when a step
  /// raised it) and its description, without the operation, becomes what(), so that the message
  /// names the operation once.
  static IoError from_shape(ShapeError error, std::string source) {
    const IoErrorKind kind = error.kind() == ShapeErrorKind::allocation_failed
                                 ? IoErrorKind::allocation_failed
                                 : IoErrorKind::shape;
    IoError e(kind, error.op(), std::move(source), error.description());
    e.shape_error_.emplace(std::move(error));
    return e;
  }

  /// The same error reported under the public function `op` (a reader relabelling the error of
  /// a step it calls, e.g. parse_npy_header inside load_npy); a wrapped ShapeError follows.
  IoError in(const char* op) && noexcept {
    IoError e = std::move(*this);
    e.op_ = op;
    if (e.shape_error_) *e.shape_error_ = std::move(*e.shape_error_).in(op);
    return e;
  }

  /// What went wrong.
  IoErrorKind kind() const noexcept { return kind_; }
  /// The public function that failed, e.g. "load_npy".
  const char* op() const noexcept { return op_; }
  /// The file path, or "<memory>" / "<dlpack>".
  const std::string& source() const noexcept { return source_; }
  /// The description without the op and source prefix.
  const std::string& what() const noexcept { return what_; }
  /// errno of a failed system call, else 0.
  int sys_errno() const noexcept { return errno_; }
  /// The wrapped error (kinds `shape` and `allocation_failed`), else nullptr.
  const ShapeError* shape_error() const noexcept { return shape_error_ ? &*shape_error_ : nullptr; }

  /// kind() as a std::error_code in the category "strided.io".
  std::error_code code() const noexcept;
  /// One line: "op: source: description".
  std::string message() const { return std::string(op_) + ": " + source_ + ": " + what_; }

 private:
  IoErrorKind kind_;
  const char* op_;
  std::string source_;
  std::string what_;
  int errno_ = 0;
  std::optional<ShapeError> shape_error_;
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

/// guard_allocations for the interop doors, which also labels: memory exhaustion anywhere in
/// `body` (a header string, a JSON tree, a shape of more than 8 axes) is kind allocation_failed,
/// and every error out of `body` is reported as `op`'s, the public function called (the
/// header parse inside load_npy included), so that a message never names an internal step.
template <class F>
auto guard_io(const char* op, const std::string& source, F&& body) -> decltype(body()) {
  auto out = guard_allocations(std::forward<F>(body), [&] {
    return IoError::from_shape(ShapeError::out_of_memory(op), source);
  });
  if (!out) [[unlikely]] {
    auto&& error = std::move(out).error();  // relabelled in place: Result<void> has no error() &
    error = std::move(error).in(op);
  }
  return out;
}

}  // namespace detail

}  // namespace strided

template <>
struct std::is_error_code_enum<strided::IoErrorKind> : std::true_type {};
