// ShapeError's details: each named constructor builds the aggregate of its name with the fields
// it was given, get_if reads only that one, and no accessor on ShapeError reads a field whose
// meaning depends on the kind.
#include <strided/error.hpp>
#include <strided/layout.hpp>
#include <string>
#include <utility>

#include "catch_shim.hpp"

namespace {
namespace se = strided::shape_errors;
using strided::Shape;
using strided::ShapeError;
using strided::ShapeErrorKind;

// How many details types `e` holds: get_if must answer for exactly one.
template <class... P>
int details_held(const ShapeError& e) {
  return ((e.get_if<P>() != nullptr ? 1 : 0) + ...);
}
int details_held(const ShapeError& e) {
  return details_held<se::NoDetails, se::ElementCountMismatch, se::InferMismatch, se::SizeOverflow,
                      se::RankTooLarge, se::RankMismatch, se::RankRequired, se::AxisOutOfRange,
                      se::DuplicateAxis, se::IndexOutOfRange, se::RangeOutOfRange,
                      se::NonContiguousReshape, se::BroadcastIncompatible, se::InvalidArgument,
                      se::InvalidAxisArgument, se::StorageOutOfBounds, se::StorageBelowZero,
                      se::AllocationFailed, se::OutOfMemory, se::MemoryOverlap>(e);
}

// The details of `e`, which must be a `P` raised by `op` with kind `kind`.
template <class P>
const P& details(const ShapeError& e, const char* op, ShapeErrorKind kind) {
  REQUIRE(std::string(e.op()) == op);
  REQUIRE(e.kind() == kind);
  REQUIRE(P::kind == kind);
  REQUIRE(details_held(e) == 1);
  REQUIRE(e.get_if<P>() != nullptr);
  return *e.get_if<P>();
}
}  // namespace

TEST_CASE("element count details: data length and shape, or the shape as written with infer") {
  const auto e = ShapeError::element_count_mismatch("from_vector", 5, {2, 3});
  const auto& d =
      details<se::ElementCountMismatch>(e, "from_vector", ShapeErrorKind::element_count_mismatch);
  REQUIRE(d.elements == 5);
  REQUIRE(d.shape == Shape{2, 3});
  REQUIRE(e.message() == "from_vector: 5 elements do not match shape [2, 3] (6 elements)");

  const auto i = ShapeError::infer_mismatch("reshape", 7, 2, {2, strided::infer});
  const auto& n = details<se::InferMismatch>(i, "reshape", ShapeErrorKind::element_count_mismatch);
  REQUIRE(n.numel == 7);
  REQUIRE(n.others == 2);
  REQUIRE(n.shape == Shape{2, strided::infer});
  REQUIRE(i.message() ==
          "reshape: shape [2, infer] cannot hold 7 elements: 7 is not a multiple of 2, the "
          "product of the other sizes");
}

TEST_CASE("rank details: too large, entries given, rank required") {
  const auto big = ShapeError::rank_too_large("unsqueeze", 65);
  REQUIRE(details<se::RankTooLarge>(big, "unsqueeze", ShapeErrorKind::rank_too_large).rank == 65);

  const auto given = ShapeError::rank_mismatch("at", 2, 3);
  const auto& m = details<se::RankMismatch>(given, "at", ShapeErrorKind::rank_mismatch);
  REQUIRE(m.rank == 2);
  REQUIRE(m.entries == 3);
  REQUIRE(given.message() == "at: 3 entries given for a tensor of rank 2");

  // The tensor's rank comes second in both constructors, after op.
  const auto needs = ShapeError::rank_required("transpose_2d", 3, 2);
  const auto& r = details<se::RankRequired>(needs, "transpose_2d", ShapeErrorKind::rank_mismatch);
  REQUIRE(r.rank == 3);
  REQUIRE(r.required == 2);
  REQUIRE(needs.get_if<se::RankMismatch>() == nullptr);
}

