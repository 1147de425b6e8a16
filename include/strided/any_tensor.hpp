// AnyTensor: a tensor whose element type is a runtime DType. It holds a Tensor<T> of one of the
// 13 built-in types (never a copy: the buffer is shared), takes its views from ViewOps (each
// built in the typed tensor's layout), and prints like PyTorch's str(t) including the
// `dtype=torch.X` suffix. User element types stay Tensor<T>-only: a DType names the built-in
// types alone.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "strided/detail/allocation_guard.hpp"
#include "strided/dtype.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"
#include "strided/tensor.hpp"
#include "strided/view_ops.hpp"

namespace strided {

namespace detail {
template <class List>
struct any_tensor_variant;
template <class... Ts>
struct any_tensor_variant<type_list<Ts...>> {
  using type = std::variant<Tensor<Ts>...>;  // alternative i holds the type of DType i
};
}  // namespace detail

class AnyTensor;

namespace detail {
/// A typed result as an AnyTensor result, for any error type: the one body of every dispatch
/// over the dtypes (members here, npy, DLPack and safetensors loaders). A lambda, not a function
/// template: clang (14-16) does not emit a function template called only from the generic
/// lambdas of AnyTensor's members. (`A` is AnyTensor, a parameter so that the body waits until
/// the class is complete.)
inline constexpr auto lift_any =
    []<class T, class E, class A = AnyTensor>(Result<Tensor<T>, E> r) -> Result<A, E> {
  if (!r) return std::move(r).error();
  return A(std::move(*r));
};
}  // namespace detail

/// A Tensor<T> whose T is known only at run time, as a DType. Copies share the buffer.
// Every member and free function that dispatches over the dtypes is a template (`template <class
// = void>`, or `std::type_identity_t<A>` parameters that keep implicit conversions): a non-template
// body is instantiated for all 13 dtypes (169 casts) in every translation unit that includes this
// header, called or not, a cost every includer's compile would pay.
class AnyTensor : public ViewOps<AnyTensor>, public BroadcastOps<AnyTensor> {
  // f(the held tensor) for the non-template members: a fold over the alternatives, which costs
  // every includer's compile less than std::visit's dispatch tables or visit_dtype's lambdas.
  // f returns a pointer or a value (never void).
  template <class F>
  auto on_held(F f) const noexcept {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      decltype(f(*std::get_if<0>(&v_))) out{};
      (void)((v_.index() == I && (out = f(*std::get_if<I>(&v_)), true)) || ...);
      return out;
    }
    (std::make_index_sequence<std::variant_size_v<Variant>>{});
  }

 public:
  /// Holds `t` (no copy of its elements). Implicit, so that a Tensor<T> passes where an
  /// AnyTensor is expected.
  template <BuiltinElement T>
  AnyTensor(Tensor<T> t) noexcept
      : v_(std::in_place_type<Tensor<T>>, std::move(t)) {}  // NOLINT(google-explicit-constructor)

  /// @name Filled tensors of a runtime dtype (as Tensor<T>::zeros / ones)
  ///@{

  /// Every element 0 (ones: 1).
  template <class = void>
  static Result<AnyTensor> zeros(DType dtype, const Shape& shape) {
    return visit_dtype(dtype, [&]<class T>(std::type_identity<T>) -> Result<AnyTensor> {
      return detail::lift_any(Tensor<T>::zeros(shape));
    });
  }
  template <class = void>
  static Result<AnyTensor> ones(DType dtype, const Shape& shape) {
    return visit_dtype(dtype, [&]<class T>(std::type_identity<T>) -> Result<AnyTensor> {
      return detail::lift_any(Tensor<T>::ones(shape));
    });
  }
  ///@}

  /// The element type held.
  DType dtype() const noexcept { return static_cast<DType>(v_.index()); }
  /// Bytes per element.
  std::size_t element_size() const noexcept { return dtype_size(dtype()); }

  /// @name Structure (as Tensor<T>)
  ///@{

