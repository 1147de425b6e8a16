// Tensor<T>: a shared, immutable element buffer seen through a Layout. Views share the buffer;
// view algebra is delegated to Layout, copying to the copy engine, casting to the cast engine.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/detail/bitcast.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/cast.hpp"
#include "strided/detail/cast_strided.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/row_major.hpp"
#include "strided/detail/walk.hpp"
#include "strided/element.hpp"
#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/print.hpp"  // Display and Debug of a Tensor: to_string, operator<<, ...
#include "strided/result.hpp"
#include "strided/shape.hpp"
#include "strided/tensor_span.hpp"
#include "strided/values.hpp"
#include "strided/view_ops.hpp"

namespace strided {

namespace detail {
template <class>
inline constexpr bool always_false_v = false;  // a static_assert that fires only when instantiated
}  // namespace detail

/// Read access to a tensor's elements in row-major order: borrowed from the tensor's buffer when
/// it is contiguous, otherwise an owned, materialised copy (the reference document's Cow).
template <Element T>
class HostSlice {
 public:
  /// A view of `borrowed`, kept alive by `owner` (the tensor's buffer, or an owned copy).
  HostSlice(std::span<const T> borrowed, std::shared_ptr<const T> owner, bool is_borrowed)
      : span_(borrowed), owner_(std::move(owner)), borrowed_(is_borrowed) {}

  /// The elements in row-major order.
  std::span<const T> span() const noexcept { return span_; }
  /// True when the span points into the tensor's own buffer (no copy was made).
  bool is_borrowed() const noexcept { return borrowed_; }
  /// @name Range access to span()
  ///@{

  /// As the same members of std::span.
  std::size_t size() const noexcept { return span_.size(); }
  const T* data() const noexcept { return span_.data(); }
  const T& operator[](std::size_t i) const noexcept { return span_[i]; }
  const T* begin() const noexcept { return span_.data(); }
  const T* end() const noexcept { return span_.data() + span_.size(); }
  ///@}

 private:
  std::span<const T> span_;
  std::shared_ptr<const T> owner_;
  bool borrowed_;
};

/// An n-dimensional array: a shared, immutable buffer of `T` and a Layout into it. Copies share
/// the buffer; every view (transpose, permute, narrow, reshape, broadcast) is zero-copy. A tensor
/// never changes after construction, so tensors may be read and copied from any thread.
template <Element T>
class Tensor : public ViewOps<Tensor<T>>, public BroadcastOps<Tensor<T>> {
 public:
  using value_type = T;  ///< the element type

  /// Another handle on the same buffer, with a copy of the layout. Always inlined, as Layout's
  /// copy: each view op starts with one, and GCC otherwise calls it from some ops and not others.
  [[gnu::always_inline]] Tensor(const Tensor&) = default;
  /// Takes over the buffer handle and the layout.
  Tensor(Tensor&&) noexcept = default;
  /// Shares `other`'s buffer; the buffer this tensor held is released if it was the last handle.
  Tensor& operator=(const Tensor&) = default;
  /// Takes over `other`'s buffer handle and layout.
  Tensor& operator=(Tensor&&) noexcept = default;

  // ----- construction -------------------------------------------------------------------------

  /// Adopts `data` (no copy) as a row-major tensor of `shape`.
  static Result<Tensor> from_vector(std::vector<T> data, const Shape& shape) {
    // Nothing below throws but make_shared, whose std::bad_alloc is caught here: no guard needed.
    auto layout = detail::row_major_layout_for("from_vector", shape, data.size());
    if (!layout) return std::move(layout).error();
    const std::size_t len = data.size();
    if constexpr (std::is_same_v<T, bool>) {  // vector<bool> is packed: copy it out
      auto buffer = detail::try_allocate_buffer<T>(len);
      if (buffer == nullptr) return ShapeError::allocation_failed("from_vector", len);
      std::copy(data.begin(), data.end(), buffer.get());
      return Tensor(std::move(buffer), len, std::move(*layout));
    } else {
      std::shared_ptr<std::vector<T>> owner;
#if defined(__cpp_exceptions)
      try {
        owner = std::make_shared<std::vector<T>>(std::move(data));
      } catch (const std::bad_alloc&) {
        return ShapeError::allocation_failed("from_vector", len);
      }
#else
      owner = std::make_shared<std::vector<T>>(std::move(data));
#endif
      std::shared_ptr<const T> view(owner, owner->data());  // aliasing: owns the vector
      return Tensor(std::move(view), len, std::move(*layout));
    }
  }

