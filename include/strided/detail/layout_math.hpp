// The arithmetic under Layout's invariants: element counts, reaches and row-major strides, each
// checked for overflow. No Layout here, only spans of sizes and strides.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <limits>
#include <optional>
#include <span>

#include "strided/shape.hpp"

namespace strided {

namespace detail {

inline constexpr auto max_index = std::numeric_limits<std::ptrdiff_t>::max();

/// Whether `count` sizes whose bitwise OR is `sizes_or` surely multiply to less than 2 to the
/// power `bits`: each size is below 2 to the power L, L the OR's bit length, so their product is
/// below 2 to the power L * count. A bound with no chain of dependent multiplications (nor a
/// branch for a size of 0, as std::bit_width has); false says only that the exact product must
/// decide.
constexpr bool sizes_below_bits(std::size_t sizes_or, std::size_t count, int bits) noexcept {
  const auto length = static_cast<std::size_t>(std::numeric_limits<unsigned long long>::digits -
                                               __builtin_clzll(sizes_or | 1));
  return length * count <= static_cast<std::size_t>(bits);
}

/// The product of the sizes, or nullopt when it overflows std::size_t.
constexpr std::optional<std::size_t> checked_numel(std::span<const std::size_t> shape) noexcept {
  std::size_t n = 1;
  bool overflow = false;
  for (std::size_t size : shape) {
    if (size == 0) return 0;  // no elements, whatever the order of the other sizes
    overflow |= __builtin_mul_overflow(n, size, &n);
  }
  if (overflow) return std::nullopt;
  return n;
}

/// The reach of shape/strides, or nullopt when a term overflows std::ptrdiff_t. Meaningful only
/// for layouts with elements.
constexpr std::optional<Reach> checked_reach(std::span<const std::size_t> shape,
                                             std::span<const std::ptrdiff_t> strides) noexcept {
  Reach r;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    if (shape[k] == 0) return Reach{};
    if (strides[k] == 0) continue;  // a broadcast axis of any size reaches nothing new
    std::ptrdiff_t last = 0;
    if (shape[k] - 1 > static_cast<std::size_t>(max_index)) return std::nullopt;
    if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(shape[k] - 1), strides[k], &last))
      return std::nullopt;
    std::ptrdiff_t& side = last < 0 ? r.low : r.high;
    if (__builtin_add_overflow(side, last, &side)) return std::nullopt;
  }
  return r;
}

/// Walks the row-major strides of `shape`, innermost first, calling store(axis, stride) for each;
/// false as soon as one overflows std::ptrdiff_t. Sizes multiply as they are: an axis of size 0
/// makes every outer stride 0, as in the reference document (such a layout reaches no element).
template <class Store>
constexpr bool row_major_steps(std::span<const std::size_t> shape, Store&& store) {
  std::ptrdiff_t step = 1;
  for (std::size_t k = shape.size(); k-- > 0;) {
    store(k, step);
    if (step == 0) continue;  // outside a size-0 axis every stride is 0, whatever the sizes
    if (shape[k] > static_cast<std::size_t>(max_index) ||
        __builtin_mul_overflow(step, static_cast<std::ptrdiff_t>(shape[k]), &step))
      return false;
  }
  return true;
}

/// The element count of a layout whose strides are exactly the row-major strides of its shape
/// (as Layout::contiguous builds them), or nullopt for any other layout. Each axis is compared
/// with its inner neighbour alone, so the products do not wait on each other.
/// Always inlined: called, GCC returns the optional through the stack, and the caller's 8-byte
/// load of the flag byte just stored cannot be forwarded from the store, a stall longer than the
/// function.
[[gnu::always_inline]] constexpr std::optional<std::size_t> row_major_numel(
    std::span<const std::size_t> shape, std::span<const std::ptrdiff_t> strides) {
  if (shape.empty()) return 1;
  bool row_major = strides.back() == 1;
  for (std::size_t k = 0; k + 1 < shape.size(); ++k) {
    std::ptrdiff_t inner = 0;
    row_major &= shape[k + 1] <= static_cast<std::size_t>(max_index) &&
                 !__builtin_mul_overflow(strides[k + 1], static_cast<std::ptrdiff_t>(shape[k + 1]),
                                         &inner) &&
                 inner == strides[k];
  }
  if (!row_major) return std::nullopt;
  // A valid layout reaches numel - 1 <= PTRDIFF_MAX, so this product fits.
  return shape[0] * static_cast<std::size_t>(strides[0]);
}

/// Row-major strides of `shape`, or nullopt when one overflows std::ptrdiff_t.
constexpr std::optional<Strides> row_major_strides(const Shape& shape) {
  Strides strides(shape.size(), 0);
  if (!row_major_steps(shape, [&](std::size_t k, std::ptrdiff_t step) { strides[k] = step; }))
    return std::nullopt;
  return strides;
}

}  // namespace detail

}  // namespace strided