  /// The layout (shape(), strides(), offset(), rank(), numel(), empty(), is_contiguous():
  /// its parts; storage_len(): the buffer's length in elements).
  const Layout& layout() const noexcept {
    return *on_held([](const auto& t) { return &t.layout(); });
  }
  const Shape& shape() const noexcept { return layout().shape(); }
  const Strides& strides() const noexcept { return layout().strides(); }
  std::size_t offset() const noexcept { return layout().offset(); }
  std::size_t rank() const noexcept { return layout().rank(); }
  std::size_t numel() const noexcept { return layout().numel(); }
  bool empty() const noexcept { return layout().empty(); }
  bool is_contiguous() const noexcept { return layout().is_contiguous(); }
  std::size_t storage_len() const noexcept {
    return on_held([](const auto& t) { return t.storage_len(); });
  }
  /// The shared buffer, untyped (for interop; never written through).
  std::shared_ptr<const void> storage() const noexcept {
    return on_held([](const auto& t) { return std::shared_ptr<const void>(t.storage()); });
  }
  /// True when both tensors view the same buffer.
  bool shares_storage_with(const AnyTensor& other) const noexcept {
    const auto mine = storage();
    return mine != nullptr && mine == other.storage();
  }
  ///@}

  /// @name Typed access
  ///@{

  /// True when the tensor holds T.
  template <BuiltinElement T>
  bool holds() const noexcept {
    return std::holds_alternative<Tensor<T>>(v_);
  }
  /// The typed tensor (sharing the buffer), or a DTypeError naming both dtypes when it holds
  /// another type. No conversion: use cast() for that.
  template <BuiltinElement T>
  Result<Tensor<T>, DTypeError> as() const {
    if (const auto* t = std::get_if<Tensor<T>>(&v_)) return *t;
    return DTypeError("as", dtype_of<T>, dtype());
  }
  /// Calls `f(const Tensor<T>&)` with the typed tensor and returns its result (every
  /// instantiation must return the same type).
  template <class F>
  decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), v_);
  }
  ///@}

  /// @name Materialisation and casts
  ///@{

  /// `*this` when contiguous (same buffer), else a row-major copy. Throws std::bad_alloc
  /// (try_contiguous() reports it as a value).
  template <class = void>
  AnyTensor contiguous() const {
    return std::visit([](const auto& t) { return AnyTensor(t.contiguous()); }, v_);
  }
  /// contiguous() as a Result: allocation_failed instead of std::bad_alloc.
  template <class = void>
  Result<AnyTensor> try_contiguous() const {
    return std::visit([](const auto& t) { return detail::lift_any(t.try_contiguous()); }, v_);
  }
  /// A new contiguous tensor of `to`, every element converted as Tensor<T>::cast<U>() does.
  template <class = void>
  Result<AnyTensor> cast(DType to) const {
    return std::visit(
        [&]<class T>(const Tensor<T>& t) {
          return visit_dtype(to, [&]<class U>(std::type_identity<U>) {
            return detail::lift_any(t.template cast<U>());
          });
        },
        v_);
  }
  /// The same bytes as elements of `to`, zero-copy, by the rules of Tensor<T>::bitcast<U>();
  /// to bool only from bool (invalid_argument otherwise).
  template <class = void>
  Result<AnyTensor> bitcast(DType to) const {
    return std::visit(
        [&]<class T>(const Tensor<T>& t) {
          return visit_dtype(to, [&]<class U>(std::type_identity<U>) -> Result<AnyTensor> {
            if constexpr (std::is_same_v<U, bool> && !std::is_same_v<T, bool>)
              return ShapeError::invalid_argument(
                  "bitcast", "a bitcast to bool is only from bool: use cast(DType::bool_)");
            else
              return detail::lift_any(t.template bitcast<U>());
          });
        },
        v_);
  }
  ///@}

 private:
  using Variant = typename detail::any_tensor_variant<detail::builtin_element_types>::type;

  friend class ViewOps<AnyTensor>;
  friend class BroadcastOps<AnyTensor>;

  // The held tensor's layout, const or not: what Layout's view builders change in a copy.
  static constexpr auto layout_of = [](auto& a) -> auto& {
    return std::visit(
        [](auto& t) -> auto& { return std::remove_cvref_t<decltype(t)>::layout_of(t); }, a.v_);
  };

  // The same buffer seen through `layout` (ViewOps). A template: see the class comment.
  template <class = void>
  AnyTensor with_layout(Layout layout) const {
    return std::visit([&](const auto& t) { return AnyTensor(t.with_layout(std::move(layout))); },
                      v_);
  }

  Variant v_;
};

