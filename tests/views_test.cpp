// Extended zero-copy views (slice with steps, flip, squeeze/unsqueeze, select, flatten/unflatten,
// movedim, diagonal, split/chunk/unbind, reshape with strided::infer, as_strided, values()):
// results, sharing, negative strides through the rest of the library, and every error each op
// can produce (kind and message).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <memory>
#include <numeric>
#include <ranges>
#include <sstream>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "strided/batch.hpp"
#include "strided/layout_views.hpp"
#include "strided/tensor.hpp"
#include "strided/values.hpp"
#include "support.hpp"

using strided::infer;
using strided::Layout;
using strided::Shape;
using strided::ShapeError;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;

namespace {

constexpr auto pmax = std::numeric_limits<std::ptrdiff_t>::max();
constexpr auto pmin = std::numeric_limits<std::ptrdiff_t>::min();

/// 0, 1, 2, ... as a row-major tensor of `shape`.
Tensor<int> iota(const Shape& shape) {
  std::vector<int> v(strided::detail::checked_numel(shape).value());
  std::iota(v.begin(), v.end(), 0);
  return Tensor<int>::from_vector(std::move(v), shape).value();
}

/// The elements in logical order, read three independent ways that must agree: values(), the
/// copy engine (to_vector) and get() at every index.
std::vector<int> elements(const Tensor<int>& t) {
  std::vector<int> by_range(t.values().begin(), t.values().end());
  std::vector<int> by_get;
  if (!t.empty()) {
    Shape index(t.rank(), 0);
    while (true) {
      by_get.push_back(t.get(index).value());
      std::size_t k = t.rank();
      while (k > 0 && ++index[k - 1] == t.shape()[k - 1]) index[--k] = 0;
      if (k == 0) break;
    }
  }
  const std::vector<int> by_copy = t.to_vector();
  REQUIRE(by_range == by_copy);
  REQUIRE(by_get == by_copy);
  return by_copy;
}

template <class T>
void require_error(const strided::Result<T>& r, ShapeErrorKind kind, const std::string& message) {
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == kind);
  CHECK(r.error().message() == message);
}

}  // namespace

TEST_CASE("slice: positive and negative steps, Python bounds") {
  const Tensor<int> t = iota({10});
  using V = std::vector<int>;
  CHECK(elements(t.slice(0, 2, 8, 3).value()) == V{2, 5});
  CHECK(elements(t.slice(0, -3).value()) == V{7, 8, 9});
  CHECK(elements(t.slice(0, 8, 2, -2).value()) == V{8, 6, 4});
  CHECK(elements(t.slice(0, strided::slice_end, strided::slice_end, -3).value()) == V{9, 6, 3, 0});
  CHECK(elements(t.slice(0, strided::slice_end, 3).value()) == V{0, 1, 2});
  CHECK(elements(t.slice(0, -100, 100, 4).value()) == V{0, 4, 8});
  CHECK(elements(t.slice(0, 100, -100, -4).value()) == V{9, 5, 1});
  CHECK(elements(t.slice(0, 3, 3).value()).empty());
  CHECK(elements(t.slice(0, 5, 2).value()).empty());
  CHECK(elements(t.slice(0, pmin + 1, pmax, pmax).value()) == V{0});
  CHECK(elements(t.slice(0, pmax, pmin + 1, pmin).value()) == V{9});

  const Tensor<int> r = t.slice(0, 8, 2, -2).value();
  CHECK(r.strides() == Strides{-2});
  CHECK(r.offset() == 8);
  CHECK(r.shares_storage_with(t));
}

TEST_CASE("slice: on a 3-d tensor keeps the other axes") {
  const Tensor<int> t = iota({2, 3, 4});
  const Tensor<int> s = t.slice(2, strided::slice_end, strided::slice_end, -2).value();
  CHECK(s.shape() == Shape{2, 3, 2});
  CHECK(s.strides() == Strides{12, 4, -2});
  CHECK(s.offset() == 3);
  CHECK(elements(s) == std::vector<int>{3, 1, 7, 5, 11, 9, 15, 13, 19, 17, 23, 21});
  // An empty slice of an empty tensor keeps an offset and reaches nothing.
  const Tensor<int> e = iota({0, 4}).slice(1, 1, 3).value();
  CHECK(e.shape() == Shape{0, 2});
  CHECK(elements(e).empty());
}

TEST_CASE("slice: errors") {
  const Tensor<int> t = iota({2, 3});
  require_error(t.slice(1, 0, 3, 0), ShapeErrorKind::invalid_argument,
                "slice: step must not be zero");
  require_error(t.slice(2, 0), ShapeErrorKind::axis_out_of_range,
                "slice: axis 2 is out of range for rank 2 (shape [2, 3])");
  // A stride of PTRDIFF_MIN cannot be the base of a reversed walk; only Layout can hold one.
  const Layout odd = Layout::from_parts({2}, {pmin}, 0).value();
  require_error(odd.slice(0, 1, strided::slice_end, 1), ShapeErrorKind::size_overflow,
                "slice: the element count, a stride or the offset of shape [2] overflows");
}

TEST_CASE("flip: negative strides, involution, every axis") {
  const Tensor<int> t = iota({2, 3});
  const Tensor<int> f = t.flip(1).value();
  CHECK(f.strides() == Strides{3, -1});
  CHECK(f.offset() == 2);
  CHECK(elements(f) == std::vector<int>{2, 1, 0, 5, 4, 3});
  const Tensor<int> ff = f.flip(1).value();
  CHECK(ff.layout().strides() == t.strides());
  CHECK(ff.offset() == 0);
  CHECK(strided::equal(ff, t));
  CHECK(elements(t.flip({0, 1}).value()) == std::vector<int>{5, 4, 3, 2, 1, 0});
  CHECK(elements(t.flip(Shape{}).value()) == elements(t));
  CHECK(elements(iota({0, 3}).flip({0, 1}).value()).empty());
  // Size-1 axes flip to themselves.
  CHECK(elements(iota({1, 3}).flip(0).value()) == std::vector<int>{0, 1, 2});
}

