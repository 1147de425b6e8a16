#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <strided/tensor.hpp>
#include <string>
#include <vector>

#include "catch_shim.hpp"

using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;

namespace {
Tensor<float> iota(const Shape& shape) {
  std::vector<float> v(strided::detail::checked_numel(shape).value());
  std::iota(v.begin(), v.end(), 0.0f);
  return Tensor<float>::from_vector(std::move(v), shape).value();
}

template <class R>
void require_error(const R& r, ShapeErrorKind kind, const std::string& message) {
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == kind);
  CHECK(r.error().message() == message);
}
}  // namespace

TEST_CASE("from_vector adopts the vector's buffer") {
  std::vector<float> data{1, 2, 3, 4, 5, 6};
  const float* raw = data.data();
  const auto t = Tensor<float>::from_vector(std::move(data), {2, 3}).value();
  REQUIRE(t.storage().get() == raw);
  REQUIRE(t.shape() == Shape{2, 3});
  REQUIRE(t.strides() == Strides{3, 1});
  REQUIRE(t.offset() == 0);
  REQUIRE(t.rank() == 2);
  REQUIRE(t.numel() == 6);
  REQUIRE(t.storage_len() == 6);
  REQUIRE_FALSE(t.empty());
  REQUIRE(t.get({1, 2}) == 6.0f);
}

TEST_CASE("factories fill and validate") {
  REQUIRE(Tensor<int>::zeros({2, 2}).value().to_vector() == std::vector<int>{0, 0, 0, 0});
  REQUIRE(Tensor<int>::ones({3}).value().to_vector() == std::vector<int>{1, 1, 1});
  REQUIRE(Tensor<double>::full({2}, 2.5).value().to_vector() == std::vector<double>{2.5, 2.5});
  const float src[] = {1, 2, 3};
  const auto s = Tensor<float>::from_slice(src, {3, 1}).value();
  REQUIRE(s.storage().get() != src);
  REQUIRE(s.get({2, 0}) == 3.0f);
  REQUIRE(reinterpret_cast<std::uintptr_t>(s.storage().get()) % 64 == 0);
  REQUIRE(Tensor<std::uint8_t>::zeros({0, 5}).value().numel() == 0);

  require_error(Tensor<float>::from_vector({1, 2, 3}, {2, 2}),
                ShapeErrorKind::element_count_mismatch,
                "from_vector: 3 elements do not match shape [2, 2] (4 elements)");
  require_error(Tensor<float>::from_slice(src, {4}), ShapeErrorKind::element_count_mismatch,
                "from_slice: 3 elements do not match shape [4] (4 elements)");
  const std::size_t huge = std::numeric_limits<std::size_t>::max();
  require_error(Tensor<float>::zeros({huge, 3}), ShapeErrorKind::size_overflow,
                "zeros: the element count, a stride or the offset of shape "
                "[18446744073709551615, 3] overflows");
  require_error(Tensor<float>::ones({huge / 2, 4}), ShapeErrorKind::size_overflow,
                "ones: the element count, a stride or the offset of shape "
                "[9223372036854775807, 4] overflows");
  require_error(Tensor<float>::full(Shape(65, 1), 1.0f), ShapeErrorKind::rank_too_large,
                "full: rank 65 exceeds the maximum rank 64");
  // 2^62 doubles fit the index range but not the address space: the allocation fails cleanly.
  require_error(Tensor<double>::zeros({std::size_t{1} << 62}), ShapeErrorKind::allocation_failed,
                "zeros: could not allocate a buffer of 4611686018427387904 elements");
}

TEST_CASE("scalar has rank 0 and one element") {
  const auto s = Tensor<int>::scalar(3);
  REQUIRE(s.rank() == 0);
  REQUIRE(s.numel() == 1);
  REQUIRE(s.is_contiguous());
  REQUIRE(s.get({}) == 3);
  REQUIRE(s.as_slice().value().size() == 1);
  REQUIRE(s.to_vector() == std::vector<int>{3});
}

