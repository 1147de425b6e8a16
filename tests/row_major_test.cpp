// detail/row_major.hpp: the element-type-free half of Tensor's factories and materialisations,
// called directly, against Layout's own algebra and a naive row-major walk.
#include "strided/detail/row_major.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "strided/layout.hpp"
#include "support.hpp"

using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
namespace detail = strided::detail;

namespace {

constexpr std::size_t huge = std::numeric_limits<std::size_t>::max() / 2;

// The storage indices of `layout`'s elements in row-major order, by counting through its indices.
std::vector<std::size_t> naive_row_major(const Layout& layout) {
  std::vector<std::size_t> out;
  if (layout.empty()) return out;
  Shape index(layout.rank(), 0);
  do out.push_back(layout.storage_index(index.span()));
  while (strided_test::next_index(index, layout.shape()));
  return out;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

}  // namespace

TEST_CASE("row_major_layout is Layout::contiguous, errors included") {
  const Shape shapes[] = {{}, {0}, {3}, {2, 3, 4}, {1, 0, 5}};
  for (const Shape& shape : shapes)
    CHECK(detail::row_major_layout(shape).value() == Layout::contiguous(shape).value());
  CHECK(detail::row_major_layout(Shape(strided::max_rank + 1, 1)).error().kind() ==
        ShapeErrorKind::rank_too_large);
  CHECK(detail::row_major_layout({huge, 4}).error().kind() == ShapeErrorKind::size_overflow);
}

TEST_CASE("row_major_layout_for checks the element count and reports errors as the caller's") {
  CHECK(detail::row_major_layout_for("op", {2, 3}, 6).value() ==
        Layout::contiguous({2, 3}).value());
  CHECK(detail::row_major_layout_for("op", {2, 0}, 0).value().numel() == 0);
  strided_test::check_error(detail::row_major_layout_for("from_thing", {2, 2}, 3),
                            ShapeErrorKind::element_count_mismatch,
                            "from_thing: 3 elements do not match shape [2, 2] (4 elements)");
  const auto overflow = detail::row_major_layout_for("from_thing", {huge, 4}, 0);
  REQUIRE_FALSE(overflow.has_value());
  CHECK(overflow.error().kind() == ShapeErrorKind::size_overflow);
  CHECK(starts_with(overflow.error().message(), "from_thing: "));
  const auto rank = detail::row_major_layout_for("from_thing", Shape(strided::max_rank + 1, 1), 1);
  REQUIRE_FALSE(rank.has_value());
  CHECK(rank.error().kind() == ShapeErrorKind::rank_too_large);
  CHECK(starts_with(rank.error().message(), "from_thing: "));
}

TEST_CASE("check_buffer: a null buffer holds nothing, a layout stays inside its buffer") {
  const Layout three = Layout::contiguous({3}).value();
  CHECK(detail::check_buffer("wrap", false, 3, three).has_value());
  CHECK(detail::check_buffer("wrap", true, 0, Layout::contiguous({0}).value()).has_value());
  strided_test::check_error(detail::check_buffer("wrap", true, 3, three),
                            ShapeErrorKind::invalid_argument,
                            "wrap: null buffer with a non-zero length");
  const auto outside = detail::check_buffer("wrap", false, 2, three);
  REQUIRE_FALSE(outside.has_value());
  CHECK(outside.error().kind() == ShapeErrorKind::storage_out_of_bounds);
  CHECK(starts_with(outside.error().message(), "wrap: "));
  // A null buffer that claims nothing still fails a layout that reaches an element.
  CHECK(detail::check_buffer("wrap", true, 0, three).error().kind() ==
        ShapeErrorKind::storage_out_of_bounds);
}

TEST_CASE("copy_row_major writes any view's elements in row-major order") {
  STRIDED_TEST_RANDOM_SEED(seed);
  strided_test::Rng rng(seed);
  for (int round = 0; round < 500; ++round) {
    const Layout layout = strided_test::random_layout(rng, 256);
    const std::vector<std::size_t> expected = naive_row_major(layout);
    // Storage element i holds i, so the copy's values are the storage indices it read.
    std::size_t len = 0;
    for (std::size_t i : expected) len = std::max(len, i + 1);
    std::vector<std::uint32_t> storage(len);
    for (std::size_t i = 0; i < storage.size(); ++i) storage[i] = static_cast<std::uint32_t>(i);
    std::vector<std::uint32_t> out(layout.numel() + 1, 0xdeadbeef);  // one guard element
    detail::copy_row_major(reinterpret_cast<const std::byte*>(storage.data()), layout,
                           reinterpret_cast<std::byte*>(out.data()), sizeof(std::uint32_t));
    for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(out[i] == expected[i]);
    REQUIRE(out.back() == 0xdeadbeef);
  }
}
