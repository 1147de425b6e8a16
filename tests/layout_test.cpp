#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <strided/layout.hpp>
#include <strided/layout_views.hpp>
#include <string>

#include "catch_shim.hpp"
#include "support.hpp"

using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;

namespace {
constexpr std::size_t huge = std::numeric_limits<std::size_t>::max();

Layout contiguous(const Shape& s) { return Layout::contiguous(s).value(); }

// The error kind and the message of a failed layout operation.
template <class R>
void require_error(const R& r, ShapeErrorKind kind, const std::string& message) {
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == kind);
  CHECK(r.error().message() == message);
  // description() is the same line without "op: ".
  const std::string prefix = std::string(r.error().op()) + ": ";
  REQUIRE(message.rfind(prefix, 0) == 0);
  CHECK(r.error().description() == message.substr(prefix.size()));
}
}  // namespace

TEST_CASE("contiguous layouts are row-major") {
  const Layout l = contiguous({2, 3, 4});
  REQUIRE(l.strides() == Strides{12, 4, 1});
  REQUIRE(l.numel() == 24);
  REQUIRE(l.rank() == 3);
  REQUIRE(l.offset() == 0);
  REQUIRE(l.is_contiguous());
  REQUIRE(Layout().rank() == 0);
  REQUIRE(Layout().numel() == 1);
  REQUIRE(Layout::contiguous({4}, 7).value().offset() == 7);
  // A zero-size axis zeroes every outer stride (the reference document's row_major_strides).
  REQUIRE(contiguous({2, 0, 3}).strides() == Strides{0, 3, 1});
}

TEST_CASE("contiguity skips size-1 axes and holds for empty layouts") {
  REQUIRE(Layout::from_parts({2, 1, 3}, {3, 99, 1}, 0).value().is_contiguous());
  REQUIRE_FALSE(Layout::from_parts({2, 3}, {1, 2}, 0).value().is_contiguous());
  REQUIRE(Layout::from_parts({2, 0}, {5, 7}, 0).value().is_contiguous());
  REQUIRE_FALSE(contiguous({2, 3}).transpose(0, 1).value().is_contiguous());
  REQUIRE(contiguous({1, 5}).transpose(0, 1).value().is_contiguous());
}

TEST_CASE("transpose and permute reorder shape and strides") {
  const Layout l = contiguous({2, 3, 4});
  REQUIRE(l.transpose(0, 2).value().shape() == Shape{4, 3, 2});
  REQUIRE(l.transpose(0, 2).value().strides() == Strides{1, 4, 12});
  REQUIRE(l.transpose(1, 1).value().strides() == l.strides());
  const Layout p = l.permute({2, 0, 1}).value();
  REQUIRE(p.shape() == Shape{4, 2, 3});  // out.shape[k] == in.shape[perm[k]]
  REQUIRE(p.strides() == Strides{1, 12, 4});
}

TEST_CASE("narrow moves the offset") {
  const Layout l = contiguous({4, 5});
  const Layout n = l.narrow(1, 2, 3).value();
  REQUIRE(n.shape() == Shape{4, 3});
  REQUIRE(n.offset() == 2);
  REQUIRE(n.strides() == Strides{5, 1});
  const Layout m = n.narrow(0, 1, 2).value();
  REQUIRE(m.offset() == 7);
  // Narrowing to nothing at the end is allowed and pushes the offset to the end.
  const Layout e = l.narrow(0, 4, 0).value();
  REQUIRE(e.numel() == 0);
  REQUIRE(e.offset() == 20);
  REQUIRE(e.is_contiguous());
}