  /// Copies `data` into a new row-major tensor of `shape`.
  static Result<Tensor> from_slice(std::span<const T> data, const Shape& shape) {
    return detail::guard_allocations("from_slice", [&]() -> Result<Tensor> {
      auto layout = detail::row_major_layout_for("from_slice", shape, data.size());
      if (!layout) return layout.error();
      auto made = allocate("from_slice", std::move(*layout));
      if (made && !data.empty()) std::memcpy(made->mutable_data(), data.data(), data.size_bytes());
      return made;
    });
  }

  /// @name Filled tensors: row-major, 64-byte aligned; size_overflow, rank_too_large or
  /// allocation_failed on failure
  ///@{

  /// Every element element_traits<T>::zero() (ones: one(); full: `value`).
  static Result<Tensor> zeros(const Shape& shape) {
    return full_impl("zeros", shape, element_traits<T>::zero());
  }
  static Result<Tensor> ones(const Shape& shape) {
    return full_impl("ones", shape, element_traits<T>::one());
  }
  static Result<Tensor> full(const Shape& shape, T value) {
    return full_impl("full", shape, value);
  }
  ///@}

  /// A rank-0 tensor holding `value`. Infallible but for std::bad_alloc; `full({}, value)` is
  /// the same tensor as a Result (allocation_failed instead of the exception).
  static Tensor scalar(T value) {
    auto buffer = detail::allocate_buffer<T>(1);
    buffer.get()[0] = value;
    return Tensor(std::move(buffer), 1, Layout());
  }

  /// Wraps external memory: `len` elements at `data`, seen through `layout`. The layout must stay
  /// inside the buffer (storage_out_of_bounds otherwise). `data` is kept alive by the tensor.
  static Result<Tensor> from_shared(std::shared_ptr<const T> data, std::size_t len, Layout layout) {
    auto fits = detail::check_buffer("from_shared", data == nullptr, len, layout);
    if (!fits) return std::move(fits).error();
    return Tensor(std::move(data), len, std::move(layout));
  }

  // ----- structure ----------------------------------------------------------------------------

  /// @name Structure (all from the layout; no allocation)
  ///@{

  /// Size of each axis (strides(): steps in elements; offset(): storage index of element
  /// [0, ..., 0]; rank(): number of axes; numel(): number of elements; layout(): all three).
  const Shape& shape() const noexcept { return layout_.shape(); }
  const Strides& strides() const noexcept { return layout_.strides(); }
  std::size_t offset() const noexcept { return layout_.offset(); }
  std::size_t rank() const noexcept { return layout_.rank(); }
  std::size_t numel() const noexcept { return layout_.numel(); }
  /// True when the tensor has no elements (some axis has size 0).
  bool empty() const noexcept { return layout_.empty(); }
  const Layout& layout() const noexcept { return layout_; }
  /// The shared buffer and its length in elements (for interop; never written through).
  const std::shared_ptr<const T>& storage() const noexcept { return data_; }
  /// The buffer's length in elements.
  std::size_t storage_len() const noexcept { return len_; }
  /// True when both tensors view the same buffer.
  bool shares_storage_with(const Tensor& other) const noexcept {
    return data_ != nullptr && data_ == other.data_;
  }
  /// Row-major contiguity, ignoring size-1 axes; true without elements.
  bool is_contiguous() const noexcept { return layout_.is_contiguous(); }
  ///@}

