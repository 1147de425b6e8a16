// Typed errors: ShapeError (layout and construction) and DataError (batching), each with a kind
// that converts to std::error_code.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>
#include <type_traits>

#include "strided/shape.hpp"

namespace strided {

/// What went wrong in a shape or layout operation. Values start at 1 because std::error_code
/// reads 0 as success.
enum class ShapeErrorKind : int {
  element_count_mismatch = 1,  ///< data length differs from the product of the shape
  size_overflow,               ///< an element count, stride or offset overflows
  rank_too_large,              ///< rank above strided::max_rank
  rank_mismatch,               ///< wrong number of axes or indices for the tensor's rank
  axis_out_of_range,           ///< an axis >= rank
  duplicate_axis,              ///< an axis named twice
  index_out_of_range,          ///< an index or range outside its axis
  non_contiguous_reshape,      ///< reshape has no zero-copy view
  broadcast_incompatible,      ///< shapes do not broadcast
  invalid_argument,            ///< an argument outside its domain (e.g. a zero step)
  storage_out_of_bounds,       ///< a layout reaches outside its buffer
  allocation_failed,           ///< the element buffer could not be allocated
};

/// What went wrong while assembling a batch.
enum class DataErrorKind : int {
  empty_batch = 1,        ///< no samples
  sample_shape_mismatch,  ///< a sample's shape differs from the first sample's
  shape,                  ///< a ShapeError stopped the batch (see DataError::shape_error)
};

/// The lower-case name of a kind, e.g. "axis_out_of_range".
constexpr const char* to_string(ShapeErrorKind kind) noexcept {
  switch (kind) {
    case ShapeErrorKind::element_count_mismatch:
      return "element_count_mismatch";
    case ShapeErrorKind::size_overflow:
      return "size_overflow";
    case ShapeErrorKind::rank_too_large:
      return "rank_too_large";
    case ShapeErrorKind::rank_mismatch:
      return "rank_mismatch";
    case ShapeErrorKind::axis_out_of_range:
      return "axis_out_of_range";
    case ShapeErrorKind::duplicate_axis:
      return "duplicate_axis";
    case ShapeErrorKind::index_out_of_range:
      return "index_out_of_range";
    case ShapeErrorKind::non_contiguous_reshape:
      return "non_contiguous_reshape";
    case ShapeErrorKind::broadcast_incompatible:
      return "broadcast_incompatible";
    case ShapeErrorKind::invalid_argument:
      return "invalid_argument";
    case ShapeErrorKind::storage_out_of_bounds:
      return "storage_out_of_bounds";
    case ShapeErrorKind::allocation_failed:
      return "allocation_failed";
  }
  return "unknown";
}

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

namespace detail {

inline void append_dims(std::string& out, std::span<const std::size_t> dims) {
  append_list(out, dims);
}

constexpr std::size_t checked_numel_or_zero(std::span<const std::size_t> dims) noexcept {
  std::size_t n = 1;
  for (std::size_t d : dims)
    if (__builtin_mul_overflow(n, d, &n)) return 0;
  return n;
}

inline std::string dims_string(std::span<const std::size_t> dims) {
  std::string out;
  append_dims(out, dims);
  return out;
}

// A shape as the caller of reshape/unflatten wrote it: SIZE_MAX is strided::infer there.
inline std::string dims_string_with_infer(std::span<const std::size_t> dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i != 0) out += ", ";
    out += dims[i] == static_cast<std::size_t>(-1) ? std::string("infer") : std::to_string(dims[i]);
  }
  return out + ']';
}

// Indices are std::size_t, so a Python habit such as select(0, -1) arrives as 2^64 - 1. No axis
// can be that long (a size above PTRDIFF_MAX overflows every layout), so such a value is named
// for what it almost certainly was.
inline std::string negative_index_hint(std::size_t value, std::size_t size, const char* what) {
  constexpr auto signed_max = static_cast<std::size_t>(PTRDIFF_MAX);
  if (value <= signed_max) return {};
  const auto negative = static_cast<std::ptrdiff_t>(value);  // two's complement since C++20
  std::string hint = "; the " + std::string(what) + " looks like the negative value " +
                     std::to_string(negative) +
                     " converted to std::size_t: strided counts from 0 and has no negative "
                     "indices";
  const std::size_t back = 0 - value;
  if (back >= 1 && back <= size)
    hint += " (use " + std::to_string(size - back) + ", i.e. size - " + std::to_string(back) + ")";
  return hint;
}

}  // namespace detail

