// ViewOps and BroadcastOps: the view operations of every class that holds a Layout (Tensor<T>,
// AnyTensor), written once. Without them each op was written again per class: the Layout member,
// the Tensor method and an AnyTensor forwarder, kept in step by hand. A class inherits the
// methods here and supplies one way to wrap a layout (see ViewOps).
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <type_traits>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided {

namespace detail {

template <class X>
inline constexpr bool is_result_v = false;
template <class T, class E>
inline constexpr bool is_result_v<Result<T, E>> = true;

/// `a` and `b` broadcast to their common shape: BroadcastOps::broadcast_with.
template <class X>
Result<std::pair<X, X>> broadcast_pair(const X& a, const X& b) {
  // The reference promises broadcast_incompatible from broadcast_with whichever step fails (a
  // common shape whose strides overflow included); only exhausted memory stays itself.
  const auto incompatible = [&](const ShapeError& e) {
    return e.kind() == ShapeErrorKind::allocation_failed
               ? e.in("broadcast_with")
               : ShapeError::broadcast_incompatible("broadcast_with", a.shape(), b.shape());
  };
  auto common = broadcast_shape(a.shape(), b.shape());
  if (!common) return incompatible(common.error());
  auto x = a.broadcast_to(*common);
  if (!x) return incompatible(x.error());
  auto y = b.broadcast_to(*common);
  if (!y) return incompatible(y.error());
  return std::pair<X, X>(std::move(*x), std::move(*y));
}

}  // namespace detail

/// The view operations of a class `Derived` that holds a Layout, written once for every such class
/// (`Tensor<T>` and `AnyTensor` inherit them). Each computes the new layout with Layout's algebra
/// and wraps it as a `Derived`; the errors are Layout's, named after the op called.
///
/// `Derived` provides, to this class (a friend may keep them private):
/// - `const Layout& layout() const` and `std::size_t storage_len() const` (for as_strided);
/// - `with_layout(Layout) const`: the same data seen through another layout. It returns either
///   `Derived`, or `Result<Derived>` for a class that refuses some layouts (its error is the op's);
/// - when with_layout returns `Derived`: `static constexpr auto layout_of`, a callable that gives
///   the layout of a `Derived&` and of a `const Derived&` by reference. The view is then built
///   inside a copy of the object, where the result is returned, which costs about one copy.
///
/// The broadcasting views (broadcast_to, broadcast_with) are in BroadcastOps, for a class whose
/// elements must stay distinct (a writable view) to leave out.
template <class Derived>
class ViewOps {
 public:
  /// Swaps axes d0 and d1.
  Result<Derived> transpose(std::size_t d0, std::size_t d1) const {
    return changed("transpose", [&](Layout& l) { return l.transpose_in_place(d0, d1); });
  }
  /// Transpose of a rank-2 view; rank_mismatch otherwise.
  Result<Derived> transpose_2d() const {
    if (self().layout().rank() != 2)
      return ShapeError::rank_required("transpose_2d", self().layout().rank(), 2);
    return transpose(0, 1);
  }
  /// Output axis k is input axis perm[k] (ONNX Transpose convention).
  Result<Derived> permute(const Shape& perm) const {
    if constexpr (builds_in_copy())
      return Layout::permute_of(self(), Derived::layout_of, perm);
    else
      return changed("permute", [&](Layout& l) { return l.permute_in_place(perm); });
  }
  /// Keeps [start, start + length) of axis `dim`.
  Result<Derived> narrow(std::size_t dim, std::size_t start, std::size_t length) const {
    return changed("narrow", [&](Layout& l) { return l.narrow_in_place(dim, start, length); });
  }
  /// A zero-copy view under `new_shape` (one size may be `strided::infer`), or
  /// non_contiguous_reshape when none exists (NumPy's no-copy reshape, PyTorch's view()).
  Result<Derived> reshape(const Shape& new_shape) const {
    if constexpr (builds_in_copy())
      return Layout::reshape_of(self(), Derived::layout_of, new_shape);
    else
      return changed("reshape", [&](Layout& l) { return l.reshape_in_place(new_shape); });
  }
  /// Python's `t[start:stop:step]` along `dim`: negative bounds count from the end, bounds clamp,
  /// a negative step walks backwards, `strided::slice_end` is an omitted bound; step 0 is
  /// invalid_argument.
  Result<Derived> slice(std::size_t dim, std::ptrdiff_t start,
                        std::ptrdiff_t stop = strided::slice_end, std::ptrdiff_t step = 1) const {
    return changed("slice", [&](Layout& l) { return l.slice_in_place(dim, start, stop, step); });
  }
  /// Reverses axis `dim` (a negative stride; no copy).
  Result<Derived> flip(std::size_t dim) const {
    return changed("flip", [&](Layout& l) { return l.flip_in_place(dim); });
  }
  /// Reverses each axis in `dims` (each at most once: duplicate_axis otherwise).
  Result<Derived> flip(const Shape& dims) const {
    return changed("flip", [&](Layout& l) { return l.flip_in_place(dims); });
  }
  /// Removes every axis of size 1.
  Result<Derived> squeeze() const {
    return changed("squeeze", [](Layout& l) { return l.squeeze_in_place(); });
  }
  /// Removes axis `dim`; invalid_argument unless its size is 1.
  Result<Derived> squeeze(std::size_t dim) const {
    return changed("squeeze", [&](Layout& l) { return l.squeeze_in_place(dim); });
  }
  /// Inserts an axis of size 1 at position `dim` (0 <= dim <= rank).
  Result<Derived> unsqueeze(std::size_t dim) const {
    return built(
        "unsqueeze", [&](Layout& l) { return l.unsqueeze_plain(dim); },
        [&](Layout& l) { return l.unsqueeze_in_place(dim); });
  }
  /// The sub-view at `index` along `dim`, without that axis (NumPy's integer index).
  Result<Derived> select(std::size_t dim, std::size_t index) const {
    return changed("select", [&](Layout& l) { return l.select_in_place(dim, index); });
  }
  /// Merges axes first..last (inclusive) into one; non_contiguous_reshape when no view exists.
  Result<Derived> flatten(std::size_t first, std::size_t last) const {
    return changed("flatten", [&](Layout& l) { return l.flatten_in_place(first, last); });
  }
  /// All axes merged into one (a rank-0 view gives shape [1]).
  Result<Derived> flatten() const {
    const std::size_t rank = self().layout().rank();
    return flatten(0, rank == 0 ? 0 : rank - 1);
  }
  /// Splits axis `dim` into `sizes` (one may be `strided::infer`).
  Result<Derived> unflatten(std::size_t dim, const Shape& sizes) const {
    if constexpr (builds_in_copy())
      return Layout::unflatten_of(self(), Derived::layout_of, dim, sizes);
    else
      return changed("unflatten", [&](Layout& l) { return l.unflatten_in_place(dim, sizes); });
  }
  /// Moves axis `src` to position `dst`, keeping the order of the others.
  Result<Derived> movedim(std::size_t src, std::size_t dst) const {
    return changed("movedim", [&](Layout& l) { return l.movedim_in_place(src, dst); });
  }
  /// The diagonal of axes d0, d1 (offset > 0: above the main diagonal, < 0: below) as a new last
  /// axis; d0 and d1 are removed.
  Result<Derived> diagonal(std::ptrdiff_t offset = 0, std::size_t d0 = 0,
                           std::size_t d1 = 1) const {
    if constexpr (builds_in_copy())
      return Layout::diagonal_of(self(), Derived::layout_of, offset, d0, d1);
    else
      return changed("diagonal", [&](Layout& l) { return l.diagonal_in_place(offset, d0, d1); });
  }
  /// Pieces of `size` along `dim`, the last one shorter when `size` does not divide the axis.
  Result<std::vector<Derived>> split(std::size_t dim, std::size_t size) const {
    return pieces("split", self().layout().split(dim, size));
  }
  /// At most `n` equal pieces along `dim` (PyTorch's chunk).
  Result<std::vector<Derived>> chunk(std::size_t dim, std::size_t n) const {
    return pieces("chunk", self().layout().chunk(dim, n));
  }
  /// Every index of `dim` selected in turn.
  Result<std::vector<Derived>> unbind(std::size_t dim) const {
    return pieces("unbind", self().layout().unbind(dim));
  }
  /// Any layout over the same buffer (offset counted from the buffer start, like offset()).
  /// Checked: overflow is size_overflow, reaching outside the buffer storage_out_of_bounds.
  Result<Derived> as_strided(const Shape& shape, const Strides& strides, std::size_t offset) const {
    return detail::guard_allocations("as_strided", [&]() -> Result<Derived> {
      auto layout = Layout::from_parts(shape, strides, offset, "as_strided");
      if (!layout) return std::move(layout).error();
      if (auto fits = layout->check_storage(self().storage_len(), "as_strided"); !fits)
        return fits.error();
      return wrap("as_strided", std::move(*layout));
    });
  }

 protected:
  ViewOps() = default;  // only as a base

  /// The derived object.
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }

  /// `layout` wrapped as a Derived, the error of a Result-returning with_layout named after `op`.
  Result<Derived> wrap(const char* op, Layout layout) const {
    if constexpr (detail::is_result_v<decltype(self().with_layout(std::move(layout)))>) {
      auto made = self().with_layout(std::move(layout));
      if (!made) return std::move(made).error().in(op);
      return made;
    } else {
      return self().with_layout(std::move(layout));
    }
  }

 private:
  // A function, not a constant: Derived is incomplete where this class is instantiated.
  static constexpr bool builds_in_copy() {
    return !detail::is_result_v<decltype(std::declval<const Derived&>().with_layout(Layout()))>;
  }

  /// A view whose layout is this one changed by `change` (a Layout::*_in_place member).
  template <class Change>
  Result<Derived> changed(const char* op, Change&& change) const {
    if constexpr (builds_in_copy()) {
      return detail::changed_copy(op, self(), Derived::layout_of, std::forward<Change>(change));
    } else {
      return detail::guard_allocations(op, [&]() -> Result<Derived> {
        Layout layout = self().layout();
        if (auto done = change(layout); !done) return std::move(done).error();
        return wrap(op, std::move(layout));
      });
    }
  }

  /// changed() for an op with a common case `plain`, a Layout::*_plain member that changes the
  /// layout of the copy without allocating or building an error, or declines (false) with it
  /// unchanged: it runs outside the allocation guard, as Layout::permute_of's common case does.
  template <class Plain, class Change>
  Result<Derived> built(const char* op, Plain&& plain, Change&& change) const {
    if constexpr (builds_in_copy())
      return detail::built_copy(
          op, self(), Derived::layout_of, [&](Layout& out, const Layout&) { return plain(out); },
          std::forward<Change>(change));
    else
      return changed(op, std::forward<Change>(change));
  }

  Result<std::vector<Derived>> pieces(const char* op, Result<std::vector<Layout>> layouts) const {
    return detail::guard_allocations(op, [&]() -> Result<std::vector<Derived>> {
      if (!layouts) return std::move(layouts).error();
      std::vector<Derived> out;
      out.reserve(layouts->size());
      for (Layout& layout : *layouts) {
        auto piece = wrap(op, std::move(layout));
        if (!piece) return std::move(piece).error();
        out.push_back(std::move(*piece));
      }
      return out;
    });
  }
};