TEST_CASE("flip: errors") {
  const Tensor<int> t = iota({2, 3});
  require_error(t.flip(2), ShapeErrorKind::axis_out_of_range,
                "flip: axis 2 is out of range for rank 2 (shape [2, 3])");
  require_error(t.flip({0, 5}), ShapeErrorKind::axis_out_of_range,
                "flip: axis 5 is out of range for rank 2 (shape [2, 3])");
  require_error(t.flip({1, 0, 1}), ShapeErrorKind::duplicate_axis,
                "flip: axis 1 appears more than once in [1, 0, 1]");
  const Layout odd = Layout::from_parts({2}, {pmin}, 0).value();  // negation overflows
  require_error(odd.flip(0), ShapeErrorKind::size_overflow,
                "flip: the element count, a stride or the offset of shape [2] overflows");
}

TEST_CASE("negative strides through the library") {
  const Tensor<int> t = iota({3, 4});
  const Tensor<int> r = t.flip({0, 1}).value();
  CHECK_FALSE(r.is_contiguous());
  CHECK_FALSE(r.as_slice().has_value());
  CHECK_FALSE(r.as_view_slice().has_value());
  CHECK(r.get({0, 0}) == 11);
  CHECK(r.get({2, 3}) == 0);
  CHECK_FALSE(r.get({3, 0}).has_value());
  const Tensor<int> c = r.contiguous();
  CHECK(c.is_contiguous());
  CHECK_FALSE(c.shares_storage_with(r));
  CHECK(c.to_vector() == std::vector<int>{11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0});
  std::vector<int> dst(12);
  REQUIRE(r.copy_to(dst).has_value());
  CHECK(dst == c.to_vector());
  CHECK(strided::equal(r, c));
  CHECK_FALSE(strided::equal(r, t));
  CHECK(strided::equal(r.flip({0, 1}).value(), t));
  CHECK(r.host_slice().span().size() == 12);
  CHECK_FALSE(r.host_slice().is_borrowed());
  // Reversed, then transposed and stepped: the copy engine walks mixed-sign strides.
  const Tensor<int> m =
      iota({4, 5, 6}).flip(1).value().transpose(0, 2).value().slice(1, 4, 0, -2).value();
  CHECK(m.shape() == Shape{6, 2, 4});
  CHECK(elements(m) == elements(m.contiguous()));
  // A size-1 axis with a negative stride does not break contiguity (its stride is ignored).
  const Tensor<int> one = iota({1, 4}).flip(0).value();
  CHECK(one.is_contiguous());
  CHECK(one.as_slice().has_value());

  const Tensor<float> fr = Tensor<float>::from_vector({1.f, 2.f, 3.f}, {3}).value().flip(0).value();
  const Tensor<float> fc = Tensor<float>::from_vector({3.f, 2.f, 1.f}, {3}).value();
  CHECK(strided::allclose(fr, fc));
  CHECK(strided::equal(fr, fc));
}

TEST_CASE("negative strides through casts and batches") {
  const Tensor<int> t = iota({3, 4});
  const Tensor<int> r = t.flip({0, 1}).value().slice(1, 0, strided::slice_end, 2).value();
  REQUIRE(r.strides() == Strides{-4, -2});
  const Tensor<double> d = r.cast<double>().value();
  CHECK(d.is_contiguous());
  CHECK(d.to_vector() == std::vector<double>{11, 9, 7, 5, 3, 1});
  CHECK(r.to_f32().value().to_vector() == std::vector<float>{11, 9, 7, 5, 3, 1});
  CHECK(r.cast<std::int8_t>().value().to_vector() == std::vector<std::int8_t>{11, 9, 7, 5, 3, 1});

  // Stacking reversed and stepped samples reads each in logical order.
  const std::vector<Tensor<int>> samples{r, r.flip(0).value(), t.slice(1, 3, 0, -2).value()};
  const Tensor<int> batch = strided::stack_samples(samples).value();
  CHECK(batch.shape() == Shape{3, 3, 2});
  CHECK(batch.to_vector() ==
        std::vector<int>{11, 9, 7, 5, 3, 1, 3, 1, 7, 5, 11, 9, 3, 1, 7, 5, 11, 9});
  const Tensor<int> joined = strided::concat_batches(samples).value();
  CHECK(joined.shape() == Shape{9, 2});
  CHECK(strided::equal(joined.slice(0, 3, 6).value(), samples[1]));
}

TEST_CASE("negative strides through printing") {
  const Tensor<int> f = iota({2, 3}).flip(1).value();
  CHECK(strided::to_string(f) == "tensor([[2, 1, 0],\n        [5, 4, 3]])");  // torch's str()
  CHECK(strided::to_string(f) == strided::to_string(f.contiguous()));
  CHECK(strided::to_debug_string(f) ==
        "Tensor { shape: [2, 3], strides: [3, -1], offset: 2, storage_len: 6, data: [2, 1, 0, 5, "
        "4, 3] }");
  const Tensor<int> d = iota({3, 3}).flip(0).value().diagonal().value();  // stride -2
  std::ostringstream os;
  os << d;
  CHECK(os.str() == "tensor([6, 4, 2])");
}