TEST_CASE("get checks rank and bounds") {
  const auto t = iota({2, 3});
  REQUIRE(t.get({0, 0}) == 0.0f);
  REQUIRE(t.get({1, 1}) == 4.0f);
  REQUIRE_FALSE(t.get({2, 0}).has_value());
  REQUIRE_FALSE(t.get({0, 3}).has_value());
  REQUIRE_FALSE(t.get({0}).has_value());
  REQUIRE_FALSE(t.get({0, 0, 0}).has_value());
  const auto tt = t.transpose(0, 1).value();
  REQUIRE(tt.get({2, 1}) == 5.0f);
}

TEST_CASE("at is get with an error that says why") {
  const auto t = iota({2, 3});
  const auto tt = t.transpose(0, 1).value();
  // Every in-range index agrees with get(), through a non-contiguous view too.
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 2; ++j) REQUIRE(tt.at({i, j}).value() == tt.get({i, j}).value());
  REQUIRE(Tensor<int>::scalar(7).at({}).value() == 7);
  require_error(t.at({2, 0}), ShapeErrorKind::index_out_of_range,
                "at: index 2 is out of bounds for axis 0 of size 2 (shape [2, 3])");
  require_error(t.at({0, 3}), ShapeErrorKind::index_out_of_range,
                "at: index 3 is out of bounds for axis 1 of size 3 (shape [2, 3])");
  require_error(t.at({0}), ShapeErrorKind::rank_mismatch,
                "at: 1 entries given for a tensor of rank 2");
  require_error(t.at({1, std::size_t{0} - 1}), ShapeErrorKind::index_out_of_range,
                "at: index 18446744073709551615 is out of bounds for axis 1 of size 3 (shape [2, "
                "3]); the index looks like the negative value -1 converted to std::size_t: strided "
                "counts from 0 and has no negative indices (use 2, i.e. size - 1)");
  const auto three = t.at({0, 0, 0});
  const auto* given = three.error().get_if<strided::shape_errors::RankMismatch>();
  REQUIRE(given != nullptr);
  REQUIRE(given->rank == 2);
  REQUIRE(given->entries == 3);
}

TEST_CASE("views share the buffer and never copy") {
  const auto t = iota({2, 3, 4});
  const auto v = t.permute({2, 0, 1}).value().narrow(0, 1, 2).value();
  REQUIRE(v.shares_storage_with(t));
  REQUIRE(v.storage().get() == t.storage().get());
  REQUIRE(v.shape() == Shape{2, 2, 3});
  REQUIRE(v.get({1, 1, 2}) == t.get({1, 2, 2}));
  const Tensor<float> copy = t;  // Arc-style clone
  REQUIRE(copy.shares_storage_with(t));
  REQUIRE_FALSE(iota({2}).shares_storage_with(t));
}

TEST_CASE("transpose_2d swaps the two axes of a matrix") {
  const auto w = iota({3, 2});  // an nn.Linear weight [out, in]
  const auto wt = w.transpose_2d().value();
  REQUIRE(wt.shape() == Shape{2, 3});
  REQUIRE(wt.get({1, 2}) == w.get({2, 1}));
  require_error(iota({2, 2, 2}).transpose_2d(), ShapeErrorKind::rank_mismatch,
                "transpose_2d: needs rank 2, got rank 3");
}

TEST_CASE("view errors reach the caller with the op name") {
  const auto t = iota({2, 4});
  require_error(t.transpose(0, 2), ShapeErrorKind::axis_out_of_range,
                "transpose: axis 2 is out of range for rank 2 (shape [2, 4])");
  require_error(t.permute({0, 0}), ShapeErrorKind::duplicate_axis,
                "permute: axis 0 appears more than once in [0, 0]");
  require_error(t.permute({0, 1, 2}), ShapeErrorKind::rank_mismatch,
                "permute: 3 entries given for a tensor of rank 2");
  require_error(t.narrow(1, 3, 2), ShapeErrorKind::index_out_of_range,
                "narrow: range [3, 5) is out of bounds for axis 1 of size 4 (shape [2, 4])");
  require_error(t.reshape({3, 3}), ShapeErrorKind::element_count_mismatch,
                "reshape: 8 elements do not match shape [3, 3] (9 elements)");
  require_error(t.transpose(0, 1).value().reshape({8}), ShapeErrorKind::non_contiguous_reshape,
                "reshape: shape [4, 2] has no zero-copy view as [8] with its strides; call "
                "contiguous() first");
  require_error(t.broadcast_to({4}), ShapeErrorKind::broadcast_incompatible,
                "broadcast_to: shape [2, 4] cannot be broadcast with [4]");
  require_error(t.broadcast_with(iota({3})), ShapeErrorKind::broadcast_incompatible,
                "broadcast_with: shape [2, 4] cannot be broadcast with [3]");
  // A common shape exists but its element count overflows: the reference still promises
  // broadcast_incompatible from broadcast_with, not broadcast_to's size_overflow.
  const std::size_t big = std::size_t{1} << 33;
  const auto wide = Tensor<int>::scalar(1).broadcast_to({1, big}).value();
  const auto tall = Tensor<int>::scalar(1).broadcast_to({big, 1}).value();
  require_error(wide.broadcast_with(tall), ShapeErrorKind::broadcast_incompatible,
                "broadcast_with: shape [1, 8589934592] cannot be broadcast with [8589934592, 1]");
}