TEST_CASE("reshape returns a view whenever one exists") {
  const Layout l = contiguous({2, 3, 4});
  REQUIRE(l.reshape({6, 4}).value().strides() == Strides{4, 1});
  REQUIRE(l.reshape({24}).value().strides() == Strides{1});
  // Transposed: splitting an axis keeps a view, merging non-adjacent memory does not.
  const Layout t = contiguous({4, 6}).transpose(0, 1).value();  // shape [6, 4], strides [1, 6]
  const Layout split = t.reshape({2, 3, 4}).value();
  REQUIRE(split.strides() == Strides{3, 1, 6});
  require_error(t.reshape({24}), ShapeErrorKind::non_contiguous_reshape,
                "reshape: shape [6, 4] has no zero-copy view as [24] with its strides; call "
                "contiguous() first");
  // Merging size-1 axes of a transposed tensor is fine.
  const Layout ones = contiguous({3, 1, 1}).transpose(0, 2).value();  // [1, 1, 3]
  REQUIRE(ones.reshape({3}).value().strides() == Strides{1});
  const Layout tt = contiguous({2, 1, 3}).permute({2, 1, 0}).value();  // [3, 1, 2], [1, 3, 3]
  REQUIRE(tt.reshape({3, 2}).value().strides() == Strides{1, 3});
  REQUIRE(tt.reshape({3, 2, 1}).value().shape() == Shape{3, 2, 1});
  // A narrowed (non-contiguous) view can still merge its contiguous inner axes.
  const Layout n = contiguous({4, 2, 3}).narrow(0, 1, 2).value();
  REQUIRE(n.reshape({2, 6}).value().strides() == Strides{6, 1});
  REQUIRE(n.reshape({2, 6}).value().offset() == 6);
  const Layout cols = contiguous({4, 6}).narrow(1, 0, 4).value();
  REQUIRE_FALSE(cols.reshape({16}).has_value());
  REQUIRE(cols.reshape({4, 2, 2}).value().strides() == Strides{6, 2, 1});
  // Broadcast axes survive a reshape that keeps them separate.
  const Layout b = contiguous({1, 3}).broadcast_to({4, 3}).value();
  REQUIRE(b.reshape({2, 2, 3}).value().strides() == Strides{0, 0, 1});
  REQUIRE_FALSE(b.reshape({12}).has_value());
  // Empty and single-element layouts reshape freely.
  REQUIRE(contiguous({0, 3}).transpose(0, 1).value().reshape({0}).has_value());
  REQUIRE(Layout().reshape({1, 1}).value().shape() == Shape{1, 1});
  REQUIRE(contiguous({1, 1}).reshape({}).value().rank() == 0);
}

TEST_CASE("broadcast_to follows NumPy's rules") {
  const Layout l = contiguous({3, 1});
  const Layout b = l.broadcast_to({2, 3, 4}).value();
  REQUIRE(b.shape() == Shape{2, 3, 4});
  REQUIRE(b.strides() == Strides{0, 1, 0});
  REQUIRE(contiguous({1}).broadcast_to({0}).value().numel() == 0);
  REQUIRE(Layout().broadcast_to({2, 2}).value().strides() == Strides{0, 0});
  require_error(l.broadcast_to({3}), ShapeErrorKind::broadcast_incompatible,
                "broadcast_to: shape [3, 1] cannot be broadcast with [3]");
  require_error(l.broadcast_to({2, 4}), ShapeErrorKind::broadcast_incompatible,
                "broadcast_to: shape [3, 1] cannot be broadcast with [2, 4]");
  const auto err = l.broadcast_to({2, 4}).error();
  REQUIRE(err.get_if<strided::shape_errors::BroadcastIncompatible>()->shape == Shape{3, 1});
  REQUIRE(err.get_if<strided::shape_errors::BroadcastIncompatible>()->target == Shape{2, 4});
}

TEST_CASE("broadcast_shape combines two shapes") {
  REQUIRE(strided::broadcast_shape({3, 1}, {4}).value() == Shape{3, 4});
  REQUIRE(strided::broadcast_shape({}, {2, 2}).value() == Shape{2, 2});
  REQUIRE(strided::broadcast_shape({1, 0}, {5, 1}).value() == Shape{5, 0});
  require_error(strided::broadcast_shape({2, 3}, {4}), ShapeErrorKind::broadcast_incompatible,
                "broadcast_shape: shape [2, 3] cannot be broadcast with [4]");
}

