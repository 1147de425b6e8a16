// ShapeError, the error of layout and construction, with its kinds and std::error_code category
// "strided.shape". (DataError, the batch errors, is in strided/data_error.hpp, included at the
// end.)
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

#include "strided/detail/message_text.hpp"
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

namespace detail {

constexpr std::size_t checked_numel_or_zero(std::span<const std::size_t> dims) noexcept {
  std::size_t n = 1;
  for (std::size_t d : dims)
    if (__builtin_mul_overflow(n, d, &n)) return 0;
  return n;
}

inline std::string dims_string(std::span<const std::size_t> dims) {
  std::string out;
  append_list(out, dims);
  return out;
}

// Indices are std::size_t, so a Python habit such as select(0, -1) arrives as 2^64 - 1. No axis
// can be that long (a size above PTRDIFF_MAX overflows every layout), so such a value is named
// for what it almost certainly was.
[[gnu::cold]] inline void append_negative_index_hint(MessageText& m, std::size_t value,
                                                     std::size_t size, const char* what) {
  if (value <= static_cast<std::size_t>(PTRDIFF_MAX)) return;
  m << "; the " << what << " looks like the negative value ";
  m.signed_value(static_cast<std::ptrdiff_t>(value));  // two's complement since C++20
  m << " converted to std::size_t: strided counts from 0 and has no negative indices";
  const std::size_t back = 0 - value;
  if (back >= 1 && back <= size) m << " (use " << size - back << ", i.e. size - " << back << ")";
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
  /// One lower-case line naming the operation and the values: `op: ` + description().
  std::string message() const;
  /// The message without its `op: ` prefix, for a caller that names the operation itself.
  std::string description() const;

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

/// Lets ShapeErrorKind convert to std::error_code.
inline std::error_code make_error_code(ShapeErrorKind kind) noexcept {
  return {static_cast<int>(kind), shape_category()};
}

inline std::error_code ShapeError::code() const noexcept { return make_error_code(kind_); }

[[gnu::cold]] inline std::string ShapeError::message() const {
  detail::MessageText m(op_);
  m << description();
  return std::move(m).take();
}

[[gnu::cold]] inline std::string ShapeError::description() const {
  detail::MessageText m;
  const std::size_t axis_size = axis_ < lhs_.size() ? lhs_[axis_] : 0;
  switch (kind_) {
    case ShapeErrorKind::element_count_mismatch:
      if (what_ != nullptr) {
        m << "shape ";
        m.dims_with_infer(lhs_.span())
            << " cannot hold " << length_ << " elements: " << length_ << " is not a multiple of "
            << index_ << ", the product of the other sizes";
      } else {
        m << length_ << " elements do not match shape ";
        m.dims(lhs_.span()) << " (" << detail::checked_numel_or_zero(lhs_.span()) << " elements)";
      }
      break;
    case ShapeErrorKind::size_overflow:
      m << "the element count, a stride or the offset of shape ";
      m.dims(lhs_.span()) << " overflows";
      break;
    case ShapeErrorKind::rank_too_large:
      m << "rank " << rank_ << " exceeds the maximum rank " << max_rank;
      break;
    case ShapeErrorKind::rank_mismatch:
      if (what_ != nullptr)
        m << "needs rank " << length_ << ", got rank " << rank_;
      else
        m << length_ << " entries given for a tensor of rank " << rank_;
      break;
    case ShapeErrorKind::axis_out_of_range:
      m << "axis " << axis_ << " is out of range for rank " << rank_ << " (shape ";
      m.dims(lhs_.span()) << ")";
      break;
    case ShapeErrorKind::duplicate_axis:
      m << "axis " << axis_ << " appears more than once in ";
      m.dims(rhs_.span());
      break;
    case ShapeErrorKind::index_out_of_range:
      if (what_ == nullptr)
        m << "index " << index_;
      else if (index_ > static_cast<std::size_t>(-1) - length_)
        m << "range starting at " << index_ << " with length " << length_ << " overflows and";
      else
        m << "range [" << index_ << ", " << index_ + length_ << ")";
      m << " is out of bounds for axis " << axis_ << " of size " << axis_size << " (shape ";
      m.dims(lhs_.span()) << ")";
      detail::append_negative_index_hint(m, index_, axis_size,
                                         what_ == nullptr ? "index" : "start");
      break;
    case ShapeErrorKind::non_contiguous_reshape:
      m << "shape ";
      m.dims(lhs_.span()) << " has no zero-copy view as ";
      m.dims(rhs_.span()) << " with its strides; call contiguous() first";
      break;
    case ShapeErrorKind::broadcast_incompatible:
      m << "shape ";
      m.dims(lhs_.span()) << " cannot be broadcast with ";
      m.dims(rhs_.span());
      break;
    case ShapeErrorKind::invalid_argument:
      if (axis_context_) {
        m << "axis " << axis_ << " of size " << axis_size << " (shape ";
        m.dims(lhs_.span()) << "): ";
      }
      m << (what_ != nullptr ? what_ : "invalid argument");
      break;
    case ShapeErrorKind::storage_out_of_bounds:
      m << "a layout of shape ";
      if (what_ != nullptr)
        m.dims(lhs_.span()) << " reaches below storage index 0 (buffer length " << length_ << ")";
      else
        m.dims(lhs_.span()) << " reaches storage index " << index_
                            << ", outside the buffer of length " << length_;
      break;
    case ShapeErrorKind::allocation_failed:
      if (what_ != nullptr)
        m << "out of memory";
      else
        m << "could not allocate a buffer of " << length_ << " elements";
      break;
    default:
      m << "unknown error";
  }
  return std::move(m).take();
}

}  // namespace strided

template <>
struct std::is_error_code_enum<strided::ShapeErrorKind> : std::true_type {};

#include "strided/data_error.hpp"  // DataError, the batch errors (kept reachable from here)
