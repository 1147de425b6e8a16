// reshape and broadcast_to, the views that compute every stride anew: the definitions of their
// Layout members (declared in strided/layout_class.hpp; strided/layout.hpp includes all),
// and broadcast_shape. Each op's common case (reshape_from, broadcast_from) runs first, without
// allocating or building an error; its general path, out of line, handles every other case and
// reports every error.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/layout_math.hpp"
#include "strided/error.hpp"
#include "strided/layout_class.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

constexpr Result<Layout> Layout::reshape(const Shape& requested) const {
  return reshape_of(*this, itself, requested);
}

constexpr Result<Layout> Layout::reshape_exact(const Shape& new_shape) const {
  return derived("reshape", [&](Layout& l) { return l.reshape_exact_in_place(new_shape); });
}

constexpr Result<Layout> Layout::broadcast_to(const Shape& target) const {
  return broadcast_to_of(*this, itself, target);
}

constexpr Result<void> Layout::reshape_in_place(const Shape& requested) {
  if (rebuilt([&](const Layout& old) { return reshape_from(old, requested); })) return {};
  return detail::guard_allocations_cold("reshape", [&]() -> Result<void> {
    if (std::find(requested.begin(), requested.end(), infer) == requested.end())
      return reshape_general(requested);  // without copying the shape
    auto resolved = detail::resolve_infer(requested, numel(), "reshape");
    if (!resolved) return std::move(resolved).error();
    return reshape_exact_in_place(*resolved);
  });
}

constexpr Result<void> Layout::reshape_exact_in_place(const Shape& new_shape) {
  if (rebuilt([&](const Layout& old) { return reshape_from(old, new_shape); })) return {};
  return detail::guard_allocations_cold(
      "reshape", [&]() -> Result<void> { return reshape_general(new_shape); });
}

constexpr bool Layout::reshape_from(const Layout& from, const Shape& new_shape) {
  const std::size_t n = from.rank(), m = new_shape.size();
  // Every vector holds inline_rank entries without allocating: a bound that, unlike this copy's
  // capacities, is known without waiting for the copy's stores.
  if (m > inline_rank) return false;
  // Row-major: each stride is the next axis's stride times its size, the last 1. Compared
  // modulo 2^64, which decides exactly: in a valid layout with elements each product is at
  // most its reach plus one stride, so none wraps; in one without, the count is 0 either way
  // and the general path makes the same row-major strides.
  const std::size_t* old_sizes = from.shape_.data();
  const std::ptrdiff_t* old_steps = from.strides_.data();
  std::size_t old_n = 1;
  if (n != 0) {
    if (old_steps[n - 1] != 1) return false;
    for (std::size_t k = 0; k + 1 < n; ++k)
      if (static_cast<std::size_t>(old_steps[k]) !=
          static_cast<std::size_t>(old_steps[k + 1]) * old_sizes[k + 1])
        return false;
    old_n = old_sizes[0] * static_cast<std::size_t>(old_steps[0]);
  }
  // Written where they go, within the capacity: resize would zero the new strides first, and
  // copying new_shape whole afterwards would store every size a second time.
  shape_.resize_for_overwrite(m);
  strides_.resize_for_overwrite(m);
  std::size_t* sizes = shape_.data();
  std::ptrdiff_t* steps = strides_.data();
  const std::size_t* to = new_shape.data();
  // The products are bounded (sizes_below_bits) by a check the chain of products does not wait
  // on, as it would on each one's overflow flag. Shapes past the bound (and infer) go to the
  // general path; so do ranks past 63, which the bound rejects, so none above max_rank gets
  // through. Entry k is read before it is written, so new_shape may be this layout's own shape.
  std::size_t step = 1, any_bits = 0;
  for (std::size_t k = m; k-- > 0;) {
    const std::size_t size = to[k];
    sizes[k] = size;
    steps[k] = static_cast<std::ptrdiff_t>(step);
    step *= size;  // wraps only past the bound, when the result is not used
    any_bits |= size;
  }
  return detail::sizes_below_bits(any_bits, m, std::numeric_limits<std::ptrdiff_t>::digits) &&
         step == old_n;
}

constexpr Result<void> Layout::reshape_general(const Shape& new_shape) {
  if (new_shape.size() > max_rank) return ShapeError::rank_too_large("reshape", new_shape.size());
  const auto n = detail::checked_numel(new_shape);
  if (!n) return ShapeError::size_overflow("reshape", new_shape);
  // The common case, a row-major layout, is recognised without a chain of products.
  const auto row_major_n = detail::row_major_numel(shape_, strides_);
  const std::size_t old_n = row_major_n ? *row_major_n : numel();
  if (*n != old_n) return ShapeError::element_count_mismatch("reshape", old_n, new_shape);
  // Row-major data stays row-major (and 0 or 1 element has no order to preserve).
  const bool row_major = *n <= 1 || row_major_n || is_contiguous();
  // Sizes >= 1 multiplying to at most PTRDIFF_MAX give strides that fit; otherwise check.
  const bool may_overflow = *n == 0 || *n > static_cast<std::size_t>(detail::max_index);
  if (row_major && may_overflow &&
      !detail::row_major_steps(new_shape, [](std::size_t, std::ptrdiff_t) {}))
    return ShapeError::size_overflow("reshape", new_shape);
  if (!row_major) return reshape_strided(new_shape);
  shape_.reserve(new_shape.size());  // the only steps that can throw, before any change
  strides_.reserve(new_shape.size());
  shape_ = new_shape;
  strides_.resize(rank());  // written in place: a temporary would be reloaded just after
  detail::row_major_steps(shape_, [&](std::size_t k, std::ptrdiff_t step) { strides_[k] = step; });
  return {};
}