/// The broadcasting views of a class that has ViewOps: they give several indices one element
/// (stride 0), which a class of writable views leaves out by not inheriting this one.
template <class Derived>
class BroadcastOps {
 public:
  /// NumPy broadcasting to `target`: right-aligned; stretched size-1 axes and new leading axes get
  /// stride 0. A target of lower rank, or a size that is neither equal nor stretched from 1, is
  /// broadcast_incompatible.
  Result<Derived> broadcast_to(const Shape& target) const {
    if constexpr (detail::is_result_v<decltype(self().with_layout(Layout()))>) {
      return detail::guard_allocations("broadcast_to", [&]() -> Result<Derived> {
        auto layout = self().layout().broadcast_to(target);
        if (!layout) return std::move(layout).error();
        auto made = self().with_layout(std::move(*layout));
        if (!made) return std::move(made).error().in("broadcast_to");
        return made;
      });
    } else {
      return Layout::broadcast_to_of(self(), Derived::layout_of, target);
    }
  }
  /// Both views broadcast to their common shape (broadcast_incompatible when there is none).
  Result<std::pair<Derived, Derived>> broadcast_with(const Derived& other) const {
    return detail::guard_allocations("broadcast_with",
                                     [&]() -> Result<std::pair<Derived, Derived>> {
                                       return detail::broadcast_pair(self(), other);
                                     });
  }

 protected:
  BroadcastOps() = default;  // only as a base

 private:
  const Derived& self() const noexcept { return static_cast<const Derived&>(*this); }
};

}  // namespace strided
