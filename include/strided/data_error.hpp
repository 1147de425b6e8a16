// DataError: the errors of batch assembly (stack_samples, concat_batches, stack, concat), with
// its kinds and std::error_code category "strided.data". strided/error.hpp includes this header
// with ShapeError's.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

#include "strided/detail/message_text.hpp"
#include "strided/shape.hpp"
#include "strided/shape_error.hpp"

namespace strided {

/// What went wrong while assembling a batch.
enum class DataErrorKind : int {
  empty_batch = 1,        ///< no samples
  sample_shape_mismatch,  ///< a sample's shape differs from the first sample's
  shape,                  ///< a ShapeError stopped the batch (see DataError::shape_error)
};

/// The lower-case name of a kind, e.g. "empty_batch".
constexpr const char* to_string(DataErrorKind kind) noexcept {
  switch (kind) {
    case DataErrorKind::empty_batch:
      return "empty_batch";
    case DataErrorKind::sample_shape_mismatch:
      return "sample_shape_mismatch";
    case DataErrorKind::shape:
      return "shape";
  }
  return "unknown";
}

/// The error of batch assembly (stack_samples, concat_batches, stack, concat).
class DataError {
 public:
  /// @name Named constructors, one per kind
  ///@{

  /// Each builds an error of the kind of the same name, raised by `op`.
  static DataError empty_batch(const char* op) { return DataError(DataErrorKind::empty_batch, op); }
  static DataError sample_shape_mismatch(const char* op, std::size_t index, Shape expected,
                                         Shape actual) {
    DataError e(DataErrorKind::sample_shape_mismatch, op);
    e.index_ = index;
    e.expected_ = std::move(expected);
    e.actual_ = std::move(actual);
    return e;
  }
  static DataError shape(ShapeError error) {
    DataError e(DataErrorKind::shape, error.op());
    e.shape_error_ = std::move(error);
    return e;
  }

  ///@}

  /// What went wrong.
  DataErrorKind kind() const noexcept { return kind_; }
  /// The batch operation that failed, e.g. "stack_samples".
  const char* op() const noexcept { return op_; }
  /// The position of the offending sample.
  std::size_t index() const noexcept { return index_; }
  /// The shape every sample should have (the first sample's).
  const Shape& expected() const noexcept { return expected_; }
  /// The offending sample's shape.
  const Shape& actual() const noexcept { return actual_; }
  /// The wrapped error when kind() == DataErrorKind::shape.
  const ShapeError& shape_error() const noexcept { return shape_error_; }

  /// The kind as a std::error_code in the "strided.data" category.
  std::error_code code() const noexcept;
  /// One lower-case line naming the operation and the values.
  STRIDED_FUNC std::string message() const;

 private:
  DataError(DataErrorKind kind, const char* op) : kind_(kind), op_(op) {}

  DataErrorKind kind_;
  const char* op_;
  std::size_t index_ = 0;
  Shape expected_;
  Shape actual_;
  ShapeError shape_error_{ShapeErrorKind::invalid_argument, ""};
};

/// The category of DataErrorKind codes, named "strided.data".
inline const std::error_category& data_category() noexcept {
  static const detail::KindCategory<DataErrorKind> category("strided.data");
  return category;
}

/// Lets DataErrorKind convert to std::error_code.
inline std::error_code make_error_code(DataErrorKind kind) noexcept {
  return {static_cast<int>(kind), data_category()};
}

inline std::error_code DataError::code() const noexcept { return make_error_code(kind_); }

}  // namespace strided

template <>
struct std::is_error_code_enum<strided::DataErrorKind> : std::true_type {};

#if STRIDED_HEADER_ONLY
#include "strided/data_error-inl.hpp"
#endif
