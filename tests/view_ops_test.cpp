// ViewOps and BroadcastOps: every view op of Tensor<T>, AnyTensor and a class whose with_layout
// refuses some layouts gives the Layout op's layout and error (the op's name included); a class
// without BroadcastOps has no broadcast_to.
#include "strided/view_ops.hpp"

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "strided/any_tensor.hpp"
#include "strided/tensor.hpp"

using strided::AnyTensor;
using strided::Layout;
using strided::Result;
using strided::Shape;
using strided::ShapeError;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;

namespace {

/// A layout over no data whose with_layout refuses a layout that gives two indices one element
/// through a stride-0 axis, as a writable view must: the second form ViewOps accepts.
class Distinct : public strided::ViewOps<Distinct> {
 public:
  explicit Distinct(Layout layout) : layout_(std::move(layout)) {}
  const Layout& layout() const noexcept { return layout_; }
  std::size_t storage_len() const noexcept { return 1u << 20; }

 private:
  friend class strided::ViewOps<Distinct>;
  Result<Distinct> with_layout(Layout layout) const {
    for (std::size_t k = 0; k < layout.rank(); ++k)
      if (layout.shape()[k] > 1 && layout.strides()[k] == 0)
        return ShapeError::invalid_argument("with_layout", "repeated elements");
    return Distinct(std::move(layout));
  }
  Layout layout_;
};

template <class V>
concept Broadcastable = requires(const V& v, const Shape& s) {
  v.broadcast_to(s);
};
static_assert(Broadcastable<Tensor<float>> && Broadcastable<AnyTensor>);
static_assert(!Broadcastable<Distinct>);

/// `got`, a view op's result, is `expected`, the Layout op's, or its error with the same message.
template <class V>
void require_same(const Result<V>& got, const Result<Layout>& expected) {
  REQUIRE(got.has_value() == expected.has_value());
  if (expected)
    CHECK(got->layout() == *expected);
  else
    CHECK(got.error().message() == expected.error().message());
}

/// Each holder of `base` (a Tensor over a buffer it fits in, its AnyTensor, a Distinct) gives
/// what `op` gives the layout itself; Distinct refuses exactly the layouts that repeat elements.
template <class Op>
void check_op(const Layout& base, Op op) {
  const Tensor<int> buffer = Tensor<int>::zeros({1u << 10}).value();
  const Tensor<int> t = buffer.as_strided(base.shape(), base.strides(), base.offset()).value();
  const Result<Layout> expected = op(base);
  require_same(op(t), expected);
  require_same(op(AnyTensor(t)), expected);
  const Result<Distinct> distinct = op(Distinct(base));
  bool repeats = false;
  if (expected)
    for (std::size_t k = 0; k < expected->rank(); ++k)
      repeats |= expected->shape()[k] > 1 && expected->strides()[k] == 0;
  if (!repeats) {
    require_same(distinct, expected);
  } else {
    REQUIRE_FALSE(distinct.has_value());
    CHECK(distinct.error().kind() == ShapeErrorKind::invalid_argument);
  }
  if (auto shared = op(t); shared) CHECK(shared->shares_storage_with(buffer));
}

}  // namespace

#define CHECK_OP(base, ...) check_op(base, [&](const auto& v_) { return v_.__VA_ARGS__; })

TEST_CASE("every view op of Tensor, AnyTensor and a refusing class is the Layout op") {
  const Layout l = Layout::contiguous({2, 3, 4}).value();
  const Layout t = l.transpose(0, 2).value();             // not contiguous
  const Layout b = l.broadcast_to({2, 2, 3, 4}).value();  // a stride-0 axis
  for (const Layout& base : {l, t, b}) {
    CAPTURE(base.shape(), base.strides());
    CHECK_OP(base, transpose(0, 2));
    CHECK_OP(base, transpose(0, 4));
    CHECK_OP(base, permute(Shape{2, 0, 1}));
    CHECK_OP(base, permute(Shape{2, 0, 2}));
    CHECK_OP(base, narrow(1, 1, 2));
    CHECK_OP(base, narrow(1, 2, 2));
    CHECK_OP(base, reshape(Shape{6, strided::infer}));
    CHECK_OP(base, reshape(Shape{4, 6}));
    CHECK_OP(base, reshape(Shape{5, 5}));
    CHECK_OP(base, reshape(Shape(9, 2)));  // rank 9: past the inline capacity
    CHECK_OP(base, reshape(Shape{2, 3, 2, 2, 1, 1, 1, 1, 1}));
    CHECK_OP(base, slice(2, -1, strided::slice_end, -2));
    CHECK_OP(base, slice(2, 0, 4, 0));
    CHECK_OP(base, flip(Shape{0, 2}));
    CHECK_OP(base, flip(Shape{0, 0}));
    CHECK_OP(base, flip(1));
    CHECK_OP(base, squeeze());
    CHECK_OP(base, squeeze(1));
    CHECK_OP(base, unsqueeze(3));
    CHECK_OP(base, unsqueeze(5));
    CHECK_OP(base, select(1, 2));
    CHECK_OP(base, select(1, 3));
    CHECK_OP(base, flatten(1, 2));
    CHECK_OP(base, flatten(2, 1));
    CHECK_OP(base, unflatten(2, Shape{2, 2}));
    CHECK_OP(base, unflatten(2, Shape{3, 2}));
    CHECK_OP(base, movedim(0, 2));
    CHECK_OP(base, movedim(4, 0));
    CHECK_OP(base, diagonal(1, 1, 2));
    CHECK_OP(base, diagonal(0, 1, 1));
  }
}

