// ShapeErrorKind and the details of a ShapeError: one aggregate per kind (and per form of a kind)
// with named fields, the message text it reads as written beside it. ShapeError
// (strided/error.hpp) holds exactly one of them; ShapeError::get_if<P>() reads it.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

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
  memory_overlap,              ///< a destination overlaps its source or itself
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
    case ShapeErrorKind::memory_overlap:
      return "memory_overlap";
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

// The size of axis `axis` of `shape`, 0 when there is no such axis.
constexpr std::size_t axis_size_or_zero(const Shape& shape, std::size_t axis) noexcept {
  return axis < shape.size() ? shape[axis] : 0;
}

}  // namespace detail

/// The details each ShapeError kind carries; `describe(m, details)` appends the message text
/// after `op: `.
namespace shape_errors {

/// An error built from its kind alone (ShapeError(kind, op)); its message is the kind's name
/// in words, e.g. "invalid argument".
struct NoDetails {};

/// `elements` values were given for `shape`.
struct ElementCountMismatch {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::element_count_mismatch;  ///< its kind
  std::size_t elements;  ///< the number of values given
  Shape shape;           ///< the shape they were given for
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const ElementCountMismatch& e) {
  m << e.elements << " elements do not match shape ";
  m.dims(e.shape.span()) << " (" << detail::checked_numel_or_zero(e.shape.span()) << " elements)";
}

/// `shape` (one size strided::infer, shown as written) cannot hold `numel` elements: `numel` is
/// not a multiple of `others`, the product of the other sizes.
struct InferMismatch {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::element_count_mismatch;  ///< its kind
  std::size_t numel;   ///< the element count to hold
  std::size_t others;  ///< the product of the sizes other than the inferred one
  Shape shape;         ///< the shape as written, strided::infer included
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const InferMismatch& e) {
  m << "shape ";
  m.dims_with_infer(e.shape.span())
      << " cannot hold " << e.numel << " elements: " << e.numel << " is not a multiple of "
      << e.others << ", the product of the other sizes";
}

/// The element count, a stride or the offset of `shape` overflows.
struct SizeOverflow {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::size_overflow;  ///< its kind
  Shape shape;  ///< the shape whose layout overflows
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const SizeOverflow& e) {
  m << "the element count, a stride or the offset of shape ";
  m.dims(e.shape.span()) << " overflows";
}

/// A layout of rank `rank` was asked for, above strided::max_rank.
struct RankTooLarge {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::rank_too_large;  ///< its kind
  std::size_t rank;                                                       ///< the rank asked for
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const RankTooLarge& e) {
  m << "rank " << e.rank << " exceeds the maximum rank " << max_rank;
}

/// `entries` axes or indices were given to a tensor of rank `rank`.
struct RankMismatch {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::rank_mismatch;  ///< its kind
  std::size_t rank;                                                      ///< the tensor's rank
  std::size_t entries;  ///< the number of axes or indices given
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const RankMismatch& e) {
  m << e.entries << " entries given for a tensor of rank " << e.rank;
}

/// The operation needs a tensor of rank `required`; it got one of rank `rank`.
struct RankRequired {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::rank_mismatch;  ///< its kind
  std::size_t rank;                                                      ///< the tensor's rank
  std::size_t required;  ///< the rank the operation needs
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const RankRequired& e) {
  m << "needs rank " << e.required << ", got rank " << e.rank;
}

/// Axis `axis` is not an axis of `shape`.
struct AxisOutOfRange {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::axis_out_of_range;  ///< its kind
  std::size_t axis;                                                          ///< the axis given
  Shape shape;  ///< the operand's shape
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const AxisOutOfRange& e) {
  m << "axis " << e.axis << " is out of range for rank " << e.shape.size() << " (shape ";
  m.dims(e.shape.span()) << ")";
}

/// Axis `axis` appears more than once in the list of axes `axes`.
struct DuplicateAxis {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::duplicate_axis;  ///< its kind
  std::size_t axis;  ///< the first axis found twice
  Shape axes;        ///< the list of axes given
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const DuplicateAxis& e) {
  m << "axis " << e.axis << " appears more than once in ";
  m.dims(e.axes.span());
}

/// Index `index` is not inside axis `axis` of `shape`.
struct IndexOutOfRange {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::index_out_of_range;  ///< its kind
  std::size_t axis;                                                           ///< the axis indexed
  std::size_t index;                                                          ///< the index given
  Shape shape;  ///< the operand's shape
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const IndexOutOfRange& e) {
  const std::size_t size = detail::axis_size_or_zero(e.shape, e.axis);
  m << "index " << e.index << " is out of bounds for axis " << e.axis << " of size " << size
    << " (shape ";
  m.dims(e.shape.span()) << ")";
  detail::append_negative_index_hint(m, e.index, size, "index");
}

/// The range [start, start + length) is not inside axis `axis` of `shape`.
struct RangeOutOfRange {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::index_out_of_range;  ///< its kind
  std::size_t axis;                                                           ///< the axis narrowed
  std::size_t start;   ///< the first index of the range
  std::size_t length;  ///< the number of indices in the range
  Shape shape;         ///< the operand's shape
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const RangeOutOfRange& e) {
  const std::size_t size = detail::axis_size_or_zero(e.shape, e.axis);
  if (e.start > SIZE_MAX - e.length)
    m << "range starting at " << e.start << " with length " << e.length << " overflows and";
  else
    m << "range [" << e.start << ", " << e.start + e.length << ")";
  m << " is out of bounds for axis " << e.axis << " of size " << size << " (shape ";
  m.dims(e.shape.span()) << ")";
  detail::append_negative_index_hint(m, e.start, size, "start");
}

/// `shape` with its strides has no zero-copy view as `target`.
struct NonContiguousReshape {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::non_contiguous_reshape;  ///< its kind
  Shape shape;   ///< the operand's shape
  Shape target;  ///< the shape asked for
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const NonContiguousReshape& e) {
  m << "shape ";
  m.dims(e.shape.span()) << " has no zero-copy view as ";
  m.dims(e.target.span()) << " with its strides; call contiguous() first";
}

/// `shape` does not broadcast with `target` (the shape asked for, or the other operand's).
struct BroadcastIncompatible {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::broadcast_incompatible;  ///< its kind
  Shape shape;   ///< the operand's shape
  Shape target;  ///< the shape asked for, or the other operand's
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const BroadcastIncompatible& e) {
  m << "shape ";
  m.dims(e.shape.span()) << " cannot be broadcast with ";
  m.dims(e.target.span());
}

/// An argument outside its domain; `what` (a string literal) names the broken requirement, e.g.
/// "step must not be zero".
struct InvalidArgument {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::invalid_argument;  ///< its kind
  const char* what;  ///< a string literal naming the broken requirement
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const InvalidArgument& e) {
  m << (e.what != nullptr ? e.what : "invalid argument");
}

/// An argument about axis `axis` of `shape` outside its domain; `what` as for InvalidArgument.
struct InvalidAxisArgument {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::invalid_argument;  ///< its kind
  std::size_t axis;  ///< the axis the argument is about
  Shape shape;       ///< the operand's shape
  const char* what;  ///< a string literal naming the broken requirement
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const InvalidAxisArgument& e) {
  m << "axis " << e.axis << " of size " << detail::axis_size_or_zero(e.shape, e.axis) << " (shape ";
  m.dims(e.shape.span()) << "): " << e.what;
}

/// A layout of `shape` reaches storage index `index`, outside a buffer of `storage_len` elements.
struct StorageOutOfBounds {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::storage_out_of_bounds;  ///< its kind
  std::size_t index;        ///< the storage index reached
  std::size_t storage_len;  ///< the buffer's length in elements
  Shape shape;              ///< the layout's shape
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const StorageOutOfBounds& e) {
  m << "a layout of shape ";
  m.dims(e.shape.span()) << " reaches storage index " << e.index
                         << ", outside the buffer of length " << e.storage_len;
}

/// A layout of `shape` reaches below storage index 0 of a buffer of `storage_len` elements.
struct StorageBelowZero {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::storage_out_of_bounds;  ///< its kind
  std::size_t storage_len;  ///< the buffer's length in elements
  Shape shape;              ///< the layout's shape
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const StorageBelowZero& e) {
  m << "a layout of shape ";
  m.dims(e.shape.span()) << " reaches below storage index 0 (buffer length " << e.storage_len
                         << ")";
}

/// A buffer of `elements` elements could not be allocated.
struct AllocationFailed {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::allocation_failed;  ///< its kind
  std::size_t elements;  ///< the element count of the buffer
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const AllocationFailed& e) {
  m << "could not allocate a buffer of " << e.elements << " elements";
}

/// Memory other than an element buffer ran out: a shape of more than 8 axes, the vector of
/// split/chunk/unbind, the context of an error.
struct OutOfMemory {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::allocation_failed;  ///< its kind
};
/// Appends the message text of out_of_memory (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const OutOfMemory&) { m << "out of memory"; }

/// A write into caller memory whose destination overlaps the memory it reads, or a destination
/// that reaches one element from two indices (a zero stride on an axis of size > 1, ...).
struct MemoryOverlap {
  static constexpr ShapeErrorKind kind = ShapeErrorKind::memory_overlap;  ///< its kind
  bool within_destination;  ///< the destination overlaps itself (no source involved)
};
/// Appends the message text of `e` (after `op: `).
[[gnu::cold]] inline void describe(MessageText& m, const MemoryOverlap& e) {
  if (e.within_destination)
    m << "the destination overlaps itself (two indices reach one element)";
  else
    m << "the source and the destination overlap in memory";
}

}  // namespace shape_errors

}  // namespace strided