TEST_CASE("squeeze and unsqueeze") {
  const Tensor<int> t = iota({1, 3, 1, 2});
  const Tensor<int> s = t.squeeze().value();
  CHECK(s.shape() == Shape{3, 2});
  CHECK(s.strides() == Strides{2, 1});
  CHECK(elements(s) == elements(t));
  CHECK(t.squeeze(2).value().shape() == Shape{1, 3, 2});
  CHECK(iota({1, 1}).squeeze().value().rank() == 0);
  CHECK(iota({1, 1}).squeeze().value().get({}) == 0);

  const Tensor<int> u = s.unsqueeze(1).value();
  CHECK(u.shape() == Shape{3, 1, 2});
  CHECK(u.strides() == Strides{2, 2, 1});  // PyTorch: size * stride of the next axis
  CHECK(u.is_contiguous());
  CHECK(s.unsqueeze(2).value().strides() == Strides{2, 1, 1});
  CHECK(Tensor<int>::scalar(7).unsqueeze(0).value().shape() == Shape{1});
  CHECK(elements(s.flip(0).value().unsqueeze(0).value()) == std::vector<int>{4, 5, 2, 3, 0, 1});
}

TEST_CASE("squeeze and unsqueeze: errors") {
  const Tensor<int> t = iota({2, 3});
  require_error(t.squeeze(0), ShapeErrorKind::invalid_argument,
                "squeeze: axis 0 of size 2 (shape [2, 3]): only an axis of size 1 can be squeezed");
  require_error(t.squeeze(2), ShapeErrorKind::axis_out_of_range,
                "squeeze: axis 2 is out of range for rank 2 (shape [2, 3])");
  require_error(t.unsqueeze(3), ShapeErrorKind::axis_out_of_range,
                "unsqueeze: axis 3 is out of range for rank 2 (shape [2, 3])");
  const Tensor<int> deep = iota(Shape(strided::max_rank, 1));
  require_error(deep.unsqueeze(0), ShapeErrorKind::rank_too_large,
                "unsqueeze: rank 65 exceeds the maximum rank 64");
}

TEST_CASE("select and unbind") {
  const Tensor<int> t = iota({2, 3, 4});
  const Tensor<int> s = t.select(1, 2).value();
  CHECK(s.shape() == Shape{2, 4});
  CHECK(s.offset() == 8);
  CHECK(elements(s) == std::vector<int>{8, 9, 10, 11, 20, 21, 22, 23});
  CHECK(t.select(0, 1).value().select(0, 1).value().select(0, 3).value().get({}) == 19);
  CHECK(elements(t.flip(2).value().select(2, 0).value()) == std::vector<int>{3, 7, 11, 15, 19, 23});

  const auto parts = t.unbind(2).value();
  REQUIRE(parts.size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(parts[i].shape() == Shape{2, 3});
    CHECK(strided::equal(parts[i], t.select(2, i).value()));
    CHECK(parts[i].shares_storage_with(t));
  }
  CHECK(iota({0, 2}).unbind(0).value().empty());
  CHECK(iota({0, 2}).unbind(1).value().size() == 2);
}

TEST_CASE("select and unbind: errors") {
  const Tensor<int> t = iota({2, 3});
  require_error(t.select(1, 3), ShapeErrorKind::index_out_of_range,
                "select: index 3 is out of bounds for axis 1 of size 3 (shape [2, 3])");
  require_error(t.select(2, 0), ShapeErrorKind::axis_out_of_range,
                "select: axis 2 is out of range for rank 2 (shape [2, 3])");
  require_error(Tensor<int>::scalar(1).select(0, 0), ShapeErrorKind::axis_out_of_range,
                "select: axis 0 is out of range for rank 0 (shape [])");
  require_error(t.unbind(2), ShapeErrorKind::axis_out_of_range,
                "unbind: axis 2 is out of range for rank 2 (shape [2, 3])");
}

TEST_CASE("flatten and unflatten") {
  const Tensor<int> t = iota({2, 3, 4});
  CHECK(t.flatten().value().shape() == Shape{24});
  CHECK(t.flatten(1, 2).value().shape() == Shape{2, 12});
  CHECK(t.flatten(0, 1).value().shape() == Shape{6, 4});
  CHECK(t.flatten(1, 1).value().shape() == Shape{2, 3, 4});
  CHECK(Tensor<int>::scalar(5).flatten().value().shape() == Shape{1});
  // Stride-compatible but not contiguous: stepping the outer axis keeps axes 1..2 mergeable.
  const Tensor<int> stepped = t.slice(1, strided::slice_end, strided::slice_end, -1).value();
  const Tensor<int> f = stepped.flatten(0, 0).value().flatten(2, 2).value();
  CHECK(f.shape() == Shape{2, 3, 4});
  const Tensor<int> g = t.flip(0).value().flatten(1, 2).value();
  CHECK(g.strides() == Strides{-12, 1});
  CHECK(elements(g) == elements(t.flip(0).value()));
  const Tensor<int> reversed = t.flip({0, 1, 2}).value().flatten().value();
  CHECK(reversed.strides() == Strides{-1});
  CHECK(elements(reversed).front() == 23);

  const Tensor<int> u = t.unflatten(2, {2, infer}).value();
  CHECK(u.shape() == Shape{2, 3, 2, 2});
  CHECK(u.strides() == Strides{12, 4, 2, 1});
  const Tensor<int> v = t.transpose(0, 2).value().unflatten(0, {2, 2}).value();
  CHECK(v.shape() == Shape{2, 2, 3, 2});
  CHECK(v.strides() == Strides{2, 1, 4, 12});
  CHECK(elements(v) == elements(t.transpose(0, 2).value()));
  CHECK(iota({0, 6}).unflatten(1, {infer, 3}).value().shape() == Shape{0, 2, 3});
}

