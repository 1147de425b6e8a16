// ShapeError, the error of layout and construction: its kind, its operation and its details (one
// aggregate per kind, in strided/shape_error_details.hpp with the kinds), and the std::error_code
// category "strided.shape". strided/error.hpp gives it together with DataError, the batch errors.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>

#include "strided/detail/message_text.hpp"
#include "strided/shape.hpp"
#include "strided/shape_error_details.hpp"

namespace strided {

namespace detail {

/// The position of `T` in `Ts...`, or sizeof...(Ts) when the list does not hold it.
template <class T, class... Ts>
constexpr unsigned char type_index() noexcept {
  constexpr bool same[] = {std::is_same_v<T, Ts>...};
  unsigned char i = 0;
  while (i < sizeof...(Ts) && !same[i]) ++i;
  return i;
}

}  // namespace detail

/// The error of every shape or layout operation: its kind, the operation that raised it and its
/// details, one of the aggregates of namespace shape_errors, whose fields are named for what
/// they hold (get_if<P>() reads them; visit(f) calls f with whichever they are). No accessor
/// changes meaning with the kind. A literal type (no std::string member) so that layout algebra
/// stays constexpr; message() builds the text on demand.
class ShapeError {
  template <class P>
  static constexpr unsigned char tag_of = detail::type_index<
      P, shape_errors::NoDetails, shape_errors::ElementCountMismatch, shape_errors::InferMismatch,
      shape_errors::SizeOverflow, shape_errors::RankTooLarge, shape_errors::RankMismatch,
      shape_errors::RankRequired, shape_errors::AxisOutOfRange, shape_errors::DuplicateAxis,
      shape_errors::IndexOutOfRange, shape_errors::RangeOutOfRange,
      shape_errors::NonContiguousReshape, shape_errors::BroadcastIncompatible,
      shape_errors::InvalidArgument, shape_errors::InvalidAxisArgument,
      shape_errors::StorageOutOfBounds, shape_errors::StorageBelowZero,
      shape_errors::AllocationFailed, shape_errors::OutOfMemory, shape_errors::MemoryOverlap>();
  static constexpr unsigned char tag_count = tag_of<void>;
  template <class P>
  static constexpr bool is_details =
      tag_of<P> < tag_count && !std::is_same_v<P, shape_errors::NoDetails>;

  // One member per shape_errors aggregate; tag_ says which is alive.
  union Details {
    shape_errors::NoDetails no_details;
    shape_errors::ElementCountMismatch element_count_mismatch;
    shape_errors::InferMismatch infer_mismatch;
    shape_errors::SizeOverflow size_overflow;
    shape_errors::RankTooLarge rank_too_large;
    shape_errors::RankMismatch rank_mismatch;
    shape_errors::RankRequired rank_required;
    shape_errors::AxisOutOfRange axis_out_of_range;
    shape_errors::DuplicateAxis duplicate_axis;
    shape_errors::IndexOutOfRange index_out_of_range;
    shape_errors::RangeOutOfRange range_out_of_range;
    shape_errors::NonContiguousReshape non_contiguous_reshape;
    shape_errors::BroadcastIncompatible broadcast_incompatible;
    shape_errors::InvalidArgument invalid_argument;
    shape_errors::InvalidAxisArgument invalid_axis_argument;
    shape_errors::StorageOutOfBounds storage_out_of_bounds;
    shape_errors::StorageBelowZero storage_below_zero;
    shape_errors::AllocationFailed allocation_failed;
    shape_errors::OutOfMemory out_of_memory;
    shape_errors::MemoryOverlap memory_overlap;