  // ----- element access -----------------------------------------------------------------------

  /// The element at `index`, or nullopt when the index has the wrong rank or is out of range.
  std::optional<T> get(const Shape& index) const noexcept {
    if (index.size() != rank()) return std::nullopt;
    for (std::size_t k = 0; k < index.size(); ++k)
      if (index[k] >= shape()[k]) return std::nullopt;
    return data_.get()[layout_.storage_index(index)];
  }

  /// The element at `index`, or an error that says why not: rank_mismatch for an index of the
  /// wrong length, index_out_of_range naming the axis, its size and the shape (get() gives only
  /// nullopt).
  Result<T> at(const Shape& index) const {
    if (index.size() != rank()) return ShapeError::rank_mismatch("at", rank(), index.size());
    for (std::size_t k = 0; k < index.size(); ++k)
      if (index[k] >= shape()[k]) return ShapeError::index_out_of_range("at", k, index[k], shape());
    return data_.get()[layout_.storage_index(index)];
  }

  /// The elements in row-major order, borrowed, when the tensor is contiguous.
  std::optional<std::span<const T>> as_slice() const noexcept {
    if (empty()) return std::span<const T>();
    if (!is_contiguous()) return std::nullopt;
    return std::span<const T>(data_.get() + offset(), numel());
  }

  /// Borrowed when contiguous, else materialised once (std::bad_alloc when that copy cannot be
  /// allocated; as_slice() borrows without allocating, copy_to copies into the caller's buffer).
  HostSlice<T> host_slice() const {
    // The borrowed form also holds the buffer, so the slice stays valid without the tensor.
    if (auto slice = as_slice()) return HostSlice<T>(*slice, data_, true);
    Tensor copy = contiguous();
    return HostSlice<T>(std::span<const T>(copy.data_.get(), copy.numel()), copy.data_, false);
  }

  /// The storage range [offset, offset + span) a view with non-negative strides covers,
  /// span = 1 + sum((size - 1) * stride). nullopt with any negative stride. Not in logical order:
  /// the caller reinterprets it with the layout.
  std::optional<std::span<const T>> as_view_slice() const noexcept {
    if (empty()) return std::span<const T>();
    for (std::ptrdiff_t s : strides())
      if (s < 0) return std::nullopt;
    const auto high = static_cast<std::size_t>(layout_.reach().high);
    if (offset() > len_ || high >= len_ - offset()) return std::nullopt;
    return std::span<const T>(data_.get() + offset(), high + 1);
  }

  // ----- views (zero-copy): ViewOps and BroadcastOps, in view_ops.hpp -------------------------

  /// Not provided: PyTorch's `view(shape)` is `reshape(shape)` here. Calling it stops the build
  /// with that advice (the default argument makes `t.view({6})` reach the assertion).
  template <class S = Shape>
  void view(const S& /*shape*/) const {
    static_assert(detail::always_false_v<S>,
                  "strided::Tensor has no view(shape): use reshape(shape), which is always a "
                  "zero-copy view (PyTorch's view()) or an error, never a copy");
  }

  /// The elements in row-major order as a random-access range of values (no copy of the buffer;
  /// the range shares it, so it may outlive the tensor).
  Values<T> values() const { return Values<T>(data_, layout_); }

  // ----- materialisation ----------------------------------------------------------------------

  /// `*this` when contiguous (same buffer), else a new row-major copy. Throws std::bad_alloc
  /// (try_contiguous() reports it as a value).
  Tensor contiguous() const {
    if (is_contiguous()) return *this;
    const std::size_t n = numel();
    auto buffer = detail::allocate_buffer<T>(n);
    copy_into(buffer.get());
    return Tensor(std::move(buffer), n, detail::row_major_layout(shape()).value());
  }