TEST_CASE("axis details: out of range, duplicate, invalid argument about an axis") {
  const auto out = strided::Layout::contiguous({2, 3}).value().transpose(0, 4).error();
  const auto& a = details<se::AxisOutOfRange>(out, "transpose", ShapeErrorKind::axis_out_of_range);
  REQUIRE(a.axis == 4);
  REQUIRE(a.shape == Shape{2, 3});

  const auto dup = strided::Layout::contiguous({2, 3}).value().permute({1, 1}).error();
  const auto& d = details<se::DuplicateAxis>(dup, "permute", ShapeErrorKind::duplicate_axis);
  REQUIRE(d.axis == 1);
  REQUIRE(d.axes == Shape{1, 1});

  const auto sq = strided::Layout::contiguous({4, 2}).value().squeeze(0).error();
  const auto& s = details<se::InvalidAxisArgument>(sq, "squeeze", ShapeErrorKind::invalid_argument);
  REQUIRE(s.axis == 0);
  REQUIRE(s.shape == Shape{4, 2});
  REQUIRE(std::string(s.what) == "only an axis of size 1 can be squeezed");
  REQUIRE(sq.message() ==
          "squeeze: axis 0 of size 4 (shape [4, 2]): only an axis of size 1 can be squeezed");
}

TEST_CASE("index details: one index, or a range with its start and length") {
  const auto one = ShapeError::index_out_of_range("select", 1, 7, {2, 3});
  const auto& i = details<se::IndexOutOfRange>(one, "select", ShapeErrorKind::index_out_of_range);
  REQUIRE(i.axis == 1);
  REQUIRE(i.index == 7);
  REQUIRE(i.shape == Shape{2, 3});

  const auto range = strided::Layout::contiguous({4, 5}).value().narrow(1, 3, 4).error();
  const auto& r = details<se::RangeOutOfRange>(range, "narrow", ShapeErrorKind::index_out_of_range);
  REQUIRE(r.axis == 1);
  REQUIRE(r.start == 3);
  REQUIRE(r.length == 4);
  REQUIRE(r.shape == Shape{4, 5});
  REQUIRE(range.message() ==
          "narrow: range [3, 7) is out of bounds for axis 1 of size 5 (shape "
          "[4, 5])");
}

TEST_CASE("two-shape details: reshape without a view, broadcast") {
  const auto view =
      strided::Layout::contiguous({2, 3}).value().transpose(0, 1).value().reshape({6});
  const auto& v = details<se::NonContiguousReshape>(view.error(), "reshape",
                                                    ShapeErrorKind::non_contiguous_reshape);
  REQUIRE(v.shape == Shape{3, 2});
  REQUIRE(v.target == Shape{6});

  const auto b = strided::broadcast_shape({2, 3}, {4});
  const auto& w = details<se::BroadcastIncompatible>(b.error(), "broadcast_shape",
                                                     ShapeErrorKind::broadcast_incompatible);
  REQUIRE(w.shape == Shape{2, 3});
  REQUIRE(w.target == Shape{4});
}

TEST_CASE("storage details: an index reached past the end, or below zero") {
  const auto past = ShapeError::storage_out_of_bounds("from_parts", 9, 4, {3});
  const auto& p =
      details<se::StorageOutOfBounds>(past, "from_parts", ShapeErrorKind::storage_out_of_bounds);
  REQUIRE(p.index == 9);
  REQUIRE(p.storage_len == 4);
  REQUIRE(p.shape == Shape{3});

  const auto below = ShapeError::storage_below_zero("from_parts", 4, {3});
  const auto& z =
      details<se::StorageBelowZero>(below, "from_parts", ShapeErrorKind::storage_out_of_bounds);
  REQUIRE(z.storage_len == 4);
  REQUIRE(z.shape == Shape{3});
  REQUIRE(below.message() ==
          "from_parts: a layout of shape [3] reaches below storage index 0 (buffer length 4)");
}

TEST_CASE("details with one value or none: overflow, argument, allocation, a bare kind") {
  const auto o = ShapeError::size_overflow("contiguous", {5, 7});
  REQUIRE(details<se::SizeOverflow>(o, "contiguous", ShapeErrorKind::size_overflow).shape ==
          Shape{5, 7});
  const auto a = ShapeError::invalid_argument("slice", "step must not be zero");
  REQUIRE(std::string(
              details<se::InvalidArgument>(a, "slice", ShapeErrorKind::invalid_argument).what) ==
          "step must not be zero");
  const auto f = ShapeError::allocation_failed("zeros", 12);
  REQUIRE(details<se::AllocationFailed>(f, "zeros", ShapeErrorKind::allocation_failed).elements ==
          12);
  const auto m = ShapeError::out_of_memory("split");
  details<se::OutOfMemory>(m, "split", ShapeErrorKind::allocation_failed);
  REQUIRE(m.message() == "split: out of memory");

  const ShapeError bare(ShapeErrorKind::size_overflow, "op");
  REQUIRE(details_held(bare) == 1);
  REQUIRE(bare.get_if<se::NoDetails>() != nullptr);
  REQUIRE(bare.message() == "op: size overflow");
  REQUIRE(ShapeError(ShapeErrorKind::invalid_argument, "op").message() == "op: invalid argument");
}