constexpr Result<void> Layout::reshape_strided(const Shape& new_shape) {
  std::optional<Strides> strides = view_strides(new_shape);
  if (!strides) return ShapeError::non_contiguous_reshape("reshape", shape_, new_shape);
  shape_ = new_shape;  // may throw (rank > 8) before the strides change
  strides_ = std::move(*strides);
  return {};
}

constexpr std::optional<Strides> Layout::view_strides(const Shape& new_shape) const {
  Strides out(new_shape.size(), 0);
  std::ptrdiff_t view_d = static_cast<std::ptrdiff_t>(new_shape.size()) - 1;
  std::ptrdiff_t chunk_stride = strides_.back();
  std::size_t tensor_numel = 1, view_numel = 1;
  for (std::size_t d = rank(); d-- > 0;) {
    tensor_numel *= shape_[d];
    std::ptrdiff_t merged = 0;  // the stride axis d-1 needs to merge with the chunk
    const bool chunk_ends =
        d == 0 ||
        (shape_[d - 1] != 1 && (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(tensor_numel),
                                                       chunk_stride, &merged) ||
                                strides_[d - 1] != merged));
    if (!chunk_ends) continue;
    while (view_d >= 0 &&
           (view_numel < tensor_numel || new_shape[static_cast<std::size_t>(view_d)] == 1)) {
      std::ptrdiff_t stride = 0;
      if (__builtin_mul_overflow(static_cast<std::ptrdiff_t>(view_numel), chunk_stride, &stride))
        return std::nullopt;
      out[static_cast<std::size_t>(view_d)] = stride;
      view_numel *= new_shape[static_cast<std::size_t>(view_d)];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (d > 0) {
      chunk_stride = strides_[d - 1];
      tensor_numel = 1;
      view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

constexpr bool Layout::broadcast_from(const Layout& from, const Shape& target) noexcept {
  const std::size_t n = from.rank(), m = target.size();
  if (m < n || m > shape_.capacity() || m > strides_.capacity()) return false;
  const std::size_t lead = m - n;  // new leading axes, NumPy's right alignment
  shape_.resize_for_overwrite(m);  // within the capacity; every entry is written below
  strides_.resize_for_overwrite(m);
  const std::size_t *to = target.data(), *old_sizes = from.shape_.data();
  const std::ptrdiff_t* old_steps = from.strides_.data();
  std::size_t* sizes = shape_.data();
  std::ptrdiff_t* steps = strides_.data();
  // The count's bound, not the product: a chain of dependent multiplications would take longer
  // than the rest of the op. Targets past the bound go to the general path, which takes the
  // exact count.
  std::size_t any_bits = 0;
  for (std::size_t k = 0; k < lead; ++k) {
    any_bits |= to[k];
    sizes[k] = to[k];
    steps[k] = 0;
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t size = old_sizes[k], wanted = to[lead + k];
    any_bits |= wanted;
    if (size == wanted && size != 1) {  // kept: the copy holds it already when lead == 0
      if (lead != 0) {
        sizes[lead + k] = size;
        steps[lead + k] = old_steps[k];
      }
      continue;
    }
    if (size != 1) return false;
    sizes[lead + k] = wanted;  // stretched, or a size-1 axis kept: stride 0 either way
    steps[lead + k] = 0;
  }
  return detail::sizes_below_bits(any_bits, m, std::numeric_limits<std::size_t>::digits);
}

constexpr Result<void> Layout::broadcast_to_in_place(const Shape& target) {
  if (rebuilt([&](const Layout& old) { return broadcast_from(old, target); })) return {};
  return detail::guard_allocations_cold("broadcast_to", [&]() -> Result<void> {
    if (target.size() > max_rank) return ShapeError::rank_too_large("broadcast_to", target.size());
    if (target.size() < rank())
      return ShapeError::broadcast_incompatible("broadcast_to", shape_, target);
    if (!detail::checked_numel(target)) return ShapeError::size_overflow("broadcast_to", target);
    const std::size_t lead = target.size() - rank();
    for (std::size_t k = 0; k < rank(); ++k)
      if (shape_[k] != target[lead + k] && shape_[k] != 1)
        return ShapeError::broadcast_incompatible("broadcast_to", shape_, target);
    shape_.reserve(target.size());  // the only steps that can throw, before any change
    strides_.reserve(target.size());
    strides_.resize(target.size());
    // Axis k moves to lead + k: from the innermost, each entry is read before it is written.
    for (std::size_t k = rank(); k-- > 0;)
      strides_[lead + k] = shape_[k] == target[lead + k] && shape_[k] != 1 ? strides_[k] : 0;
    for (std::size_t k = 0; k < lead; ++k) strides_[k] = 0;
    shape_ = target;
    return {};
  });
}

/// The shape two shapes broadcast to (NumPy's rules), or broadcast_incompatible.
constexpr Result<Shape> broadcast_shape(const Shape& a, const Shape& b) {
  return detail::guard_allocations("broadcast_shape", [&]() -> Result<Shape> {
    const Shape& longer = a.size() >= b.size() ? a : b;
    const Shape& shorter = a.size() >= b.size() ? b : a;
    Shape out = longer;
    const std::size_t lead = longer.size() - shorter.size();
    for (std::size_t k = 0; k < shorter.size(); ++k) {
      const std::size_t x = longer[lead + k], y = shorter[k];
      if (x == y || y == 1) continue;
      if (x != 1) return ShapeError::broadcast_incompatible("broadcast_shape", a, b);
      out[lead + k] = y;
    }
    return out;
  });
}

}  // namespace strided