  /// contiguous() for code that must not throw: a buffer that cannot be allocated is the error
  /// allocation_failed, where contiguous() throws std::bad_alloc. (copy_to is the form that writes
  /// into the caller's buffer.)
  Result<Tensor> try_contiguous() const {
    return detail::guard_allocations("try_contiguous", [&]() -> Result<Tensor> {
      if (is_contiguous()) return *this;
      auto layout = detail::row_major_layout(shape());
      if (!layout) return std::move(layout).error();
      auto made = allocate("try_contiguous", std::move(*layout));
      if (made) copy_into(made->mutable_data());
      return made;
    });
  }

  /// Writes the elements in row-major order into `dst` (size must equal numel()).
  Result<void> copy_to(std::span<T> dst) const {
    return detail::guard_allocations("copy_to", [&]() -> Result<void> {
      if (dst.size() != numel())
        return ShapeError::element_count_mismatch("copy_to", dst.size(), shape());
      const detail::ByteExtent into{reinterpret_cast<std::uintptr_t>(dst.data()),
                                    reinterpret_cast<std::uintptr_t>(dst.data() + dst.size())};
      if (detail::extents_overlap(extent(layout_), into))
        return ShapeError::memory_overlap("copy_to");
      copy_into(dst.data());
      return {};
    });
  }

  /// Writes the elements into the strided destination `dst` (NumPy `np.copyto(dst, src)`,
  /// PyTorch `dst.copy_(src)`), broadcasting this tensor to dst's shape; through the copy engine,
  /// on every thread for large copies. Errors, before anything is written:
  /// broadcast_incompatible; memory_overlap when dst's memory extent meets this tensor's.
  Result<void> copy_to(TensorSpan<T> dst) const {
    return detail::guard_allocations("copy_to", [&]() -> Result<void> {
      auto src = source_for("copy_to", dst);
      if (!src) return std::move(src).error();
      if (dst.empty()) return {};
      detail::copy_strided({.shape = dst.shape(),
                            .src = reinterpret_cast<const std::byte*>(data_.get() + src->offset()),
                            .src_strides = src->strides(),
                            .dst = reinterpret_cast<std::byte*>(dst.data() + dst.offset()),
                            .dst_strides = dst.strides(),
                            .elem_size = sizeof(T)});
      return {};
    });
  }

  /// The elements in row-major order, in a new vector. Throws std::bad_alloc; copy_to writes
  /// them into the caller's buffer instead, reporting errors as values.
  std::vector<T> to_vector() const {
    if constexpr (std::is_same_v<T, bool>) {
      const Tensor dense = contiguous();
      const auto values = dense.as_slice().value();
      return std::vector<bool>(values.begin(), values.end());
    } else {
      std::vector<T> out(numel());
      copy_into(out.data());
      return out;
    }
  }

  // ----- casts --------------------------------------------------------------------------------

  /// A new contiguous tensor with every element converted by the exact rules of docs/casts.md
  /// ("Rules": truncating, saturating float->int; round-to-nearest-even narrowing; ...). Works on
  /// any view; casting to T itself gives a detached copy.
  template <Element U>
  Result<Tensor<U>> cast() const requires CastableTo<T, U> {
    return detail::guard_allocations("cast", [&]() -> Result<Tensor<U>> {
      // The row-major layout first: an empty tensor's shape may have no row-major strides that
      // fit (e.g. [0, 2^62, 2^62]); that is size_overflow, not a crash.
      auto layout = detail::row_major_layout(shape());
      if (!layout) return std::move(layout).error();
      const std::size_t n = numel();
      auto out = detail::try_allocate_buffer<U>(n);
      if (out == nullptr) return ShapeError::allocation_failed("cast", n);
      if (n != 0) {
        const T* src = data_.get() + offset();
        std::shared_ptr<T> dense;  // a view is materialised once, then converted
        if (!is_contiguous()) {
          dense = detail::try_allocate_buffer<T>(n);
          if (dense == nullptr) return ShapeError::allocation_failed("cast", n);
          copy_into(dense.get());
          src = dense.get();
        }
        detail::cast_elements<T, U>(src, out.get(), n);
      }
      return Tensor<U>(std::move(out), n, std::move(*layout));
    });
  }