TEST_CASE("reshape gives views, and fails only where no view exists") {
  const auto t = iota({2, 3, 4});
  const auto r = t.reshape({6, 4}).value();
  REQUIRE(r.shares_storage_with(t));
  REQUIRE(r.get({5, 3}) == 23.0f);
  const auto tt = iota({3, 1, 1}).transpose(0, 2).value();  // merging size-1 axes is fine
  REQUIRE(tt.reshape({3}).value().to_vector() == std::vector<float>{0, 1, 2});
  REQUIRE(tt.reshape({3}).value().shares_storage_with(tt));
}

TEST_CASE("broadcast_to and broadcast_with use stride 0") {
  const auto row = iota({1, 3});
  const auto b = row.broadcast_to({4, 3}).value();
  REQUIRE(b.strides() == Strides{0, 1});
  REQUIRE(b.get({3, 2}) == 2.0f);
  REQUIRE(b.to_vector().size() == 12);
  const auto [x, y] = iota({3, 1}).broadcast_with(iota({4})).value();
  REQUIRE(x.shape() == Shape{3, 4});
  REQUIRE(y.shape() == Shape{3, 4});
  REQUIRE(x.get({2, 3}) == 2.0f);
  REQUIRE(y.get({2, 3}) == 3.0f);
}

TEST_CASE("empty tensors are contiguous and give empty slices even past the buffer end") {
  const auto t = iota({2, 3});
  auto e = t.narrow(1, 3, 0).value();  // offset pushed to 3
  e = e.narrow(0, 2, 0).value();       // and again, past the end of the buffer
  REQUIRE(e.numel() == 0);
  REQUIRE(e.empty());
  REQUIRE(e.offset() == 9);
  REQUIRE(e.offset() > e.storage_len());
  REQUIRE(e.is_contiguous());
  REQUIRE(e.as_slice().value().empty());
  REQUIRE(e.as_view_slice().value().empty());
  REQUIRE(e.to_vector().empty());
  REQUIRE(e.contiguous().numel() == 0);
  REQUIRE(e.host_slice().size() == 0);
  REQUIRE(e.reshape({0}).has_value());
  REQUIRE(e.copy_to(std::span<float>()).has_value());
}

TEST_CASE("as_slice, host_slice and as_view_slice") {
  const auto t = iota({3, 4});
  REQUIRE(t.as_slice().value().size() == 12);
  const auto rows = t.narrow(0, 1, 2).value();  // contiguous rows
  REQUIRE(rows.as_slice().value()[0] == 4.0f);
  REQUIRE(rows.host_slice().is_borrowed());
  const auto tt = t.transpose(0, 1).value();
  REQUIRE_FALSE(tt.as_slice().has_value());
  const auto owned = tt.host_slice();
  REQUIRE_FALSE(owned.is_borrowed());
  REQUIRE(std::vector<float>(owned.begin(), owned.end()) == tt.to_vector());
  // The view slice covers [offset, offset + span) of the storage, not the logical order.
  const auto cols = t.narrow(1, 1, 2).value();  // shape [3, 2], strides [4, 1], offset 1
  const auto span = cols.as_view_slice().value();
  REQUIRE(span.size() == 1 + 2 * 4 + 1 * 1);
  REQUIRE(span[0] == 1.0f);
  REQUIRE(tt.as_view_slice().value().size() == 12);
  const auto b = iota({1, 4}).broadcast_to({5, 4}).value();
  REQUIRE(b.as_view_slice().value().size() == 4);
}

