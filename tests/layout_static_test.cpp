// The layout algebra in constant expressions: this file only has to compile.
#include <strided/layout.hpp>

#include "catch_shim.hpp"

namespace {
using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;

static_assert(Layout::contiguous({2, 3, 4}).value().transpose(0, 2).value().strides() ==
              Strides{1, 4, 12});
static_assert(Layout::contiguous({2, 3, 4}).value().permute({2, 0, 1}).value().shape() ==
              Shape{4, 2, 3});
static_assert(Layout::contiguous({4, 5}).value().narrow(1, 2, 3).value().offset() == 2);
static_assert(Layout::contiguous({2, 3, 4}).value().reshape({6, 4}).value().strides() ==
              Strides{4, 1});
static_assert(Layout::contiguous({3, 1}).value().broadcast_to({2, 3, 4}).value().strides() ==
              Strides{0, 1, 0});
static_assert(strided::broadcast_shape({3, 1}, {4}).value() == Shape{3, 4});
static_assert(!Layout::contiguous({2, 3}).value().transpose(0, 1).value().is_contiguous());
static_assert(
    Layout::contiguous({4, 6}).value().transpose(0, 1).value().reshape({24}).error().kind() ==
    ShapeErrorKind::non_contiguous_reshape);
static_assert(Layout::contiguous({2}).value().transpose(0, 3).error().kind() ==
              ShapeErrorKind::axis_out_of_range);
static_assert(Layout::contiguous({2, 4}).value().permute({1, 1}).error().kind() ==
              ShapeErrorKind::duplicate_axis);
static_assert(Layout::contiguous({2, 4}).value().narrow(1, 3, 2).error().kind() ==
              ShapeErrorKind::index_out_of_range);

// Rank 10: the shape spills to the heap, still inside constant evaluation.
constexpr Strides rank10_strides() {
  Shape s(10, 2);
  return Layout::contiguous(s).value().transpose(0, 9).value().strides();
}
static_assert(rank10_strides()[0] == 1 && rank10_strides()[9] == 512);
}  // namespace

TEST_CASE("layout algebra compiles in constant expressions") { SUCCEED(); }