  /// The same bytes as elements of type U, zero-copy (NumPy `t.view(dtype)`, PyTorch
  /// `t.view(dtype)`, C++ `std::bit_cast` per element); the result shares this buffer. Equal
  /// element sizes keep any layout. Different sizes need rank >= 1 and a last axis of stride 1,
  /// whose size scales by the size ratio (other strides and the offset too): growing needs the
  /// last size, the other strides and the offset divisible by the ratio. invalid_argument says
  /// which rule failed; size_overflow when the scaled layout overflows. A bitcast to bool is
  /// not provided from other types (a byte other than 0 or 1 is not a valid bool): use
  /// cast<bool>().
  template <Element U>
  Result<Tensor<U>> bitcast() const {
    static_assert(!std::is_same_v<U, bool> || std::is_same_v<T, bool>,
                  "bitcast<bool>() is not provided: a byte other than 0 or 1 is not a valid bool; "
                  "use cast<bool>()");
    return detail::guard_allocations("bitcast", [&]() -> Result<Tensor<U>> {
      auto view = detail::bitcast_layout(layout_, len_, sizeof(T), sizeof(U),
                                         reinterpret_cast<std::uintptr_t>(data_.get()), alignof(U));
      if (!view) return std::move(view).error();
      std::shared_ptr<const U> data(data_, reinterpret_cast<const U*>(data_.get()));  // aliasing
      return Tensor<U>(std::move(data), view->storage_len, std::move(view->layout));
    });
  }

  /// Converts every element into the strided destination `dst` by the rules of cast() (NumPy
  /// `np.copyto(dst, src, casting="unsafe")`, PyTorch `dst.copy_(src)`), broadcasting this tensor
  /// to dst's shape. A strided source is restaged in chunks through the element-wise engine's
  /// per-thread scratch (bounded; on the stack when it cannot be allocated), never copied whole;
  /// never fails for want of memory. Errors, before anything is written: broadcast_incompatible,
  /// memory_overlap.
  template <Element U>
  Result<void> cast_into(TensorSpan<U> dst) const requires CastableTo<T, U> {
    return detail::guard_allocations("cast_into", [&]() -> Result<void> {
      auto src = source_for("cast_into", dst);
      if (!src) return std::move(src).error();
      if (dst.empty()) return {};
      detail::cast_strided<T, U>(dst.shape(), data_.get() + src->offset(), src->strides(),
                                 src->is_contiguous(), dst.data() + dst.offset(), dst.strides());
      return {};
    });
  }
  /// cast_into a dense destination: the elements in row-major order (size must equal numel()).
  template <Element U>
  Result<void> cast_into(std::span<U> dst) const requires CastableTo<T, U> {
    return detail::guard_allocations("cast_into", [&]() -> Result<void> {
      if (dst.size() != numel())
        return ShapeError::element_count_mismatch("cast_into", dst.size(), shape());
      auto dense = TensorSpan<U>::dense(dst, shape());
      if (!dense) return std::move(dense).error().in("cast_into");
      return cast_into(*dense);
    });
  }

  /// cast<float>().
  Result<Tensor<float>> to_f32() const requires CastableTo<T, float> { return cast<float>(); }

 private:
  template <Element U>
  friend class Tensor;

  Tensor(std::shared_ptr<const T> data, std::size_t len, Layout layout) noexcept
      : data_(std::move(data)), len_(len), layout_(std::move(layout)) {}

  friend class ViewOps<Tensor>;
  friend class BroadcastOps<Tensor>;
  friend class AnyTensor;