    constexpr Details() noexcept : no_details() {}
    constexpr Details(shape_errors::NoDetails d) noexcept : no_details(d) {}
    constexpr Details(shape_errors::ElementCountMismatch d) noexcept
        : element_count_mismatch(std::move(d)) {}
    constexpr Details(shape_errors::InferMismatch d) noexcept : infer_mismatch(std::move(d)) {}
    constexpr Details(shape_errors::SizeOverflow d) noexcept : size_overflow(std::move(d)) {}
    constexpr Details(shape_errors::RankTooLarge d) noexcept : rank_too_large(d) {}
    constexpr Details(shape_errors::RankMismatch d) noexcept : rank_mismatch(d) {}
    constexpr Details(shape_errors::RankRequired d) noexcept : rank_required(d) {}
    constexpr Details(shape_errors::AxisOutOfRange d) noexcept : axis_out_of_range(std::move(d)) {}
    constexpr Details(shape_errors::DuplicateAxis d) noexcept : duplicate_axis(std::move(d)) {}
    constexpr Details(shape_errors::IndexOutOfRange d) noexcept
        : index_out_of_range(std::move(d)) {}
    constexpr Details(shape_errors::RangeOutOfRange d) noexcept
        : range_out_of_range(std::move(d)) {}
    constexpr Details(shape_errors::NonContiguousReshape d) noexcept
        : non_contiguous_reshape(std::move(d)) {}
    constexpr Details(shape_errors::BroadcastIncompatible d) noexcept
        : broadcast_incompatible(std::move(d)) {}
    constexpr Details(shape_errors::InvalidArgument d) noexcept : invalid_argument(d) {}
    constexpr Details(shape_errors::InvalidAxisArgument d) noexcept
        : invalid_axis_argument(std::move(d)) {}
    constexpr Details(shape_errors::StorageOutOfBounds d) noexcept
        : storage_out_of_bounds(std::move(d)) {}
    constexpr Details(shape_errors::StorageBelowZero d) noexcept
        : storage_below_zero(std::move(d)) {}
    constexpr Details(shape_errors::AllocationFailed d) noexcept : allocation_failed(d) {}
    constexpr Details(shape_errors::OutOfMemory d) noexcept : out_of_memory(d) {}
    constexpr Details(shape_errors::MemoryOverlap d) noexcept : memory_overlap(d) {}
    constexpr ~Details() {}  // ShapeError destroys the member tag_ names
  };

  // The one switch over the details, for a const or a mutable ShapeError.
  template <class Self, class F>
  static constexpr decltype(auto) visit_details(Self& self, F&& f) {
    auto& d = self.details_;
    using namespace shape_errors;
    switch (self.tag_) {
      case tag_of<ElementCountMismatch>:
        return f(d.element_count_mismatch);
      case tag_of<InferMismatch>:
        return f(d.infer_mismatch);
      case tag_of<SizeOverflow>:
        return f(d.size_overflow);
      case tag_of<RankTooLarge>:
        return f(d.rank_too_large);
      case tag_of<RankMismatch>:
        return f(d.rank_mismatch);
      case tag_of<RankRequired>:
        return f(d.rank_required);
      case tag_of<AxisOutOfRange>:
        return f(d.axis_out_of_range);
      case tag_of<DuplicateAxis>:
        return f(d.duplicate_axis);
      case tag_of<IndexOutOfRange>:
        return f(d.index_out_of_range);
      case tag_of<RangeOutOfRange>:
        return f(d.range_out_of_range);
      case tag_of<NonContiguousReshape>:
        return f(d.non_contiguous_reshape);
      case tag_of<BroadcastIncompatible>:
        return f(d.broadcast_incompatible);
      case tag_of<InvalidArgument>:
        return f(d.invalid_argument);
      case tag_of<InvalidAxisArgument>:
        return f(d.invalid_axis_argument);
      case tag_of<StorageOutOfBounds>:
        return f(d.storage_out_of_bounds);
      case tag_of<StorageBelowZero>:
        return f(d.storage_below_zero);
      case tag_of<AllocationFailed>:
        return f(d.allocation_failed);
      case tag_of<OutOfMemory>:
        return f(d.out_of_memory);
      case tag_of<MemoryOverlap>:
        return f(d.memory_overlap);
      default:
        return f(d.no_details);
    }
  }
  constexpr void destroy_details() noexcept {
    visit_details(*this, [](auto& d) { std::destroy_at(&d); });
  }
  static constexpr Details copy_of(const ShapeError& other) {
    return visit_details(other, [](const auto& d) { return Details(d); });
  }
  static constexpr Details move_of(ShapeError& other) noexcept {
    return visit_details(other, [](auto& d) { return Details(std::move(d)); });
  }
  constexpr void move_assign(ShapeError& other) noexcept {
    destroy_details();
    op_ = other.op_;
    kind_ = other.kind_;
    tag_ = other.tag_;
    visit_details(other, [this](auto& d) { std::construct_at(&details_, std::move(d)); });
  }
  // The same at run time, out of line (in libstrided in the compiled mode): errors are moved
  // and destroyed wherever a Result is, and the switch over every kind, inlined at each of those
  // places, would cost every translation unit its compile time for code that rarely runs.
  [[gnu::cold]] STRIDED_FUNC static Details copy_of_out_of_line(const ShapeError& other);
  [[gnu::cold]] STRIDED_FUNC static Details move_of_out_of_line(ShapeError& other) noexcept;
  [[gnu::cold]] STRIDED_FUNC void move_assign_out_of_line(ShapeError& other) noexcept;
  [[gnu::cold]] STRIDED_FUNC void destroy_details_out_of_line() noexcept;

