// DataError: the errors of batch assembly (stack_samples, concat_batches, stack, concat), with
// its kinds and std::error_code category "strided.data". strided/error.hpp includes this header
// with ShapeError's.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <optional>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <variant>

#include "strided/detail/message_text.hpp"
#include "strided/shape.hpp"
#include "strided/shape_error.hpp"

namespace strided {

/// What went wrong while assembling a batch.
enum class DataErrorKind : int {
  empty_batch = 1,        ///< no samples
  sample_shape_mismatch,  ///< a sample's shape differs from the first sample's
  shape,                  ///< a ShapeError stopped the batch (see DataError::shape_error)
  allocation_failed,      ///< memory ran out (DataError::shape_error says for what)
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
    case DataErrorKind::allocation_failed:
      return "allocation_failed";
  }
  return "unknown";
}

/// The fields of the DataError kinds that have fields of their own (as shape_errors holds
/// ShapeError's).
namespace data_errors {

/// The fields of a DataError of kind sample_shape_mismatch.
struct SampleShapeMismatch {
  std::size_t index;  ///< the position of the offending sample in the input
  Shape expected;     ///< the shape every sample should have (the first sample's)
  Shape actual;       ///< the offending sample's shape
};

}  // namespace data_errors

/// The error of batch assembly (stack_samples, concat_batches, stack, concat). Each kind has its
/// own fields: sample_shape_mismatch() for that kind, shape_error() for kinds `shape` and
/// `allocation_failed`, none for empty_batch.
class DataError {
 public:
  /// @name Named constructors, one per kind
  ///@{

  /// No samples, in the batch operation `op` (a string literal).
  static DataError empty_batch(const char* op) { return DataError(DataErrorKind::empty_batch, op); }
  /// Sample `index` has shape `actual`; the first sample's is `expected`.
  static DataError sample_shape_mismatch(const char* op, std::size_t index, Shape expected,
                                         Shape actual) {
    DataError e(DataErrorKind::sample_shape_mismatch, op);
    e.details_.template emplace<data_errors::SampleShapeMismatch>(
        data_errors::SampleShapeMismatch{index, std::move(expected), std::move(actual)});
    return e;
  }
  /// The one way to wrap a ShapeError: kind `allocation_failed` when its kind is, else kind
  /// `shape`; the operation is the error's (relabel it first with ShapeError::in when a step
  /// raised it).
  static DataError from_shape(ShapeError error) {
    DataError e(error.kind() == ShapeErrorKind::allocation_failed ? DataErrorKind::allocation_failed
                                                                  : DataErrorKind::shape,
                error.op());
    e.details_.template emplace<ShapeError>(std::move(error));
    return e;
  }

  ///@}

  /// What went wrong.
  DataErrorKind kind() const noexcept { return kind_; }
  /// The batch operation that failed, e.g. "stack_samples".
  const char* op() const noexcept { return op_; }
  /// The sample, expected and actual shapes when kind() == sample_shape_mismatch, else nullptr.
  const data_errors::SampleShapeMismatch* sample_shape_mismatch() const noexcept {
    return std::get_if<data_errors::SampleShapeMismatch>(&details_);
  }
  /// @name The fields of sample_shape_mismatch one by one (nullopt for the other kinds)
  ///@{
  /// The position of the offending sample.
  std::optional<std::size_t> index() const noexcept {
    if (const auto* s = sample_shape_mismatch()) return s->index;
    return std::nullopt;
  }
  /// The shape every sample should have (the first sample's).
  std::optional<Shape> expected() const {
    if (const auto* s = sample_shape_mismatch()) return s->expected;
    return std::nullopt;
  }
  /// The offending sample's shape.
  std::optional<Shape> actual() const {
    if (const auto* s = sample_shape_mismatch()) return s->actual;
    return std::nullopt;
  }
  ///@}
  /// The wrapped error when kind() is `shape` or `allocation_failed`, else nullptr.
  const ShapeError* shape_error() const noexcept { return std::get_if<ShapeError>(&details_); }

  /// The kind as a std::error_code in the "strided.data" category.
  std::error_code code() const noexcept;
  /// One lower-case line naming the operation and the values.
  STRIDED_FUNC std::string message() const;

 private:
  DataError(DataErrorKind kind, const char* op) : kind_(kind), op_(op) {}

  DataErrorKind kind_;
  const char* op_;
  std::variant<std::monostate, data_errors::SampleShapeMismatch, ShapeError> details_;
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