/// The error of every shape or layout operation: its kind, the operation that raised it and the
/// values involved. A literal type (no std::string member) so that layout algebra stays constexpr;
/// message() builds the text on demand.
class ShapeError {
 public:
  /// An error of `kind` raised by `op` (a string literal), without context.
  constexpr ShapeError(ShapeErrorKind kind, const char* op) noexcept : kind_(kind), op_(op) {}

  /// @name Named constructors, one per kind, taking the context each kind reports
  ///@{

  /// Each builds an error of the kind of the same name, raised by `op`.
  static constexpr ShapeError element_count_mismatch(const char* op, const Shape& shape,
                                                     std::size_t length) {
    ShapeError e(ShapeErrorKind::element_count_mismatch, op);
    e.lhs_ = shape;
    e.length_ = length;
    return e;
  }
  /// The sizes `requested` (one of them `infer`) cannot hold `numel` elements: `numel` is not a
  /// multiple of `others`, the product of the other sizes. Kind element_count_mismatch; lhs() is
  /// the shape as the caller wrote it, so the message never shows a size nobody asked for.
  static constexpr ShapeError infer_mismatch(const char* op, const Shape& requested,
                                             std::size_t numel, std::size_t others) {
    ShapeError e = element_count_mismatch(op, requested, numel);
    e.index_ = others;
    e.what_ = "infer";
    return e;
  }
  static constexpr ShapeError size_overflow(const char* op, const Shape& shape) {
    ShapeError e(ShapeErrorKind::size_overflow, op);
    e.lhs_ = shape;
    return e;
  }
  static constexpr ShapeError rank_too_large(const char* op, std::size_t rank) {
    ShapeError e(ShapeErrorKind::rank_too_large, op);
    e.rank_ = rank;
    return e;
  }
  /// `length` axes or indices were given to a tensor of rank `rank`.
  static constexpr ShapeError rank_mismatch(const char* op, std::size_t rank, std::size_t length) {
    ShapeError e(ShapeErrorKind::rank_mismatch, op);
    e.rank_ = rank;
    e.length_ = length;
    return e;
  }
  /// The operation needs rank `required`; the tensor has rank `rank`.
  static constexpr ShapeError rank_mismatch_required(const char* op, std::size_t required,
                                                     std::size_t rank) {
    ShapeError e = rank_mismatch(op, rank, required);
    e.what_ = "required";
    return e;
  }
  static constexpr ShapeError axis_out_of_range(const char* op, std::size_t axis,
                                                const Shape& shape) {
    ShapeError e(ShapeErrorKind::axis_out_of_range, op);
    e.axis_ = axis;
    e.rank_ = shape.size();
    e.lhs_ = shape;
    return e;
  }
  static constexpr ShapeError duplicate_axis(const char* op, std::size_t axis, const Shape& axes) {
    ShapeError e(ShapeErrorKind::duplicate_axis, op);
    e.axis_ = axis;
    e.rhs_ = axes;
    e.rank_ = axes.size();
    return e;
  }
  /// Index `index` is not inside axis `axis` of `shape`.
  static constexpr ShapeError index_out_of_range(const char* op, std::size_t axis,
                                                 std::size_t index, const Shape& shape) {
    ShapeError e(ShapeErrorKind::index_out_of_range, op);
    e.axis_ = axis;
    e.index_ = index;
    e.length_ = 1;
    e.rank_ = shape.size();
    e.lhs_ = shape;
    return e;
  }
  /// The range [start, start + length) is not inside axis `axis` of `shape` (kind
  /// index_out_of_range; index() is the start).
  static constexpr ShapeError range_out_of_range(const char* op, std::size_t axis,
                                                 std::size_t start, std::size_t length,
                                                 const Shape& shape) {
    ShapeError e = index_out_of_range(op, axis, start, shape);
    e.length_ = length;
    e.what_ = "range";
    return e;
  }
  static constexpr ShapeError non_contiguous_reshape(const char* op, const Shape& from,
                                                     const Shape& to) {
    ShapeError e(ShapeErrorKind::non_contiguous_reshape, op);
    e.lhs_ = from;
    e.rhs_ = to;
    return e;
  }
  static constexpr ShapeError broadcast_incompatible(const char* op, const Shape& own,
                                                     const Shape& target) {
    ShapeError e(ShapeErrorKind::broadcast_incompatible, op);
    e.lhs_ = own;
    e.rhs_ = target;
    return e;
  }
  /// `what` is a string literal describing the broken requirement, e.g. "step must not be zero".
  static constexpr ShapeError invalid_argument(const char* op, const char* what) {
    ShapeError e(ShapeErrorKind::invalid_argument, op);
    e.what_ = what;
    return e;
  }
  /// invalid_argument about axis `axis` of `shape`: the message names the axis, its size and the
  /// shape before `what`, e.g. "squeeze: axis 0 of size 4 (shape [4, 2]): only an axis of size 1
  /// can be squeezed".
  static constexpr ShapeError invalid_axis_argument(const char* op, const char* what,
                                                    std::size_t axis, const Shape& shape) {
    ShapeError e = invalid_argument(op, what);
    e.axis_ = axis;
    e.rank_ = shape.size();
    e.lhs_ = shape;
    e.axis_context_ = true;
    return e;
  }
  /// A layout of `shape` reaches storage index `index` (or below 0 when `below_zero`) in a buffer
  /// of `length` elements.
  static constexpr ShapeError storage_out_of_bounds(const char* op, const Shape& shape,
                                                    std::size_t index, std::size_t length,
                                                    bool below_zero) {
    ShapeError e(ShapeErrorKind::storage_out_of_bounds, op);
    e.lhs_ = shape;
    e.index_ = index;
    e.length_ = length;
    e.what_ = below_zero ? "below" : nullptr;
    return e;
  }
  static constexpr ShapeError allocation_failed(const char* op, std::size_t elements) {
    ShapeError e(ShapeErrorKind::allocation_failed, op);
    e.length_ = elements;
    return e;
  }
  /// Kind allocation_failed for memory other than an element buffer: a shape of more than
  /// 6 axes, the vector of split/chunk/unbind, the context of an error.
  static constexpr ShapeError out_of_memory(const char* op) {
    ShapeError e(ShapeErrorKind::allocation_failed, op);
    e.what_ = "memory";
    return e;
  }