TEST_CASE("every layout error kind with its message") {
  const Layout l = contiguous({2, 4});
  require_error(l.transpose(0, 2), ShapeErrorKind::axis_out_of_range,
                "transpose: axis 2 is out of range for rank 2 (shape [2, 4])");
  require_error(l.permute({0}), ShapeErrorKind::rank_mismatch,
                "permute: 1 entries given for a tensor of rank 2");
  require_error(l.permute({0, 2}), ShapeErrorKind::axis_out_of_range,
                "permute: axis 2 is out of range for rank 2 (shape [2, 4])");
  require_error(l.permute({1, 1}), ShapeErrorKind::duplicate_axis,
                "permute: axis 1 appears more than once in [1, 1]");
  require_error(l.narrow(1, 3, 2), ShapeErrorKind::index_out_of_range,
                "narrow: range [3, 5) is out of bounds for axis 1 of size 4 (shape [2, 4])");
  require_error(l.narrow(1, 5, 0), ShapeErrorKind::index_out_of_range,
                "narrow: range [5, 5) is out of bounds for axis 1 of size 4 (shape [2, 4])");
  require_error(l.narrow(1, 2, huge), ShapeErrorKind::index_out_of_range,
                "narrow: range starting at 2 with length 18446744073709551615 overflows and is "
                "out of bounds for axis 1 of size 4 (shape [2, 4])");
  require_error(l.narrow(2, 0, 1), ShapeErrorKind::axis_out_of_range,
                "narrow: axis 2 is out of range for rank 2 (shape [2, 4])");
  require_error(l.reshape({3, 3}), ShapeErrorKind::element_count_mismatch,
                "reshape: 8 elements do not match shape [3, 3] (9 elements)");
  require_error(Layout::contiguous({huge, 2}), ShapeErrorKind::size_overflow,
                "contiguous: the element count, a stride or the offset of shape "
                "[18446744073709551615, 2] overflows");
  // (SIZE_MAX itself is strided::infer in reshape.)
  require_error(l.reshape({huge - 1, 4}), ShapeErrorKind::size_overflow,
                "reshape: the element count, a stride or the offset of shape "
                "[18446744073709551614, 4] overflows");
  require_error(l.broadcast_to({huge, 2, 4}), ShapeErrorKind::size_overflow,
                "broadcast_to: the element count, a stride or the offset of shape "
                "[18446744073709551615, 2, 4] overflows");
  require_error(Layout::contiguous(Shape(65, 1)), ShapeErrorKind::rank_too_large,
                "contiguous: rank 65 exceeds the maximum rank 64");
  require_error(l.reshape(Shape(65, 1)), ShapeErrorKind::rank_too_large,
                "reshape: rank 65 exceeds the maximum rank 64");
  require_error(l.broadcast_to(Shape(65, 1)), ShapeErrorKind::rank_too_large,
                "broadcast_to: rank 65 exceeds the maximum rank 64");
  REQUIRE(Layout::contiguous(Shape(64, 1)).has_value());
}

TEST_CASE("from_parts and check_storage catch layouts that overflow or leave the buffer") {
  const std::ptrdiff_t big = std::numeric_limits<std::ptrdiff_t>::max();
  require_error(Layout::from_parts({3}, {big}, 0), ShapeErrorKind::size_overflow,
                "layout: the element count, a stride or the offset of shape [3] overflows");
  require_error(Layout::from_parts({2}, {1, 1}, 0), ShapeErrorKind::rank_mismatch,
                "layout: 2 entries given for a tensor of rank 1");
  require_error(Layout::from_parts({2}, {1}, static_cast<std::size_t>(big)),
                ShapeErrorKind::size_overflow,
                "layout: the element count, a stride or the offset of shape [2] overflows");
  const Layout fits = Layout::from_parts({2, 3}, {3, 1}, 4).value();
  REQUIRE(fits.check_storage(10, "from_shared").has_value());
  require_error(fits.check_storage(9, "from_shared"), ShapeErrorKind::storage_out_of_bounds,
                "from_shared: a layout of shape [2, 3] reaches storage index 9, outside the "
                "buffer of length 9");
  const Layout reversed = Layout::from_parts({3}, {-1}, 1).value();
  require_error(reversed.check_storage(5, "as_strided"), ShapeErrorKind::storage_out_of_bounds,
                "as_strided: a layout of shape [3] reaches below storage index 0 (buffer length "
                "5)");
  REQUIRE(Layout::from_parts({3}, {-1}, 2).value().check_storage(3, "x").has_value());
  REQUIRE(Layout::from_parts({0, 3}, {1, 1}, 100).value().check_storage(0, "x").has_value());
}