 public:
  /// An error of `kind` raised by `op` (a string literal), without details.
  constexpr ShapeError(ShapeErrorKind kind, const char* op) noexcept
      : op_(op), kind_(kind), tag_(tag_of<shape_errors::NoDetails>) {}
  /// An error raised by `op` with `details` (one of the shape_errors aggregates); the kind is
  /// theirs.
  template <class P>
  requires is_details<P>
  constexpr ShapeError(const char* op, P details)
      : op_(op), kind_(P::kind), tag_(tag_of<P>), details_(std::move(details)) {}

  /// @name Copies and moves, which carry the details (constexpr, as the rest)
  ///@{

  /// Copies `other`, its details included.
  constexpr ShapeError(const ShapeError& other)
      : op_(other.op_),
        kind_(other.kind_),
        tag_(other.tag_),
        details_(std::is_constant_evaluated() ? copy_of(other) : copy_of_out_of_line(other)) {}
  constexpr ShapeError(ShapeError&& other) noexcept
      : op_(other.op_),
        kind_(other.kind_),
        tag_(other.tag_),
        details_(std::is_constant_evaluated() ? move_of(other) : move_of_out_of_line(other)) {}
  constexpr ShapeError& operator=(const ShapeError& other) {
    if (this != &other) *this = ShapeError(other);
    return *this;
  }
  constexpr ShapeError& operator=(ShapeError&& other) noexcept {
    if (this == &other) return *this;
    if (std::is_constant_evaluated())
      move_assign(other);
    else
      move_assign_out_of_line(other);
    return *this;
  }
  constexpr ~ShapeError() {
    if (std::is_constant_evaluated())
      destroy_details();
    else
      destroy_details_out_of_line();
  }

  ///@}

  /// @name Named constructors: `op` first, then the axis and indices, then the shapes
  ///@{