TEST_CASE("flatten and unflatten: errors") {
  const Tensor<int> t = iota({2, 3});
  require_error(t.transpose(0, 1).value().flatten(), ShapeErrorKind::non_contiguous_reshape,
                "flatten: shape [3, 2] has no zero-copy view as [6] with its strides; call "
                "contiguous() first");
  require_error(t.flatten(1, 0), ShapeErrorKind::invalid_argument,
                "flatten: the first axis must not come after the last");
  require_error(t.flatten(0, 2), ShapeErrorKind::axis_out_of_range,
                "flatten: axis 2 is out of range for rank 2 (shape [2, 3])");
  require_error(t.flatten(2, 2), ShapeErrorKind::axis_out_of_range,
                "flatten: axis 2 is out of range for rank 2 (shape [2, 3])");
  require_error(Tensor<int>::scalar(1).flatten(1, 1), ShapeErrorKind::axis_out_of_range,
                "flatten: axis 1 is out of range for rank 0 (shape [])");
  // The merged size overflows although the element count (0) does not.
  const std::size_t big = std::size_t{1} << 40;
  const Layout empty_big =
      Layout::from_parts({0, big, big}, {0, static_cast<std::ptrdiff_t>(big), 1}, 0).value();
  require_error(empty_big.flatten(1, 2), ShapeErrorKind::size_overflow,
                "flatten: the element count, a stride or the offset of shape [0, 1099511627776, "
                "1099511627776] overflows");
  CHECK(empty_big.flatten(0, 1).value().shape() == Shape{0, big});

  require_error(t.unflatten(1, {2, 2}), ShapeErrorKind::element_count_mismatch,
                "unflatten: 3 elements do not match shape [2, 2] (4 elements)");
  require_error(t.unflatten(1, {2, infer}), ShapeErrorKind::element_count_mismatch,
                "unflatten: shape [2, infer] cannot hold 3 elements: 3 is not a multiple of 2, the "
                "product of the other sizes");
  require_error(t.unflatten(1, {infer, infer}), ShapeErrorKind::invalid_argument,
                "unflatten: only one axis size can be inferred");
  require_error(t.unflatten(1, {0, infer}), ShapeErrorKind::invalid_argument,
                "unflatten: cannot infer an axis when the other sizes multiply to 0");
  require_error(t.unflatten(1, Shape{}), ShapeErrorKind::invalid_argument,
                "unflatten: sizes must not be empty");
  require_error(t.unflatten(2, {3}), ShapeErrorKind::axis_out_of_range,
                "unflatten: axis 2 is out of range for rank 2 (shape [2, 3])");
  const std::size_t huge = std::size_t{1} << 40;
  require_error(t.unflatten(1, {huge, huge, 3}), ShapeErrorKind::size_overflow,
                "unflatten: the element count, a stride or the offset of shape [1099511627776, "
                "1099511627776, 3] overflows");
  require_error(t.unflatten(1, Shape(strided::max_rank, 1)), ShapeErrorKind::rank_too_large,
                "unflatten: rank 65 exceeds the maximum rank 64");
}

TEST_CASE("reshape with one inferred axis") {
  const Tensor<int> t = iota({2, 3, 4});
  CHECK(t.reshape({infer}).value().shape() == Shape{24});
  CHECK(t.reshape({2, infer}).value().shape() == Shape{2, 12});
  CHECK(t.reshape({infer, 3, 2}).value().shape() == Shape{4, 3, 2});
  CHECK(iota({0, 3}).reshape({3, infer}).value().shape() == Shape{3, 0});
  CHECK(t.flip(2).value().reshape({6, infer}).value().strides() == Strides{4, -1});

  require_error(t.reshape({infer, infer}), ShapeErrorKind::invalid_argument,
                "reshape: only one axis size can be inferred");
  require_error(t.reshape({5, infer}), ShapeErrorKind::element_count_mismatch,
                "reshape: shape [5, infer] cannot hold 24 elements: 24 is not a multiple of 5, the "
                "product of the other sizes");
  require_error(t.reshape({0, infer}), ShapeErrorKind::invalid_argument,
                "reshape: cannot infer an axis when the other sizes multiply to 0");
  require_error(t.transpose(0, 2).value().reshape({infer}), ShapeErrorKind::non_contiguous_reshape,
                "reshape: shape [4, 3, 2] has no zero-copy view as [24] with its strides; call "
                "contiguous() first");
  const std::size_t huge = std::size_t{1} << 40;
  require_error(t.reshape({huge, huge, infer}), ShapeErrorKind::size_overflow,
                "reshape: the element count, a stride or the offset of shape [1099511627776, "
                "1099511627776, 18446744073709551615] overflows");
}

TEST_CASE("movedim") {
  const Tensor<int> t = iota({2, 3, 4});
  const Tensor<int> m = t.movedim(0, 2).value();
  CHECK(m.shape() == Shape{3, 4, 2});
  CHECK(m.strides() == Strides{4, 1, 12});
  CHECK(t.movedim(2, 0).value().shape() == Shape{4, 2, 3});
  CHECK(t.movedim(1, 1).value().strides() == t.strides());
  CHECK(strided::equal(t.movedim(2, 0).value().movedim(0, 2).value(), t));
  require_error(t.movedim(3, 0), ShapeErrorKind::axis_out_of_range,
                "movedim: axis 3 is out of range for rank 3 (shape [2, 3, 4])");
  require_error(t.movedim(0, 3), ShapeErrorKind::axis_out_of_range,
                "movedim: axis 3 is out of range for rank 3 (shape [2, 3, 4])");
}