/// True when `a` and `b` hold the same dtype and shape and equal elements (as the typed equal).
/// Tensors of different dtypes are never equal: compare after cast() to mean value equality.
template <class A = AnyTensor>
bool equal(const std::type_identity_t<A>& a, const std::type_identity_t<A>& b) {
  if (a.dtype() != b.dtype()) return false;
  return a.visit([&]<class T>(const Tensor<T>& t) { return equal(t, *b.template as<T>()); });
}

/// The typed allclose for two tensors of the same dtype; different dtypes are not close.
template <class A = AnyTensor>
bool allclose(const std::type_identity_t<A>& a, const std::type_identity_t<A>& b,
              double rtol = 1e-5, double atol = 1e-8) {
  if (a.dtype() != b.dtype()) return false;
  return a.visit(
      [&]<class T>(const Tensor<T>& t) { return allclose(t, *b.template as<T>(), rtol, atol); });
}

namespace detail {

/// Whether PyTorch's str(t) names the dtype: always for an empty tensor unless it has the
/// default float32 dtype; otherwise unless float32, int64 or bool (the dtypes values imply).
inline bool torch_prints_dtype(DType d, bool empty) noexcept {
  if (d == DType::f32) return false;
  return empty || (d != DType::i64 && d != DType::bool_);
}

/// PyTorch's _add_suffixes: `text` is str(t) without its closing ')'; a suffix that would pass
/// the line width goes on a new line indented under the opening parenthesis.
inline std::string add_torch_suffix(std::string text, std::string_view suffix,
                                    std::size_t linewidth) {
  constexpr std::size_t indent = 7;  // strlen("tensor(")
  const std::size_t newline = text.rfind('\n');
  // PyTorch computes len(s) - s.rfind("\n") + 1, which is len(s) + 2 without a newline.
  const std::size_t last_line =
      newline == std::string::npos ? text.size() + 2 : text.size() - newline + 1;
  if (last_line + suffix.size() + 2 > linewidth)
    text += ",\n" + std::string(indent, ' ');
  else
    text += ", ";
  text += suffix;
  text += ')';
  return text;
}

}  // namespace detail

/// PyTorch's str(t) under `options`, with the `dtype=torch.X` suffix PyTorch prints for
/// non-default dtypes (`tensor([1, 2], dtype=torch.int32)`). An empty tensor keeps strided's
/// `tensor([], shape=[2, 0])` form, plus the suffix.
template <class A = AnyTensor>
std::string display(const std::type_identity_t<A>& t, const PrintOptions& options) {
  std::string text = t.visit([&](const auto& typed) { return display(typed, options); });
  if (!detail::torch_prints_dtype(t.dtype(), t.empty())) return text;
  text.pop_back();  // the closing ')'
  const std::string suffix = "dtype=" + std::string(dtype_info(t.dtype()).torch_name);
  return detail::add_torch_suffix(std::move(text), suffix, options.linewidth);
}

/// display(t, PrintOptions{}).
template <class A = AnyTensor>
std::string to_string(const std::type_identity_t<A>& t) {
  return display<A>(t, PrintOptions{});
}

/// `AnyTensor { dtype: i32, shape: ... }`: the typed Debug form with the dtype first.
template <class A = AnyTensor>
std::string to_debug_string(const std::type_identity_t<A>& t, bool pretty = false) {
  std::string typed = t.visit([&](const auto& x) { return to_debug_string(x, pretty); });
  const std::string head = "Tensor {";
  const std::string field = std::string("dtype: ") + std::string(to_string(t.dtype())) + ",";
  return "AnyTensor {" + std::string(pretty ? "\n    " : " ") + field + typed.substr(head.size());
}

/// Writes to_string(t).
template <class A = AnyTensor>
std::ostream& operator<<(std::ostream& os, const std::type_identity_t<A>& t) {
  return os << std::string_view(to_string<A>(t));
}

}  // namespace strided