  ///@}

  /// The same error reported under another operation's name (a factory re-labelling the error
  /// of the layout it builds).
  constexpr ShapeError in(const char* op) const {
    ShapeError e = *this;
    e.op_ = op;
    return e;
  }

  /// What went wrong.
  constexpr ShapeErrorKind kind() const noexcept { return kind_; }
  /// The operation that failed, e.g. "narrow".
  constexpr const char* op() const noexcept { return op_; }
  /// The axis involved (axis_out_of_range, duplicate_axis, index_out_of_range).
  constexpr std::size_t axis() const noexcept { return axis_; }
  /// The tensor's rank (or the rank asked for, for rank_too_large).
  constexpr std::size_t rank() const noexcept { return rank_; }
  /// The operand's own shape (or the shape being built).
  constexpr const Shape& lhs() const noexcept { return lhs_; }
  /// The other shape: a broadcast or reshape target, or the axes given to permute.
  constexpr const Shape& rhs() const noexcept { return rhs_; }
  /// The offending index, range start, or storage index reached.
  constexpr std::size_t index() const noexcept { return index_; }
  /// A length: of the data, of a range, of the buffer, or the number of entries given.
  constexpr std::size_t length() const noexcept { return length_; }

  /// The kind as a std::error_code in the "strided.shape" category.
  std::error_code code() const noexcept;
  /// One lower-case line naming the operation and the values.
  std::string message() const;

 private:
  ShapeErrorKind kind_;
  const char* op_;
  const char* what_ = nullptr;
  std::size_t axis_ = 0;
  std::size_t rank_ = 0;
  std::size_t index_ = 0;
  std::size_t length_ = 0;
  bool axis_context_ = false;  // invalid_argument: axis_ and lhs_ are set
  Shape lhs_;
  Shape rhs_;
};

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
  std::string message() const;

 private:
  DataError(DataErrorKind kind, const char* op) : kind_(kind), op_(op) {}

  DataErrorKind kind_;
  const char* op_;
  std::size_t index_ = 0;
  Shape expected_;
  Shape actual_;
  ShapeError shape_error_{ShapeErrorKind::invalid_argument, ""};
};

namespace detail {

template <class Kind>
class KindCategory final : public std::error_category {
 public:
  explicit KindCategory(const char* name) noexcept : name_(name) {}
  const char* name() const noexcept override { return name_; }
  std::string message(int value) const override { return to_string(static_cast<Kind>(value)); }

 private:
  const char* name_;
};

}  // namespace detail

/// The category of ShapeErrorKind codes, named "strided.shape".
inline const std::error_category& shape_category() noexcept {
  static const detail::KindCategory<ShapeErrorKind> category("strided.shape");
  return category;
}

/// The category of DataErrorKind codes, named "strided.data".
inline const std::error_category& data_category() noexcept {
  static const detail::KindCategory<DataErrorKind> category("strided.data");
  return category;
}

/// Lets ShapeErrorKind convert to std::error_code.
inline std::error_code make_error_code(ShapeErrorKind kind) noexcept {
  return {static_cast<int>(kind), shape_category()};
}

/// Lets DataErrorKind convert to std::error_code.
inline std::error_code make_error_code(DataErrorKind kind) noexcept {
  return {static_cast<int>(kind), data_category()};
}