TEST_CASE("diagonal") {
  const Tensor<int> t = iota({3, 4});
  CHECK(elements(t.diagonal().value()) == std::vector<int>{0, 5, 10});
  CHECK(elements(t.diagonal(1).value()) == std::vector<int>{1, 6, 11});
  CHECK(elements(t.diagonal(3).value()) == std::vector<int>{3});
  CHECK(elements(t.diagonal(-1).value()) == std::vector<int>{4, 9});
  CHECK(elements(t.diagonal(4).value()).empty());
  CHECK(elements(t.diagonal(-3).value()).empty());
  CHECK(elements(t.diagonal(pmin).value()).empty());
  CHECK(elements(t.diagonal(pmax).value()).empty());
  CHECK(elements(t.diagonal(0, 1, 0).value()) == std::vector<int>{0, 5, 10});
  CHECK(elements(t.diagonal(1, 1, 0).value()) == std::vector<int>{4, 9});
  CHECK(t.diagonal().value().strides() == Strides{5});
  // Batched: the diagonal axis goes last.
  const Tensor<int> b = iota({2, 3, 3}).diagonal(0, 1, 2).value();
  CHECK(b.shape() == Shape{2, 3});
  CHECK(elements(b) == std::vector<int>{0, 4, 8, 9, 13, 17});
  // Anti-diagonal through a flip: a negative diagonal stride.
  const Tensor<int> a = iota({3, 3}).flip(1).value().diagonal().value();
  CHECK(a.strides() == Strides{2});
  CHECK(elements(a) == std::vector<int>{2, 4, 6});
  CHECK(iota({3, 3}).flip(0).value().diagonal().value().strides() == Strides{-2});
}

TEST_CASE("diagonal: errors") {
  const Tensor<int> t = iota({3, 4});
  require_error(t.diagonal(0, 1, 1), ShapeErrorKind::duplicate_axis,
                "diagonal: axis 1 appears more than once in [1, 1]");
  require_error(t.diagonal(0, 0, 2), ShapeErrorKind::axis_out_of_range,
                "diagonal: axis 2 is out of range for rank 2 (shape [3, 4])");
  require_error(iota({3}).diagonal(), ShapeErrorKind::axis_out_of_range,
                "diagonal: axis 1 is out of range for rank 1 (shape [3])");
}

TEST_CASE("split and chunk") {
  const Tensor<int> t = iota({7, 2});
  const auto s = t.split(0, 3).value();
  REQUIRE(s.size() == 3);
  CHECK(s[0].shape() == Shape{3, 2});
  CHECK(s[2].shape() == Shape{1, 2});
  CHECK(elements(s[2]) == std::vector<int>{12, 13});
  CHECK(s[1].shares_storage_with(t));
  CHECK(t.split(0, 7).value().size() == 1);
  CHECK(t.split(0, 100).value().size() == 1);
  CHECK(t.split(1, 1).value().size() == 2);
  CHECK(iota({0, 2}).split(0, 3).value().size() == 1);
  CHECK(iota({0, 2}).split(0, 0).value().size() == 1);

  const auto c = t.chunk(0, 3).value();  // ceil(7 / 3) = 3: pieces 3, 3, 1
  REQUIRE(c.size() == 3);
  CHECK(c[2].shape() == Shape{1, 2});
  CHECK(iota({6}).chunk(0, 4).value().size() == 3);  // PyTorch: 2, 2, 2
  CHECK(iota({2}).chunk(0, 5).value().size() == 2);
  CHECK(iota({0}).chunk(0, 3).value().size() == 3);
  // Pieces of a reversed axis are reversed pieces.
  const auto r = iota({5}).flip(0).value().split(0, 2).value();
  REQUIRE(r.size() == 3);
  CHECK(elements(r[0]) == std::vector<int>{4, 3});
  CHECK(elements(r[2]) == std::vector<int>{0});
}

TEST_CASE("split and chunk: errors") {
  const Tensor<int> t = iota({2, 3});
  require_error(t.split(1, 0), ShapeErrorKind::invalid_argument,
                "split: the piece size must not be zero");
  require_error(t.split(2, 1), ShapeErrorKind::axis_out_of_range,
                "split: axis 2 is out of range for rank 2 (shape [2, 3])");
  require_error(t.chunk(0, 0), ShapeErrorKind::invalid_argument,
                "chunk: the number of chunks must not be zero");
  require_error(t.chunk(2, 1), ShapeErrorKind::axis_out_of_range,
                "chunk: axis 2 is out of range for rank 2 (shape [2, 3])");
}

TEST_CASE("as_strided: accepts layouts inside the buffer") {
  const Tensor<int> t = iota({6});
  const Tensor<int> w = t.as_strided({3, 2}, {1, 1}, 0).value();  // sliding windows
  CHECK(elements(w) == std::vector<int>{0, 1, 1, 2, 2, 3});
  CHECK(w.shares_storage_with(t));
  // Boundary cases: the last element exactly, element 0 exactly from above, stride 0.
  CHECK(elements(t.as_strided({6}, {-1}, 5).value()) == std::vector<int>{5, 4, 3, 2, 1, 0});
  CHECK(elements(t.as_strided({2}, {5}, 0).value()) == std::vector<int>{0, 5});
  CHECK(elements(t.as_strided({1}, {pmax}, 5).value()) == std::vector<int>{5});
  CHECK(elements(t.as_strided({4}, {0}, 5).value()) == std::vector<int>{5, 5, 5, 5});
  CHECK(t.as_strided({}, {}, 5).value().get({}) == 5);
  // No elements: any offset, any stride.
  CHECK(t.as_strided({0, 3}, {pmax, pmin}, 1000).value().numel() == 0);
  // A huge broadcast axis reaches one element.
  CHECK(t.as_strided({std::size_t{1} << 63}, {0}, 3).value().get({12345}) == 3);
}