TEST_CASE("storage_index and reach") {
  const Layout l = contiguous({3, 4}).transpose(0, 1).value().narrow(0, 1, 2).value();
  const std::size_t idx[] = {1, 2};
  REQUIRE(l.storage_index(idx) == 2 * 4 + 2);
  REQUIRE(l.reach().high == 1 + 8);
  REQUIRE(l.reach().low == 0);
}

TEST_CASE("error kinds convert to std::error_code") {
  std::error_code ec = ShapeErrorKind::axis_out_of_range;
  REQUIRE(std::string(ec.category().name()) == "strided.shape");
  REQUIRE(ec.message() == "axis_out_of_range");
  std::error_code dc = strided::DataErrorKind::empty_batch;
  REQUIRE(std::string(dc.category().name()) == "strided.data");
  REQUIRE(dc.message() == "empty_batch");
  REQUIRE(ec != dc);
  const auto e = contiguous({2}).transpose(0, 5).error();
  REQUIRE(e.code() == ShapeErrorKind::axis_out_of_range);
  REQUIRE(e.get_if<strided::shape_errors::AxisOutOfRange>()->axis == 5);
  REQUIRE(e.get_if<strided::shape_errors::AxisOutOfRange>()->shape == Shape{2});
  REQUIRE(std::string(e.op()) == "transpose");
}

TEST_CASE("data errors carry the sample index and shapes") {
  const auto m = strided::DataError::sample_shape_mismatch("stack_samples", 3, {2, 3}, {2, 4});
  REQUIRE(m.message() == "stack_samples: sample 3 has shape [2, 4], expected [2, 3]");
  REQUIRE(m.index() == 3);
  REQUIRE(strided::DataError::empty_batch("concat_batches").message() ==
          "concat_batches: no samples to batch");
  const auto wrapped =
      strided::DataError::from_shape(strided::ShapeError::size_overflow("stack", {huge}));
  REQUIRE(wrapped.kind() == strided::DataErrorKind::shape);
  REQUIRE(wrapped.shape_error()->kind() == ShapeErrorKind::size_overflow);
  REQUIRE(wrapped.message() ==
          "stack: the element count, a stride or the offset of shape [18446744073709551615] "
          "overflows");
  REQUIRE(strided::ShapeError::allocation_failed("zeros", 12).message() ==
          "zeros: could not allocate a buffer of 12 elements");
  REQUIRE(strided::ShapeError::index_out_of_range("select", 0, 7, {3}).message() ==
          "select: index 7 is out of bounds for axis 0 of size 3 (shape [3])");
  REQUIRE(strided::ShapeError::rank_required("transpose_2d", 3, 2).message() ==
          "transpose_2d: needs rank 2, got rank 3");
}