inline std::error_code ShapeError::code() const noexcept { return make_error_code(kind_); }
inline std::error_code DataError::code() const noexcept { return make_error_code(kind_); }

inline std::string ShapeError::message() const {
  using detail::dims_string;
  using std::to_string;
  std::string m = std::string(op_) + ": ";
  switch (kind_) {
    case ShapeErrorKind::element_count_mismatch:
      if (what_ != nullptr)
        return m + "shape " + detail::dims_string_with_infer(lhs_) + " cannot hold " +
               to_string(length_) + " elements: " + to_string(length_) + " is not a multiple of " +
               to_string(index_) + ", the product of the other sizes";
      return m + to_string(length_) + " elements do not match shape " + dims_string(lhs_) + " (" +
             to_string(detail::checked_numel_or_zero(lhs_)) + " elements)";
    case ShapeErrorKind::size_overflow:
      return m + "the element count, a stride or the offset of shape " + dims_string(lhs_) +
             " overflows";
    case ShapeErrorKind::rank_too_large:
      return m + "rank " + to_string(rank_) + " exceeds the maximum rank " + to_string(max_rank);
    case ShapeErrorKind::rank_mismatch:
      if (what_ != nullptr)
        return m + "needs rank " + to_string(length_) + ", got rank " + to_string(rank_);
      return m + to_string(length_) + " entries given for a tensor of rank " + to_string(rank_);
    case ShapeErrorKind::axis_out_of_range:
      return m + "axis " + to_string(axis_) + " is out of range for rank " + to_string(rank_) +
             " (shape " + dims_string(lhs_) + ")";
    case ShapeErrorKind::duplicate_axis:
      return m + "axis " + to_string(axis_) + " appears more than once in " + dims_string(rhs_);
    case ShapeErrorKind::index_out_of_range: {
      const std::string where = " is out of bounds for axis " + to_string(axis_) + " of size " +
                                to_string(axis_ < lhs_.size() ? lhs_[axis_] : 0) + " (shape " +
                                dims_string(lhs_) + ")";
      const std::string hint = detail::negative_index_hint(
          index_, axis_ < lhs_.size() ? lhs_[axis_] : 0, what_ == nullptr ? "index" : "start");
      if (what_ == nullptr) return m + "index " + to_string(index_) + where + hint;
      if (index_ > static_cast<std::size_t>(-1) - length_)
        return m + "range starting at " + to_string(index_) + " with length " + to_string(length_) +
               " overflows and" + where + hint;
      return m + "range [" + to_string(index_) + ", " + to_string(index_ + length_) + ")" + where +
             hint;
    }
    case ShapeErrorKind::non_contiguous_reshape:
      return m + "shape " + dims_string(lhs_) + " has no zero-copy view as " + dims_string(rhs_) +
             " with its strides; call contiguous() first";
    case ShapeErrorKind::broadcast_incompatible:
      return m + "shape " + dims_string(lhs_) + " cannot be broadcast with " + dims_string(rhs_);
    case ShapeErrorKind::invalid_argument:
      if (axis_context_)
        m += "axis " + to_string(axis_) + " of size " +
             to_string(axis_ < lhs_.size() ? lhs_[axis_] : 0) + " (shape " + dims_string(lhs_) +
             "): ";
      return m + (what_ != nullptr ? what_ : "invalid argument");
    case ShapeErrorKind::storage_out_of_bounds:
      if (what_ != nullptr)
        return m + "a layout of shape " + dims_string(lhs_) +
               " reaches below storage index 0 (buffer length " + to_string(length_) + ")";
      return m + "a layout of shape " + dims_string(lhs_) + " reaches storage index " +
             to_string(index_) + ", outside the buffer of length " + to_string(length_);
    case ShapeErrorKind::allocation_failed:
      if (what_ != nullptr) return m + "out of memory";
      return m + "could not allocate a buffer of " + to_string(length_) + " elements";
  }
  return m + "unknown error";
}

inline std::string DataError::message() const {
  using detail::dims_string;
  std::string m = std::string(op_) + ": ";
  switch (kind_) {
    case DataErrorKind::empty_batch:
      return m + "no samples to batch";
    case DataErrorKind::sample_shape_mismatch:
      return m + "sample " + std::to_string(index_) + " has shape " + dims_string(actual_) +
             ", expected " + dims_string(expected_);
    case DataErrorKind::shape:
      return shape_error_.message();
  }
  return m + "unknown error";
}

}  // namespace strided

template <>
struct std::is_error_code_enum<strided::ShapeErrorKind> : std::true_type {};
template <>
struct std::is_error_code_enum<strided::DataErrorKind> : std::true_type {};