  /// Each builds the details of the same name in shape_errors, raised by `op`.
  static constexpr ShapeError element_count_mismatch(const char* op, std::size_t elements,
                                                     const Shape& shape) {
    return {op, shape_errors::ElementCountMismatch{elements, shape}};
  }
  /// Kind element_count_mismatch: `shape` is the shape as the caller wrote it (one size
  /// strided::infer), so the message never shows a size nobody asked for.
  static constexpr ShapeError infer_mismatch(const char* op, std::size_t numel, std::size_t others,
                                             const Shape& shape) {
    return {op, shape_errors::InferMismatch{numel, others, shape}};
  }
  static constexpr ShapeError size_overflow(const char* op, const Shape& shape) {
    return {op, shape_errors::SizeOverflow{shape}};
  }
  static constexpr ShapeError rank_too_large(const char* op, std::size_t rank) {
    return {op, shape_errors::RankTooLarge{rank}};
  }
  /// `entries` axes or indices were given to a tensor of rank `rank`.
  static constexpr ShapeError rank_mismatch(const char* op, std::size_t rank, std::size_t entries) {
    return {op, shape_errors::RankMismatch{rank, entries}};
  }
  /// Kind rank_mismatch: the operation needs rank `required`; the tensor has rank `rank`.
  static constexpr ShapeError rank_required(const char* op, std::size_t rank,
                                            std::size_t required) {
    return {op, shape_errors::RankRequired{rank, required}};
  }
  static constexpr ShapeError axis_out_of_range(const char* op, std::size_t axis,
                                                const Shape& shape) {
    return {op, shape_errors::AxisOutOfRange{axis, shape}};
  }
  static constexpr ShapeError duplicate_axis(const char* op, std::size_t axis, const Shape& axes) {
    return {op, shape_errors::DuplicateAxis{axis, axes}};
  }
  static constexpr ShapeError index_out_of_range(const char* op, std::size_t axis,
                                                 std::size_t index, const Shape& shape) {
    return {op, shape_errors::IndexOutOfRange{axis, index, shape}};
  }
  /// Kind index_out_of_range: [start, start + length) is not inside axis `axis` of `shape`.
  static constexpr ShapeError range_out_of_range(const char* op, std::size_t axis,
                                                 std::size_t start, std::size_t length,
                                                 const Shape& shape) {
    return {op, shape_errors::RangeOutOfRange{axis, start, length, shape}};
  }
  static constexpr ShapeError non_contiguous_reshape(const char* op, const Shape& shape,
                                                     const Shape& target) {
    return {op, shape_errors::NonContiguousReshape{shape, target}};
  }
  static constexpr ShapeError broadcast_incompatible(const char* op, const Shape& shape,
                                                     const Shape& target) {
    return {op, shape_errors::BroadcastIncompatible{shape, target}};
  }
  /// `what` is a string literal naming the broken requirement, e.g. "step must not be zero".
  static constexpr ShapeError invalid_argument(const char* op, const char* what) {
    return {op, shape_errors::InvalidArgument{what}};
  }
  /// Kind invalid_argument about axis `axis` of `shape`, e.g. "squeeze: axis 0 of size 4 (shape
  /// [4, 2]): only an axis of size 1 can be squeezed".
  static constexpr ShapeError invalid_axis_argument(const char* op, std::size_t axis,
                                                    const Shape& shape, const char* what) {
    return {op, shape_errors::InvalidAxisArgument{axis, shape, what}};
  }
  static constexpr ShapeError storage_out_of_bounds(const char* op, std::size_t index,
                                                    std::size_t storage_len, const Shape& shape) {
    return {op, shape_errors::StorageOutOfBounds{index, storage_len, shape}};
  }
  /// Kind storage_out_of_bounds: a layout of `shape` reaches below storage index 0.
  static constexpr ShapeError storage_below_zero(const char* op, std::size_t storage_len,
                                                 const Shape& shape) {
    return {op, shape_errors::StorageBelowZero{storage_len, shape}};
  }
  static constexpr ShapeError allocation_failed(const char* op, std::size_t elements) {
    return {op, shape_errors::AllocationFailed{elements}};
  }
  /// Kind allocation_failed for memory other than an element buffer.
  static constexpr ShapeError out_of_memory(const char* op) {
    return {op, shape_errors::OutOfMemory{}};
  }
  /// Kind memory_overlap: a destination overlaps the memory the operation reads.
  static constexpr ShapeError memory_overlap(const char* op) {
    return {op, shape_errors::MemoryOverlap{false}};
  }
  /// Kind memory_overlap: a destination reaches one element from two indices.
  static constexpr ShapeError self_overlap(const char* op) {
    return {op, shape_errors::MemoryOverlap{true}};
  }

  ///@}

  /// The same error reported under another operation's name (a factory re-labelling the error
  /// of the layout it builds).
  constexpr ShapeError in(const char* op) const& {
    ShapeError e = *this;
    e.op_ = op;
    return e;
  }
  /// in() without a copy of the details, which could allocate (shapes of more than 8 axes).
  constexpr ShapeError in(const char* op) && noexcept {
    ShapeError e = std::move(*this);
    e.op_ = op;
    return e;
  }

  /// What went wrong.
  constexpr ShapeErrorKind kind() const noexcept { return kind_; }
  /// The operation that failed, e.g. "narrow".
  constexpr const char* op() const noexcept { return op_; }

  /// The details if they are a `P` (e.g. shape_errors::IndexOutOfRange), else nullptr.
  template <class P>
  requires(tag_of<P> < tag_count) constexpr const P* get_if() const noexcept {
    const P* out = nullptr;
    visit([&out](const auto& d) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(d)>, P>) out = &d;
    });
    return out;
  }
  /// Calls `f` with the details (a const reference to one shape_errors aggregate); returns its
  /// result.
  template <class F>
  constexpr decltype(auto) visit(F&& f) const {
    return visit_details(*this, std::forward<F>(f));
  }

  /// The kind as a std::error_code in the "strided.shape" category.
  std::error_code code() const noexcept;
  /// One lower-case line naming the operation and the values: `op: ` + description().
  STRIDED_FUNC std::string message() const;
  /// The message without its `op: ` prefix, for a caller that names the operation itself.
  STRIDED_FUNC std::string description() const;

 private:
  const char* op_;
  ShapeErrorKind kind_;
  unsigned char tag_;  // tag_of the member of details_ that is alive
  Details details_;
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

}  // namespace strided

template <>
struct std::is_error_code_enum<strided::ShapeErrorKind> : std::true_type {};

#if STRIDED_HEADER_ONLY
#include "strided/shape_error-inl.hpp"
#endif
