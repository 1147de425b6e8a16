// The layout algebra in constant expressions: this file only has to compile.
#include <iterator>
#include <strided/layout.hpp>
#include <type_traits>
#include <vector>

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

// operator==: shape, strides and offset all equal.
constexpr Layout row_major_2x3 = Layout::contiguous({2, 3}).value();
static_assert(row_major_2x3 == Layout::contiguous({2, 3}).value());
static_assert(row_major_2x3.transpose(0, 1).value().transpose(0, 1).value() == row_major_2x3);
static_assert(row_major_2x3 != Layout::contiguous({3, 2}).value());                     // shape
static_assert(row_major_2x3 != row_major_2x3.reshape({2, 3}).value().flip(1).value());  // strides
static_assert(row_major_2x3 != Layout::contiguous({2, 3}, 1).value());                  // offset
// The same shape and offset, strides differing only along an axis of size 1: not equal.
static_assert(Layout::from_parts({2, 1}, {1, 5}, 0).value() !=
              Layout::from_parts({2, 1}, {1, 1}, 0).value());
static_assert(Layout() == Layout::contiguous({}).value());

// reach() returns the public Reach.
static_assert(std::is_same_v<decltype(row_major_2x3.reach()), strided::Reach>);
static_assert(row_major_2x3.flip(0).value().reach() == strided::Reach{-3, 2});
}  // namespace

// strided's omitted slice bound is not called `end`: a using-directive leaves std::end, and an
// unqualified end(v) found by argument-dependent lookup, usable.
namespace uses_namespace_strided {
using namespace strided;
inline std::size_t size_by_end(const std::vector<int>& v) {
  using std::begin;
  using std::end;
  return static_cast<std::size_t>(end(v) - begin(v));
}
inline auto last_by_adl(const std::vector<int>& v) { return end(v); }
inline auto last_by_std(const std::vector<int>& v) { return std::end(v); }
static_assert(std::is_same_v<decltype(last_by_adl(std::declval<const std::vector<int>&>())),
                             std::vector<int>::const_iterator>);
static_assert(std::is_same_v<decltype(slice_end), const std::ptrdiff_t>);
static_assert(Layout::contiguous({5}).value().slice(0, slice_end, slice_end, -2).value().shape() ==
              Shape{3});
}  // namespace uses_namespace_strided

TEST_CASE("layout algebra compiles in constant expressions") { SUCCEED(); }