  // A tensor's layout, const or not: what Layout's view builders change in a copy (ViewOps).
  static constexpr auto layout_of = [](auto& t) -> auto& { return t.layout_; };

  // The same buffer seen through `layout`, which the caller has checked against it (ViewOps).
  Tensor with_layout(Layout layout) const { return Tensor(data_, len_, std::move(layout)); }

  // The buffer of a tensor this class just allocated, before anyone else can see it.
  T* mutable_data() noexcept { return const_cast<T*>(data_.get()); }

  // A fresh buffer for a layout the caller has already checked.
  static Result<Tensor> allocate(const char* op, Layout layout) {
    const std::size_t len = layout.numel();
    auto buffer = detail::try_allocate_buffer<T>(len);
    if (buffer == nullptr) return ShapeError::allocation_failed(op, len);
    return Tensor(std::move(buffer), len, std::move(layout));
  }

  static Result<Tensor> full_impl(const char* op, const Shape& shape, T value) {
    return detail::guard_allocations(op, [&]() -> Result<Tensor> {
      auto layout = detail::row_major_layout(shape);
      if (!layout) return std::move(layout).error();
      auto made = allocate(op, std::move(*layout));
      if (made) std::fill_n(made->mutable_data(), made->numel(), value);
      return made;
    });
  }

  detail::ByteExtent extent(const Layout& layout) const {
    return detail::byte_extent(data_.get(), layout, sizeof(T));
  }

  // This tensor's layout broadcast to dst's shape, once dst is known not to overlap it: the
  // checks every write into a TensorSpan makes before it writes.
  template <Element U>
  Result<Layout> source_for(const char* op, const TensorSpan<U>& dst) const {
    auto src = layout_.broadcast_to(dst.shape());
    if (!src) {
      if (src.error().kind() == ShapeErrorKind::allocation_failed) return src.error().in(op);
      return ShapeError::broadcast_incompatible(op, shape(), dst.shape());
    }
    if (detail::extents_overlap(extent(*src),
                                detail::byte_extent(dst.data(), dst.layout(), sizeof(U))))
      return ShapeError::memory_overlap(op);
    return src;
  }

  void copy_into(T* dst) const {
    detail::copy_row_major(reinterpret_cast<const std::byte*>(data_.get()), layout_,
                           reinterpret_cast<std::byte*>(dst), sizeof(T));
  }

  std::shared_ptr<const T> data_;
  std::size_t len_ = 0;
  Layout layout_;
};

/// True when `a` and `b` have the same shape and equal elements, whatever their layouts.
/// Floating-point elements compare with `==` (NaN differs from everything, -0 equals +0).
template <Element T>
bool equal(const Tensor<T>& a, const Tensor<T>& b) {
  if (a.shape() != b.shape()) return false;
  const T* pa = a.storage().get();
  const T* pb = b.storage().get();
  return detail::for_each_storage_index_pair(
      a.layout(), b.layout(),
      [&](std::size_t i, std::size_t j) { return detail::elements_equal(pa[i], pb[j]); });
}

/// NumPy's allclose: after broadcasting `a` and `b` together, every |a - b| <= atol + rtol * |b|
/// (NaNs never close). Shapes that do not broadcast are not close.
template <Element T>
bool allclose(const Tensor<T>& a, const Tensor<T>& b, double rtol = 1e-5, double atol = 1e-8) {
  auto pair = a.broadcast_with(b);
  if (!pair) return false;
  const T* pa = a.storage().get();
  const T* pb = b.storage().get();
  return detail::for_each_storage_index_pair(
      pair->first.layout(), pair->second.layout(), [&](std::size_t i, std::size_t j) {
        const double x = detail::to_double(pa[i]), y = detail::to_double(pb[j]);
        if (x == y) return true;  // equal infinities, and exact matches
        return std::fabs(x - y) <= atol + rtol * std::fabs(y);
      });
}

}  // namespace strided