TEST_CASE("huge and zero sizes: no order dependence, no infer confusion (fuzz findings F2-F4)") {
  // F3: a zero-size axis anywhere means no elements, whatever the other sizes multiply to.
  REQUIRE(Layout::contiguous({7, huge, 0}).value().numel() == 0);
  REQUIRE(Layout::contiguous({0, 7, huge}).has_value() == false);  // its strides overflow
  REQUIRE(Layout::contiguous({7, huge, 0}).value().strides() == Strides{0, 0, 1});
  // F4: on a broadcast axis every start is the same element, even past PTRDIFF_MAX.
  const Layout wide = contiguous({1}).broadcast_to({huge - 1}).value();
  const Layout tail = wide.narrow(0, huge - 3, 2).value();
  REQUIRE(tail.shape() == Shape{2});
  REQUIRE(tail.offset() == 0);
  // F2: reshape_exact takes SIZE_MAX literally (reshape reads it as strided::infer).
  const Layout all = contiguous({1, 1}).broadcast_to({huge, 1}).value();
  REQUIRE(all.reshape_exact({huge}).value().strides() == Strides{0});
  REQUIRE(all.reshape({huge}).value().shape() == Shape{huge});  // inferred: the same size
  REQUIRE(all.flatten(0, 1).value().shape() == Shape{huge});
  REQUIRE(all.unflatten(1, {1, 1}).value().shape() == Shape{huge, 1, 1});
}

TEST_CASE("view ops whose argument is the layout's own shape") {
  // The shape is read while the copy changes: permute reads each entry after writing others.
  const Layout own = contiguous({1, 2, 0});  // its shape is also a permutation
  CHECK(own.permute(own.shape()).value() == own.permute({1, 2, 0}).value());
  const Layout grown = contiguous({2, 1});
  CHECK(grown.broadcast_to(grown.shape()).value() == Layout::from_parts({2, 1}, {1, 0}, 0).value());
  const Layout regrouped = contiguous({2, 3});
  CHECK(regrouped.reshape(regrouped.shape()).value() == regrouped);
}

TEST_CASE("reshape and flatten of a row-major layout give the row-major strides of the result") {
  // Their one-pass path for row-major layouts, against Layout::contiguous of the new shape:
  // sizes 0 and 1 anywhere, every merged range, results past the inline rank.
  for (const Shape& shape : {Shape{2, 3, 4}, Shape{3, 0, 2}, Shape{1, 5, 1}, Shape{0},
                             Shape{2, 1, 2, 1, 2, 1, 2, 1, 2}}) {
    CAPTURE(shape);
    const Layout l = contiguous(shape);
    const std::size_t n = l.numel();
    for (const Shape& target : {Shape{n}, Shape{1, n, 1}, Shape{n, 1, 1, 1, 1, 1, 1, 1}}) {
      CAPTURE(target);
      CHECK(l.reshape(target).value() == contiguous(target));
    }
    for (std::size_t first = 0; first < shape.size(); ++first) {
      for (std::size_t last = first; last < shape.size(); ++last) {
        Shape merged(shape.span().first(first));
        std::size_t size = 1;
        for (std::size_t k = first; k <= last; ++k) size *= shape[k];
        merged.push_back(size);
        for (std::size_t k = last + 1; k < shape.size(); ++k) merged.push_back(shape[k]);
        CAPTURE(first, last);
        CHECK(l.flatten(first, last).value() == contiguous(merged));
      }
    }
  }
  // Offsets are kept.
  const Layout shifted = Layout::contiguous({4, 3}, 7).value();
  CHECK(shifted.flatten(0, 1).value().offset() == 7);
  CHECK(shifted.reshape({2, 6}).value().offset() == 7);
}

