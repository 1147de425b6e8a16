// reshape and broadcast_to (layout_reshape.hpp): the quick paths a layout of at most inline_rank
// axes takes against the general paths, and the cases where the quick path's modular products
// and count bounds decide.
#include <cstddef>
#include <strided/layout.hpp>
#include <strided/tensor.hpp>

#include "catch_shim.hpp"
#include "support.hpp"

using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided_test::pick;
using strided_test::require_same_view;

namespace {

Layout contiguous(const Shape& s) { return Layout::contiguous(s).value(); }

}  // namespace

TEST_CASE("reshape's quick path gives the general path's answer or error") {
  strided_test::for_random_layouts(
      4000, [](const Layout& l, const Layout& deep, std::size_t, strided_test::Rng& rng) {
        Shape target = strided_test::random_reshape_target(rng, l.shape());
        if (pick(rng, 8) == 0) target.push_back(2);  // another count
        if (pick(rng, 8) == 0 && !target.empty()) target[pick(rng, target.size())] = strided::infer;
        CAPTURE(l.shape(), l.strides(), l.offset(), target);
        require_same_view(l.reshape(target), deep.reshape(target), 0);
      });
}

TEST_CASE("broadcast_to's quick path gives the general path's answer or error") {
  strided_test::for_random_layouts(
      4000, [](const Layout& l, const Layout& deep, std::size_t added, strided_test::Rng& rng) {
        Shape target = l.shape();  // the same rank: every size 1 may grow, a few others change
        for (auto& size : target)
          if (size == 1 || pick(rng, 10) == 0) size = pick(rng, 4);
        CAPTURE(l.shape(), l.strides(), target);
        Shape deep_target(added, 1);
        for (std::size_t size : target) deep_target.push_back(size);
        require_same_view(l.broadcast_to(target), deep.broadcast_to(deep_target), added);
      });
}

TEST_CASE("reshape's row-major test modulo 2^64 decides as the exact one") {
  constexpr std::size_t two32 = std::size_t{1} << 32;
  // No elements, and strides whose products wrap to row-major ones: the quick path takes it as
  // row-major, which for no elements is what the general path makes of it too.
  const Layout wraps =
      Layout::from_parts({0, two32, two32}, {0, std::ptrdiff_t{1} << 32, 1}, 0).value();
  CHECK(wraps.reshape({5, 0}).value() == contiguous({5, 0}));
  CHECK(wraps.reshape({5, 1}).error().kind() == ShapeErrorKind::element_count_mismatch);
  // A size-1 axis with a stride no product gives: not row-major by the test, row-major by the
  // general path's contiguity, which ignores size-1 axes.
  const Layout odd = Layout::from_parts({1, 4}, {999, 1}, 3).value();
  CHECK(odd.reshape({2, 2}).value() == Layout::contiguous({2, 2}, 3).value());
  // The largest counts: 3 * 2^61 elements, and a size-1 axis whose stride is the full product.
  constexpr std::size_t two61 = std::size_t{1} << 61;
  CHECK(contiguous({two61, 3}).reshape({3, two61}).value() == contiguous({3, two61}));
  const auto whole = static_cast<std::ptrdiff_t>(3 * two61);
  const Layout top = Layout::from_parts({1, two61, 3}, {whole, 3, 1}, 0).value();
  CHECK(top.reshape({3 * two61}).value() == contiguous({3 * two61}));
  CHECK(top.reshape({3 * two61, 2}).error().kind() == ShapeErrorKind::element_count_mismatch);
}

TEST_CASE("a new shape whose product wraps to the old count is size_overflow") {
  // 2^32 * 2^32 wraps to 0, the count of an empty layout; 2^62 * 4 + 4 wraps to 4. The quick
  // path's bound must send both to the general path, whose exact count overflows.
  constexpr std::size_t two32 = std::size_t{1} << 32, two62 = std::size_t{1} << 62;
  CHECK(contiguous({0}).reshape({two32, two32}).error().kind() == ShapeErrorKind::size_overflow);
  CHECK(contiguous({4}).reshape({two62 + 1, 4}).error().kind() == ShapeErrorKind::size_overflow);
}

TEST_CASE("broadcast_to past the quick count bound takes the exact count") {
  constexpr std::size_t two33 = std::size_t{1} << 33, two30 = std::size_t{1} << 30;
  // 34 + 31 bits: past the bound, yet 2^63 elements fit std::size_t.
  CHECK(contiguous({1, 1}).broadcast_to({two33, two30}).value().strides() == Strides{0, 0});
  CHECK(contiguous({1, 1}).broadcast_to({two33, two33}).error().kind() ==
        ShapeErrorKind::size_overflow);
}

TEST_CASE("tensors take the same quick and general paths") {
  // Tensor's reshape and broadcast_to build their result in the copy they return; past
  // inline_rank they take the general path. Both agree with the layouts'.
  const auto t = strided::Tensor<float>::zeros({2, 3, 4}).value();
  const auto r = t.reshape({4, 6}).value();
  CHECK(r.layout() == t.layout().reshape({4, 6}).value());
  const Shape deep_target{1, 1, 1, 1, 1, 1, 1, 1, 24};
  CHECK(t.reshape(deep_target).value().layout() == t.layout().reshape(deep_target).value());
  const auto b = t.narrow(0, 0, 1).value();
  CHECK(b.broadcast_to({5, 3, 4}).value().layout() == b.layout().broadcast_to({5, 3, 4}).value());
  CHECK(b.broadcast_to({5, 2, 4}).error().kind() == ShapeErrorKind::broadcast_incompatible);
  CHECK(t.reshape({5, 5}).error().kind() == ShapeErrorKind::element_count_mismatch);
}