TEST_CASE("a host slice keeps its buffer alive after the tensor is gone") {
  std::optional<strided::HostSlice<float>> borrowed, owned;
  {
    const auto t = iota({2, 3});
    borrowed = t.host_slice();
    owned = t.transpose(0, 1).value().host_slice();
  }
  REQUIRE(borrowed->is_borrowed());
  REQUIRE(std::vector<float>(borrowed->begin(), borrowed->end()) ==
          std::vector<float>{0, 1, 2, 3, 4, 5});
  REQUIRE(std::vector<float>(owned->begin(), owned->end()) == std::vector<float>{0, 3, 1, 4, 2, 5});
}

TEST_CASE("contiguous, copy_to and to_vector materialise in row-major order") {
  const auto t = iota({2, 3});
  REQUIRE(t.contiguous().shares_storage_with(t));
  const auto tt = t.transpose(0, 1).value();
  const auto c = tt.contiguous();
  REQUIRE_FALSE(c.shares_storage_with(tt));
  REQUIRE(c.is_contiguous());
  REQUIRE(c.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
  std::vector<float> dst(6);
  REQUIRE(tt.copy_to(dst).has_value());
  REQUIRE(dst == c.to_vector());
  std::vector<float> small(5);
  require_error(tt.copy_to(small), ShapeErrorKind::element_count_mismatch,
                "copy_to: 5 elements do not match shape [3, 2] (6 elements)");
}

TEST_CASE("try_contiguous is contiguous as a Result") {
  const auto t = iota({2, 3});
  REQUIRE(t.try_contiguous().value().shares_storage_with(t));
  const auto tt = t.transpose(0, 1).value();
  const auto c = tt.try_contiguous().value();
  REQUIRE_FALSE(c.shares_storage_with(tt));
  REQUIRE(c.is_contiguous());
  REQUIRE(c.shape() == Shape{3, 2});
  REQUIRE(c.to_vector() == std::vector<float>{0, 3, 1, 4, 2, 5});
  const auto flipped = iota({4}).flip(Shape{0}).value().try_contiguous().value();
  REQUIRE(flipped.to_vector() == std::vector<float>{3, 2, 1, 0});
  REQUIRE(Tensor<float>::scalar(0).broadcast_to({0, 3}).value().try_contiguous()->numel() == 0);
  // scalar()'s Result twin
  const auto s = Tensor<float>::full({}, 2.5f).value();
  REQUIRE(s.rank() == 0);
  REQUIRE(s.to_vector() == std::vector<float>{2.5f});
}

TEST_CASE("bool tensors work despite vector<bool>") {
  const auto b = Tensor<bool>::from_vector({true, false, true, true}, {2, 2}).value();
  REQUIRE(b.get({0, 1}) == false);
  REQUIRE(b.transpose(0, 1).value().to_vector() == std::vector<bool>{true, true, false, true});
  REQUIRE(Tensor<bool>::ones({2}).value().to_vector() == std::vector<bool>{true, true});
}

TEST_CASE("from_shared wraps external memory and checks the layout against it") {
  std::vector<float> owner{0, 1, 2, 3, 4, 5, 6, 7};
  std::shared_ptr<const float> data(owner.data(), [](const float*) {});
  const auto t =
      Tensor<float>::from_shared(data, 8, Layout::from_parts({2, 2}, {4, 2}, 1).value()).value();
  REQUIRE(t.to_vector() == std::vector<float>{1, 3, 5, 7});
  require_error(Tensor<float>::from_shared(data, 7, Layout::from_parts({2, 2}, {4, 2}, 1).value()),
                ShapeErrorKind::storage_out_of_bounds,
                "from_shared: a layout of shape [2, 2] reaches storage index 7, outside the "
                "buffer of length 7");
  require_error(Tensor<float>::from_shared(nullptr, 3, Layout::contiguous({3}).value()),
                ShapeErrorKind::invalid_argument,
                "from_shared: null buffer with a non-zero length");
  REQUIRE(Tensor<float>::from_shared(nullptr, 0, Layout::contiguous({0}).value()).has_value());
}

TEST_CASE("the deleter of shared memory runs once, when the last view is gone") {
  int deletions = 0;
  {
    auto* raw = new float[4]{1, 2, 3, 4};
    std::shared_ptr<const float> data(raw, [&](const float* p) {
      ++deletions;
      delete[] p;
    });
    auto t =
        Tensor<float>::from_shared(std::move(data), 4, Layout::contiguous({4}).value()).value();
    auto v = t.narrow(0, 1, 2).value();
    { Tensor<float> drop = std::move(t); }
    REQUIRE(deletions == 0);
    REQUIRE(v.get({0}) == 2.0f);
  }
  REQUIRE(deletions == 1);
}

TEST_CASE("equal compares values, not layouts") {
  const auto t = iota({2, 3});
  const auto c = t.transpose(0, 1).value().contiguous().transpose(0, 1).value();
  REQUIRE(strided::equal(t, c));
  REQUIRE_FALSE(strided::equal(t, t.reshape({3, 2}).value()));
  REQUIRE_FALSE(strided::equal(t, iota({2, 3}).narrow(0, 0, 1).value()));
  const auto nan = Tensor<double>::full({2}, std::nan("")).value();
  REQUIRE_FALSE(strided::equal(nan, nan));
  const auto z = Tensor<double>::from_vector({0.0, -0.0}, {2}).value();
  REQUIRE(strided::equal(z, Tensor<double>::zeros({2}).value()));
  const auto h = Tensor<strided::f16>::ones({3}).value();
  REQUIRE(strided::equal(h, h.narrow(0, 0, 3).value()));
}

TEST_CASE("allclose uses NumPy's tolerance and broadcasting") {
  const auto a = Tensor<double>::from_vector({1.0, 2.0}, {2}).value();
  const auto b = Tensor<double>::from_vector({1.0 + 1e-9, 2.0 + 1e-6}, {2}).value();
  REQUIRE(strided::allclose(a, b));
  REQUIRE_FALSE(strided::allclose(a, b, 0.0, 1e-8));
  REQUIRE(strided::allclose(a, b, 0.0, 1e-5));
  const auto row = Tensor<double>::from_vector({1.0, 2.0}, {1, 2}).value();
  REQUIRE(strided::allclose(row.broadcast_to({3, 2}).value(), a));
  REQUIRE_FALSE(strided::allclose(a, Tensor<double>::zeros({3}).value()));
  const auto inf = Tensor<double>::full({1}, INFINITY).value();
  REQUIRE(strided::allclose(inf, inf));
}

TEST_CASE("casting an empty tensor with huge axes never crashes") {
  const std::size_t huge = std::numeric_limits<std::size_t>::max();
  // Outside the size-0 axis all strides are 0, so a row-major layout exists (fuzz finding F1).
  const auto wide = Tensor<float>::zeros({0}).value().broadcast_to({huge, 0}).value();
  const auto cast = wide.cast<double>().value();
  REQUIRE(cast.shape() == Shape{huge, 0});
  REQUIRE(cast.strides() == Strides{0, 1});
  // Inside it, the row-major strides overflow: an error, not an exception.
  const std::size_t big = std::size_t{1} << 62;
  const auto deep = Tensor<float>::zeros({0, 1, 1}).value().broadcast_to({0, big, big}).value();
  require_error(deep.cast<double>(), ShapeErrorKind::size_overflow,
                "cast: the element count, a stride or the offset of shape [0, 4611686018427387904, "
                "4611686018427387904] overflows");
  REQUIRE(deep.contiguous().numel() == 0);
}

TEST_CASE("cast converts every element of any view") {
  const auto t = Tensor<float>::from_vector({1.5f, -2.5f, 300.0f, NAN}, {2, 2}).value();
  const auto i8 = t.transpose(0, 1).value().cast<std::int8_t>().value();
  REQUIRE(i8.to_vector() == std::vector<std::int8_t>{1, 127, -2, 0});
  REQUIRE(i8.is_contiguous());
  const auto back = i8.to_f32().value();
  REQUIRE(back.to_vector() == std::vector<float>{1, 127, -2, 0});
  const auto same = t.cast<float>().value();
  REQUIRE_FALSE(same.shares_storage_with(t));
  const auto bf = iota({3}).broadcast_to({2, 3}).value().cast<strided::bf16>().value();
  REQUIRE(bf.shape() == Shape{2, 3});
  REQUIRE(static_cast<float>(*bf.get({1, 2})) == 2.0f);
}