TEST_CASE("flatten of any layout is the reshape to the merged shape") {
  // flatten keeps the strides of the axes it does not merge when that is what the reshape gives,
  // without the reshape's walk: against the reshape itself (shape, strides, offset, or the error
  // kind) on random views with sizes 0, 1 and 2-5, permuted, sliced with steps and flipped.
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int c = 0; c < 3000; ++c) {
    const std::size_t rank = 1 + rng() % 6;
    Shape shape(rank, 0);
    for (std::size_t& size : shape) size = rng() % 5 == 0 ? rng() % 2 : 2 + rng() % 4;
    Layout l = contiguous(shape);
    Shape perm(rank, 0);
    for (std::size_t k = 0; k < rank; ++k) perm[k] = k;
    std::shuffle(perm.begin(), perm.end(), rng);
    if (rng() % 2 == 0) l = l.permute(perm).value();
    const std::size_t dim = rng() % rank;
    if (rng() % 3 == 0)
      l = l.slice(dim, 0, strided::slice_end, 1 + static_cast<std::ptrdiff_t>(rng() % 2)).value();
    if (rng() % 3 == 0) l = l.flip(rng() % rank).value();
    const Shape& s = l.shape();
    for (std::size_t first = 0; first < rank; ++first)
      for (std::size_t last = first; last < rank; ++last) {
        Shape merged(s.span().first(first));
        std::size_t size = 1;
        for (std::size_t k = first; k <= last; ++k) size *= s[k];
        merged.push_back(size);
        for (std::size_t k = last + 1; k < rank; ++k) merged.push_back(s[k]);
        const auto flat = l.flatten(first, last);
        const auto reshaped = l.reshape(merged);
        CAPTURE(s, l.strides(), first, last);
        REQUIRE(flat.has_value() == reshaped.has_value());
        if (flat.has_value())
          CHECK(*flat == *reshaped);
        else
          CHECK(flat.error().kind() == reshaped.error().kind());
      }
  }
}

TEST_CASE("diagonal keeps the other axes in order and appends the diagonal") {
  // Every ordered pair of axes of a rank-4 layout, against the shape and strides written out.
  const Layout l = contiguous({2, 3, 4, 5});  // strides 60, 20, 5, 1
  for (std::size_t d0 = 0; d0 < 4; ++d0)
    for (std::size_t d1 = 0; d1 < 4; ++d1) {
      if (d0 == d1) continue;
      Shape shape;
      Strides strides;
      for (std::size_t k = 0; k < 4; ++k)
        if (k != d0 && k != d1) {
          shape.push_back(l.shape()[k]);
          strides.push_back(l.strides()[k]);
        }
      shape.push_back(std::min(l.shape()[d0], l.shape()[d1]));
      strides.push_back(l.strides()[d0] + l.strides()[d1]);
      CAPTURE(d0, d1);
      const Layout d = l.diagonal(0, d0, d1).value();
      CHECK(d.shape() == shape);
      CHECK(d.strides() == strides);
      CHECK(d.offset() == 0);
    }
}

TEST_CASE("broadcast_to gives stride 0 to every size-1 axis, grown or kept") {
  // NumPy's broadcast_to: a size-1 axis of the source gets stride 0 in the result even where the
  // target keeps its size 1, at the same rank and with new leading axes alike.
  const Layout l = Layout::from_parts({1, 3, 1}, {7, 2, 5}, 0).value();
  CHECK(l.broadcast_to({1, 3, 1}).value().strides() == Strides{0, 2, 0});
  CHECK(l.broadcast_to({4, 3, 1}).value().strides() == Strides{0, 2, 0});
  CHECK(l.broadcast_to({2, 1, 3, 6}).value().strides() == Strides{0, 0, 2, 0});
  CHECK(l.broadcast_to(l.shape()).value().strides() == Strides{0, 2, 0});
}

TEST_CASE("reshape past max_rank is rank_too_large whatever the vectors' capacity") {
  // The row-major path takes any rank the vectors hold without allocating, and vectors moved
  // into a layout can hold more than max_rank: such a reshape must still reach the general path
  // and its error (the path's count bound, sizes_below_bits, admits at most 63 axes).
  Shape sizes(strided::max_rank + 1, 1);
  Strides steps(strided::max_rank + 1, 1);
  sizes.erase(41, sizes.size());  // 41 entries, room for 65
  steps.erase(41, steps.size());
  Layout l = Layout::from_parts(std::move(sizes), std::move(steps), 0).value();
  REQUIRE(l.shape().capacity() > strided::max_rank);
  REQUIRE(l.strides().capacity() > strided::max_rank);
  require_error(l.reshape(Shape(strided::max_rank + 1, 1)), ShapeErrorKind::rank_too_large,
                "reshape: rank 65 exceeds the maximum rank 64");
  CHECK(l.reshape(Shape(strided::max_rank, 1)).value().rank() == strided::max_rank);
}