TEST_CASE("as_strided: rejects every way out of the buffer") {
  const Tensor<int> t = iota({6});
  require_error(t.as_strided({2}, {-1}, 0), ShapeErrorKind::storage_out_of_bounds,
                "as_strided: a layout of shape [2] reaches below storage index 0 (buffer length "
                "6)");
  require_error(t.as_strided({2, 3}, {3, 1}, 1), ShapeErrorKind::storage_out_of_bounds,
                "as_strided: a layout of shape [2, 3] reaches storage index 6, outside the "
                "buffer of length 6");
  require_error(t.as_strided({}, {}, 6), ShapeErrorKind::storage_out_of_bounds,
                "as_strided: a layout of shape [] reaches storage index 6, outside the buffer "
                "of length 6");
  require_error(t.as_strided({3}, {pmax}, 0), ShapeErrorKind::size_overflow,
                "as_strided: the element count, a stride or the offset of shape [3] overflows");
  require_error(t.as_strided({2}, {1}, static_cast<std::size_t>(pmax)),
                ShapeErrorKind::size_overflow,
                "as_strided: the element count, a stride or the offset of shape [2] overflows");
  require_error(t.as_strided({2}, {1}, std::numeric_limits<std::size_t>::max()),
                ShapeErrorKind::size_overflow,
                "as_strided: the element count, a stride or the offset of shape [2] overflows");
  require_error(t.as_strided({3, 3}, {pmin / 2, pmin / 2}, 0), ShapeErrorKind::size_overflow,
                "as_strided: the element count, a stride or the offset of shape [3, 3] overflows");
  require_error(t.as_strided({1u << 31, 1u << 31, 1u << 31}, {0, 0, 0}, 0),
                ShapeErrorKind::size_overflow,
                "as_strided: the element count, a stride or the offset of shape [2147483648, "
                "2147483648, 2147483648] overflows");
  require_error(t.as_strided({2, 3}, {1}, 0), ShapeErrorKind::rank_mismatch,
                "as_strided: 1 entries given for a tensor of rank 2");
  require_error(t.as_strided(Shape(65, 1), Strides(65, 1), 0), ShapeErrorKind::rank_too_large,
                "as_strided: rank 65 exceeds the maximum rank 64");
}

TEST_CASE("values: a random-access view in logical order") {
  using Range = strided::Values<int>;
  STATIC_REQUIRE(std::ranges::random_access_range<Range>);
  STATIC_REQUIRE(std::ranges::sized_range<Range>);
  STATIC_REQUIRE(std::ranges::view<Range>);
  STATIC_REQUIRE(std::random_access_iterator<Range::iterator>);

  const Tensor<int> t = iota({3, 4}).transpose(0, 1).value().flip(1).value();  // [[8, 4, 0], ...]
  const auto vals = t.values();
  CHECK(vals.size() == 12);
  CHECK(vals[0] == 8);
  CHECK(vals[11] == 3);
  CHECK(*(vals.begin() + 5) == 1);
  CHECK(vals.end() - vals.begin() == 12);
  // The classic algorithms work on every standard library; the std::ranges ones below need a
  // library with <ranges> algorithms (libc++ 14 has almost none).
  const auto same = [](const auto& range, const std::vector<int>& want) {
    return std::equal(range.begin(), range.end(), want.begin(), want.end());
  };
  CHECK(same(vals, {8, 4, 0, 9, 5, 1, 10, 6, 2, 11, 7, 3}));
  CHECK(std::count_if(vals.begin(), vals.end(), [](int x) { return x % 2 == 0; }) == 6);
  CHECK(std::find(vals.begin(), vals.end(), 10) - vals.begin() == 6);
  CHECK(std::accumulate(vals.begin(), vals.end(), 0) == 66);
  // Elements are returned by value, so the iterator is a C++17 input iterator only (as for
  // iota_view): algorithms that need forward iterators run on a copy.
  std::vector<int> sorted(vals.begin(), vals.end());
  CHECK(*std::max_element(sorted.begin(), sorted.end()) == 11);
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == iota({12}).to_vector());
#if defined(__cpp_lib_ranges)
  CHECK(std::ranges::equal(vals, std::vector<int>{8, 4, 0, 9, 5, 1, 10, 6, 2, 11, 7, 3}));
  CHECK(std::ranges::count_if(vals, [](int x) { return x % 2 == 0; }) == 6);
  CHECK(std::ranges::find(vals, 10) - vals.begin() == 6);
  CHECK(*std::ranges::max_element(vals) == 11);
  CHECK(std::ranges::is_sorted(iota({2, 5}).values()));
  CHECK(std::ranges::binary_search(iota({2, 5}).values(), 7));
  std::ranges::sort(sorted);
  CHECK(sorted == iota({12}).to_vector());
#if !defined(__clang__) || __clang_major__ >= 15  // clang 14 cannot use libstdc++ 12's adaptors
  CHECK(std::ranges::equal(vals | std::views::reverse | std::views::take(3),
                           std::vector<int>{3, 7, 11}));
  CHECK(std::ranges::equal(vals | std::views::drop(10), std::vector<int>{7, 3}));
#endif
#else
  WARN("no std::ranges algorithms in this standard library: only the classic algorithms ran");
#endif
  // The range shares the buffer, so it outlives a temporary tensor.
  const auto kept = iota({4}).flip(0).value().values();
  CHECK(same(kept, {3, 2, 1, 0}));
  // Broadcast, empty and scalar tensors.
  CHECK(same(iota({2}).broadcast_to({2, 2}).value().values(), {0, 1, 0, 1}));
  CHECK(iota({0, 5}).values().empty());
  CHECK(same(Tensor<int>::scalar(9).values(), {9}));
}