TEST_CASE("the ops ViewOps builds from others, and the pieces") {
  const Tensor<int> t = Tensor<int>::zeros({2, 3, 4}).value();
  const AnyTensor a = t;
  const Distinct d(t.layout());
  const Layout m = Layout::contiguous({3, 5}).value();
  CHECK(t.flatten().value().shape() == Shape{24});
  CHECK(a.flatten().value().shape() == Shape{24});
  CHECK(d.flatten().value().layout() == t.layout().flatten(0, 2).value());
  CHECK(Tensor<int>::scalar(1).flatten().value().shape() == Shape{1});
  CHECK(Distinct(m).transpose_2d().value().layout() == m.transpose(0, 1).value());
  CHECK(t.transpose_2d().error().message() == "transpose_2d: needs rank 2, got rank 3");
  CHECK(a.transpose_2d().error().message() == d.transpose_2d().error().message());
  // split, chunk and unbind: one view per Layout piece, sharing the buffer.
  const std::vector<Layout> pieces = t.layout().split(2, 3).value();
  const auto ts = t.split(2, 3).value();
  const auto as = a.split(2, 3).value();
  const auto ds = d.split(2, 3).value();
  REQUIRE(ts.size() == pieces.size());
  REQUIRE(as.size() == pieces.size());
  REQUIRE(ds.size() == pieces.size());
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    CHECK(ts[k].layout() == pieces[k]);
    CHECK(as[k].layout() == pieces[k]);
    CHECK(ds[k].layout() == pieces[k]);
    CHECK(ts[k].shares_storage_with(t));
  }
  CHECK(a.chunk(1, 2).value().size() == t.layout().chunk(1, 2).value().size());
  CHECK(d.unbind(0).value()[1].layout() == t.layout().unbind(0).value()[1]);
  CHECK(t.unbind(3).error().message() ==
        "unbind: axis 3 is out of range for rank 3 (shape [2, 3, 4])");
  CHECK(a.split(0, 0).error().message() == "split: the piece size must not be zero");
  CHECK(d.chunk(0, 0).error().message() == t.chunk(0, 0).error().message());
  // as_strided is checked against the buffer's length.
  CHECK(a.as_strided({4}, {6}, 0).value().strides() == Strides{6});
  CHECK(t.as_strided({4}, {8}, 0).error().kind() == ShapeErrorKind::storage_out_of_bounds);
  CHECK(d.as_strided({2, 2}, {0, 1}, 0).error().message().find("as_strided") == 0);
}

TEST_CASE("a refusing with_layout's error is named after the op") {
  const Layout b = Layout::contiguous({1, 3}).value().broadcast_to({4, 3}).value();
  const Distinct d(b);
  const auto moved = d.transpose(0, 1);
  REQUIRE_FALSE(moved.has_value());
  CHECK(moved.error().message().find("transpose") == 0);
  CHECK(moved.error().message().find("repeated elements") != std::string::npos);
  CHECK(d.select(0, 1).value().layout() == b.select(0, 1).value());  // no stride-0 axis left
}

TEST_CASE("broadcast_to and broadcast_with through BroadcastOps") {
  const Tensor<int> t = Tensor<int>::zeros({3, 1}).value();
  const AnyTensor a = t;
  for (const Shape& target : {Shape{3, 4}, Shape{2, 3, 4}, Shape{5, 2, 3, 1}, Shape{4, 4}, Shape{4},
                              Shape(9, 1), Shape{2, 2, 2, 2, 2, 2, 3, 7}}) {
    CAPTURE(target);
    require_same(t.broadcast_to(target), t.layout().broadcast_to(target));
    require_same(a.broadcast_to(target), t.layout().broadcast_to(target));
  }
  const auto pair = a.broadcast_with(Tensor<float>::zeros({2, 1, 4}).value()).value();
  CHECK(pair.first.shape() == Shape{2, 3, 4});
  CHECK(pair.second.shape() == Shape{2, 3, 4});
  CHECK(pair.first.dtype() == strided::DType::i32);
  CHECK(t.broadcast_with(Tensor<int>::zeros({4, 2}).value()).error().kind() ==
        ShapeErrorKind::broadcast_incompatible);
}