TEST_CASE("large sizes past the quick bounds take the exact count") {
  // reshape and broadcast_to bound the count by the largest size to the power of the rank; past
  // that bound the exact product decides, whether it fits or overflows.
  constexpr std::size_t big = std::size_t{1} << 40;
  CHECK(contiguous({big, 3}).reshape({3, big}).value() == contiguous({3, big}));
  CHECK(contiguous({big, 3}).reshape({3, 2, big / 2}).value() == contiguous({3, 2, big / 2}));
  CHECK(contiguous({1, 3}).broadcast_to({big, 3}).value().strides() == Strides{0, 1});
  CHECK(contiguous({1, 1, 1}).broadcast_to({big, big, 0}).value().numel() == 0);
  require_error(contiguous({1, 1}).broadcast_to({big, big}), ShapeErrorKind::size_overflow,
                "broadcast_to: the element count, a stride or the offset of shape "
                "[1099511627776, 1099511627776] overflows");
}

TEST_CASE("permute's quick path gives the general path's answer or error") {
  // Up to inline_rank permute checks and gathers in one pass into the copy it returns; past it,
  // the general path checks first, then gathers the same way (which the cases above test).
  // Random permutations, with a repeated or out-of-range entry or a wrong length now and then,
  // give the same view or the same error kind both ways, and in place.
  using strided_test::pick;
  strided_test::for_random_layouts(
      4000, [](const Layout& l, const Layout& deep, std::size_t added, strided_test::Rng& rng) {
        Shape perm(l.rank(), 0);
        for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = k;
        std::shuffle(perm.begin(), perm.end(), rng);
        if (pick(rng, 4) == 0 && !perm.empty())
          perm[pick(rng, perm.size())] = pick(rng, l.rank() + 2);
        if (pick(rng, 16) == 0) perm.push_back(perm.size());
        Shape deep_perm(added, 0);  // the leading axes stay in front
        for (std::size_t k = 0; k < added; ++k) deep_perm[k] = k;
        for (std::size_t axis : perm) deep_perm.push_back(axis + added);
        CAPTURE(l.shape(), l.strides(), perm);
        strided_test::require_same_view(l.permute(perm), deep.permute(deep_perm), added);
      });
}

TEST_CASE("views built inside a holder keep its other members") {
  // A type of the user's own that holds a layout beside other members, as Tensor does.
  struct Frame {
    std::string name;
    Layout layout;
  };
  const auto layout_of = [](auto& frame) -> auto& { return frame.layout; };
  const Frame frame{"rgb", Layout::contiguous({2, 3, 4}).value()};

  const Frame nhwc = Layout::permute_of(frame, layout_of, {1, 2, 0}).value();
  CHECK(nhwc.name == "rgb");
  CHECK(nhwc.layout.strides() == Strides{4, 1, 12});
  const Frame flat = Layout::reshape_of(frame, layout_of, {6, 4}).value();
  CHECK(flat.layout.strides() == Strides{4, 1});
  const Frame wide = Layout::broadcast_to_of(flat, layout_of, {6, 4}).value();
  CHECK(wide.layout.shape() == Shape{6, 4});
  const Frame diag = Layout::diagonal_of(frame, layout_of, 0, 1, 2).value();
  CHECK(diag.layout.shape() == Shape{2, 3});
  CHECK(Layout::permute_of(frame, layout_of, {0, 0, 1}).error().message() ==
        "permute: axis 0 appears more than once in [0, 0, 1]");
  CHECK(Layout::reshape_of(frame, layout_of, {5, 5}).error().kind() ==
        ShapeErrorKind::element_count_mismatch);
  // Past inline_rank the general path copies the holder under the allocation guard.
  const Frame deep{"deep", Layout::contiguous(Shape(strided::inline_rank + 1, 2)).value()};
  CHECK(Layout::reshape_of(deep, layout_of, {std::size_t{1} << 9}).value().name == "deep");
}