TEST_CASE("layout views are constexpr") {
  constexpr auto diag = [] {
    const Layout l = Layout::contiguous({4, 4}).value();
    const Layout d = l.flip(1).value().diagonal(1).value();
    return d.offset() * 100 + static_cast<std::size_t>(d.strides()[0] + 10) + d.shape()[0];
  }();
  STATIC_REQUIRE(diag == 2 * 100 + 13 + 3);  // offset 2, stride 3, 3 elements
  constexpr auto sliced = [] {
    const Layout l = Layout::contiguous({10}).value();
    const Layout s = l.slice(0, -2, strided::slice_end, -3).value();
    return s.shape()[0] * 1000 + s.offset();
  }();
  STATIC_REQUIRE(sliced == 3 * 1000 + 8);  // 8, 5, 2
  constexpr auto inferred = Layout::contiguous({2, 6}).value().reshape({3, infer}).value();
  STATIC_REQUIRE(inferred.shape()[1] == 4);
}

// The examples shown in docs/views.md, verbatim.
TEST_CASE("docs/views.md examples") {
  // [docs-views-begin]
  using strided::infer;
  using strided::slice_end;
  const Tensor<int> t = iota({3, 4});  // [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]

  const Tensor<int> rev = t.slice(1, slice_end, slice_end, -1).value();  // t[:, ::-1]
  CHECK(rev.strides() == Strides{4, -1});  // no copy: a negative stride
  CHECK(rev.get({0, 0}) == 3);

  const Tensor<int> odd_rows = t.slice(0, 1, slice_end, 2).value();  // t[1::2]
  CHECK(odd_rows.shape() == Shape{1, 4});

  CHECK(t.flip({0, 1}).value().get({0, 0}) == 11);          // np.flip(t), torch.flip(t, (0, 1))
  CHECK(t.select(0, 2).value().shape() == Shape{4});        // t[2]
  CHECK(t.unsqueeze(0).value().shape() == Shape{1, 3, 4});  // t[None]
  CHECK(t.diagonal(1).value().to_vector() == std::vector<int>{1, 6, 11});
  CHECK(t.reshape({2, infer}).value().shape() == Shape{2, 6});
  CHECK(t.unflatten(1, {2, infer}).value().shape() == Shape{3, 2, 2});
  CHECK(t.chunk(1, 3).value().size() == 2);  // ceil(4 / 3) = 2 columns each: 2 pieces

  // On a Layout, each op gives the view's layout alone.
  const strided::Layout l = t.layout().transpose(0, 1).value();
  CHECK(l.shape() == Shape{4, 3});
  CHECK(!l.narrow(0, 3, 2).has_value());  // rows [3, 5) of 4

  // A sliding window of length 3 over 6 elements, checked against the buffer.
  const Tensor<int> v = iota({6});
  const Tensor<int> windows = v.as_strided({4, 3}, {1, 1}, 0).value();
  CHECK(windows.get({3, 2}) == 5);
  CHECK(v.as_strided({4, 3}, {1, 1}, 1).error().kind() == ShapeErrorKind::storage_out_of_bounds);

  // Elements in logical order, as a random-access range.
  const auto values = rev.values();
  const std::vector<int> want{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8};
  CHECK(std::equal(values.begin(), values.end(), want.begin(), want.end()));
  CHECK(values[5] == 6);
  // [docs-views-end]
}

TEST_CASE("a negative index converted to std::size_t is named as such") {
  const Tensor<int> t = iota({4, 2});
  const auto minus = [](std::size_t k) { return std::size_t{0} - k; };
  require_error(t.select(0, minus(1)), ShapeErrorKind::index_out_of_range,
                "select: index 18446744073709551615 is out of bounds for axis 0 of size 4 (shape "
                "[4, 2]); the index looks like the negative value -1 converted to std::size_t: "
                "strided counts from 0 and has no negative indices (use 3, i.e. size - 1)");
  require_error(t.narrow(1, minus(2), 1), ShapeErrorKind::index_out_of_range,
                "narrow: range [18446744073709551614, 18446744073709551615) is out of bounds for "
                "axis 1 of size 2 (shape [4, 2]); the start looks like the negative value -2 "
                "converted to std::size_t: strided counts from 0 and has no negative indices (use "
                "0, i.e. size - 2)");
  // Further back than the axis is long: no index to suggest, the diagnosis stays.
  require_error(t.select(1, minus(3)), ShapeErrorKind::index_out_of_range,
                "select: index 18446744073709551613 is out of bounds for axis 1 of size 2 (shape "
                "[4, 2]); the index looks like the negative value -3 converted to std::size_t: "
                "strided counts from 0 and has no negative indices");
  // An index that is merely too large gets no hint.
  require_error(t.select(0, 4), ShapeErrorKind::index_out_of_range,
                "select: index 4 is out of bounds for axis 0 of size 4 (shape [4, 2])");
}

TEST_CASE("diagonal's quick path gives the general path's answer or error") {
  // Up to inline_rank diagonal is built in the copy it returns; past it, the general path checks
  // the axes first, then builds the same way (which the cases above and property_test test).
  // Random axes (sometimes equal or out of range) and offsets (sometimes past either end, or the
  // extremes) give the same view or the same error kind both ways, and in place.
  using strided_test::pick;
  strided_test::for_random_layouts(4000, [](const Layout& l, const Layout& deep, std::size_t added,
                                            strided_test::Rng& rng) {
    const std::size_t d0 = pick(rng, l.rank() + 1), d1 = pick(rng, l.rank() + 1);
    const std::ptrdiff_t extremes[] = {pmin, pmax, pmin + 1};
    const std::ptrdiff_t offset =
        pick(rng, 8) == 0 ? extremes[pick(rng, 3)] : static_cast<std::ptrdiff_t>(pick(rng, 11)) - 5;
    CAPTURE(l.shape(), l.strides(), l.offset(), offset, d0, d1);
    strided_test::require_same_view(l.diagonal(offset, d0, d1),
                                    deep.diagonal(offset, d0 + added, d1 + added), added);
  });
}