TEST_CASE("visit hands over the details; copies and assignments carry them") {
  const Shape heap{1, 2, 3, 4, 5, 6, 7, 8, 9};  // past strided::inline_rank
  static_assert(strided::inline_rank < 9);
  const auto e = ShapeError::index_out_of_range("select", 0, 3, heap);
  const std::size_t rank = e.visit([](const auto& d) -> std::size_t {
    if constexpr (requires { d.shape; })
      return d.shape.size();
    else
      return 0;
  });
  REQUIRE(rank == 9);

  ShapeError copy = e;
  REQUIRE(copy.get_if<se::IndexOutOfRange>()->shape == heap);
  copy = ShapeError::broadcast_incompatible("b", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {2});
  REQUIRE(copy.get_if<se::IndexOutOfRange>() == nullptr);
  REQUIRE(copy.get_if<se::BroadcastIncompatible>()->shape.size() == 10);
  copy = e;
  REQUIRE(copy.message() == e.message());
  ShapeError moved = std::move(copy);
  REQUIRE(moved.get_if<se::IndexOutOfRange>()->index == 3);
  REQUIRE(e.in("at").get_if<se::IndexOutOfRange>()->shape.size() == 9);
}

namespace {
// In constant evaluation too, with shapes on the heap: built, copied, reassigned and read.
constexpr bool details_are_constexpr() {
  const Shape nine(9, 2);
  ShapeError e = ShapeError::range_out_of_range("narrow", 6, 1, 4, nine);
  ShapeError copy = e;
  const bool range_kept = copy.get_if<se::RangeOutOfRange>()->shape.size() == 9;
  copy = ShapeError::duplicate_axis("permute", 0, Shape(10, 0));
  const bool replaced = copy.get_if<se::RangeOutOfRange>() == nullptr &&
                        copy.get_if<se::DuplicateAxis>()->axes.size() == 10;
  copy = std::move(e);
  const se::RangeOutOfRange* r = copy.get_if<se::RangeOutOfRange>();
  return range_kept && replaced && r != nullptr && r->axis == 6 && r->start == 1 && r->length == 4;
}
static_assert(details_are_constexpr());
// The fields are read by name through get_if: no generic accessor that means one field for one
// kind and another for the next.
template <class E>
concept generic_accessor = requires(const E& e) {
  e.lhs();
}
|| requires(const E& e) { e.rhs(); }
|| requires(const E& e) { e.index(); }
|| requires(const E& e) { e.length(); }
|| requires(const E& e) { e.axis(); }
|| requires(const E& e) { e.rank(); };
static_assert(!generic_accessor<ShapeError>);
static_assert(ShapeError::rank_required("transpose_2d", 3, 2).get_if<se::RankRequired>()->rank ==
              3);
}  // namespace

TEST_CASE("memory_overlap details: between source and destination, or within a destination") {
  const auto o = ShapeError::memory_overlap("copy_to");
  REQUIRE_FALSE(
      details<se::MemoryOverlap>(o, "copy_to", ShapeErrorKind::memory_overlap).within_destination);
  REQUIRE(o.message() == "copy_to: the source and the destination overlap in memory");
  const auto s = ShapeError::self_overlap("TensorSpan::from_parts");
  REQUIRE(details<se::MemoryOverlap>(s, "TensorSpan::from_parts", ShapeErrorKind::memory_overlap)
              .within_destination);
  REQUIRE(
      s.message() ==
      "TensorSpan::from_parts: the destination overlaps itself (two indices reach one element)");
  REQUIRE(std::string(strided::to_string(ShapeErrorKind::memory_overlap)) == "memory_overlap");
  const std::error_code code = ShapeErrorKind::memory_overlap;
  REQUIRE(code.message() == "memory_overlap");
}