namespace {

// `size` as a product of random factors of 2, 3 and 4 and what is left (an unflatten's sizes).
Shape random_split(strided_test::Rng& rng, std::size_t size) {
  Shape parts;
  std::size_t rest = size;
  for (std::size_t f = 2; f <= 4 && rest > 1; ++f)
    while (rest % f == 0 && strided_test::pick(rng, 2) == 0) {
      parts.push_back(f);
      rest /= f;
    }
  parts.push_back(rest);
  return parts;
}

}  // namespace

TEST_CASE("unflatten's quick path gives the reshape it is, or its error") {
  // unflatten splits one axis; without axes of size 0 or 1 it writes the strides itself, which
  // must be what reshape_exact (an independent path) gives for the same new shape. Random
  // splits, sometimes with `infer`, a size 1 or a wrong product, on random layouts.
  using strided_test::pick;
  strided_test::for_random_layouts(
      4000, [](const Layout& l, const Layout&, std::size_t, strided_test::Rng& rng) {
        if (l.rank() == 0) return;
        const std::size_t dim = pick(rng, l.rank()), size = l.shape()[dim];
        Shape parts = random_split(rng, size);
        if (pick(rng, 6) == 0) parts.push_back(1);
        const bool mismatch = pick(rng, 8) == 0;
        if (mismatch) parts[0] += 1;  // a product that does not match
        const Shape resolved = parts;
        if (!mismatch && size != 0 && pick(rng, 3) == 0) parts[pick(rng, parts.size())] = infer;
        Shape whole;
        for (std::size_t k = 0; k < l.rank(); ++k) {
          if (k != dim) whole.push_back(l.shape()[k]);
          for (std::size_t part : k == dim ? resolved : Shape{}) whole.push_back(part);
        }
        CAPTURE(l.shape(), l.strides(), l.offset(), dim, parts, whole);
        const auto split = l.unflatten(dim, parts);
        const auto reshaped = l.reshape_exact(whole);
        if (strided_test::product(resolved) != size) {
          CHECK_FALSE(split.has_value());
          return;
        }
        REQUIRE(split.has_value() == reshaped.has_value());
        if (split) CHECK(*split == *reshaped);
      });
}

TEST_CASE("unflatten built in the copy gives the general path's answer or error") {
  // Up to inline_rank unflatten is built in the copy it returns (a layout's or a tensor's); past
  // it, and for every split with a size 0 or 1 or an error, the general path checks and reshapes.
  // Random splits, valid or not (two `infer`s, a zero, no sizes, a wrong product, an axis out of
  // range), give the same view or the same error both ways, and a tensor over the layout gives
  // the layout's answer, message included.
  using strided_test::pick;
  auto buffer = std::make_shared<const std::vector<float>>(4096, 0.0f);
  const std::shared_ptr<const float> data(buffer, buffer->data());
  strided_test::for_random_layouts(
      4000, [&](const Layout& l, const Layout& deep, std::size_t added, strided_test::Rng& rng) {
        const std::size_t dim = pick(rng, l.rank() + 1);  // rank() itself: out of range
        const std::size_t size = dim < l.rank() ? l.shape()[dim] : 6;
        Shape parts = random_split(rng, size);
        switch (pick(rng, 8)) {
          case 0:
            parts[pick(rng, parts.size())] = infer;
            break;
          case 1:
            parts.insert(pick(rng, parts.size() + 1), infer);
            break;  // maybe a second
          case 2:
            parts[0] += 1;
            break;  // a wrong product
          case 3:
            parts.insert(pick(rng, parts.size() + 1), pick(rng, 2));
            break;  // a 0 or a 1
          case 4:
            parts.clear();
            break;
          default:
            break;
        }
        CAPTURE(l.shape(), l.strides(), l.offset(), dim, parts);
        const auto quick = l.unflatten(dim, parts);
        strided_test::require_same_view(quick, deep.unflatten(dim + added, parts), added);
        const auto t = Tensor<float>::from_shared(data, buffer->size(), l).value();
        const auto view = t.unflatten(dim, parts);
        REQUIRE(view.has_value() == quick.has_value());
        if (quick)
          CHECK(view->layout() == *quick);
        else
          CHECK(view.error().message() == quick.error().message());
      });
}

TEST_CASE("select of a layout without elements moves the offset as narrow does, when it fits") {
  // No element is reached, so any representable offset is right; select moves it as for a
  // layout with elements (NumPy moves its pointer the same way) and keeps it when the move
  // would overflow, as narrow does, rather than fail.
  const Layout empty = Layout::from_parts({3, 0}, {5, 1}, 4).value();
  CHECK(empty.select(0, 2).value().offset() == 14);
  CHECK(empty.narrow(0, 2, 1).value().offset() == 14);
  const auto last = static_cast<std::size_t>(pmax) - 3;  // 10 past it would not fit
  const Layout far = Layout::from_parts({3, 0}, {5, 1}, last).value();
  CHECK(far.select(0, 2).value().offset() == last);
  CHECK(far.narrow(0, 2, 1).value().offset() == last);
  CHECK(far.select(0, 2).value().shape() == Shape{0});
}
