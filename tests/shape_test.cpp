#include <array>
#include <forward_list>
#include <iomanip>
#include <iterator>
#include <list>
#include <numeric>
#include <sstream>
#include <strided/shape.hpp>
#include <vector>

#include "catch_shim.hpp"

using strided::Shape;
using strided::Strides;

TEST_CASE("Shape builds from braced lists, spans and integral ranges") {
  const Shape a{2, 3, 4};
  REQUIRE(a.size() == 3);
  REQUIRE(a[0] == 2);
  REQUIRE(a[2] == 4);

  const std::array<std::size_t, 2> raw{5, 6};
  const Shape b{std::span<const std::size_t>(raw)};
  REQUIRE(b == Shape{5, 6});

  const std::vector<int> ints{7, 8, 9};
  const Shape c(ints);
  REQUIRE(c == Shape{7, 8, 9});

  const std::list<long> longs{-1, 2};
  const Strides d(longs);
  REQUIRE(d == Strides{-1, 2});

  REQUIRE(Shape(3, 1) == Shape{1, 1, 1});
  REQUIRE(Shape{}.empty());
}

TEST_CASE("Shape and Strides build from an iterator pair, converting each entry") {
  const std::vector<int> ints{7, 8, 9};
  CHECK(Shape(ints.begin(), ints.end()) == Shape{7, 8, 9});
  CHECK(Shape(ints.begin() + 1, ints.end()) == Shape{8, 9});
  CHECK(Shape(ints.begin(), ints.begin()).empty());
  const long raw[] = {-3, 0, 4};
  CHECK(Strides(std::begin(raw), std::end(raw)) == Strides{-3, 0, 4});
  // Unsized (forward) and single-pass (input) iterators: entries appended one by one, past the
  // inline entries too.
  const std::forward_list<unsigned> listed{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  const Shape from_list(listed.begin(), listed.end());
  CHECK(from_list.size() == 10);
  CHECK(from_list[0] == 1);
  CHECK(from_list[9] == 10);
  std::istringstream text("2 3 4");
  const Shape read{std::istream_iterator<int>(text), std::istream_iterator<int>()};
  CHECK(read == Shape{2, 3, 4});
  // Not an iterator pair: two integers stay `count` copies of `value`.
  CHECK(Shape(2, 5) == Shape{5, 5});
  static constexpr long fixed[] = {1, 2, 3};
  STATIC_REQUIRE(Shape(std::begin(fixed), std::end(fixed)) == Shape{1, 2, 3});
  STATIC_REQUIRE(!std::is_constructible_v<Shape, const double*, const double*>);
  STATIC_REQUIRE(std::is_same_v<Shape, strided::AxisVector<std::size_t>>);
  STATIC_REQUIRE(std::is_same_v<Strides, strided::AxisVector<std::ptrdiff_t>>);
}

TEST_CASE("Shape keeps inline_rank entries inline") {
  STATIC_REQUIRE(strided::inline_rank == 8);  // the value docs/semantics.md gives
  // capacity() is what the views' no-allocation paths check before writing.
  CHECK(Shape(strided::inline_rank, 1).capacity() == strided::inline_rank);
  CHECK(Strides(strided::inline_rank, 1).capacity() == strided::inline_rank);
  CHECK(Shape(strided::inline_rank + 1, 1).capacity() > strided::inline_rank);
  Shape grown(strided::inline_rank, 3);
  grown.push_back(4);
  CHECK(grown.capacity() >= strided::inline_rank + 1);
  CHECK(grown == Shape{3, 3, 3, 3, 3, 3, 3, 3, 4});
}

TEST_CASE("Shape spills to the heap beyond inline_rank entries and keeps its values") {
  Shape s;
  for (std::size_t i = 0; i < 40; ++i) s.push_back(i);
  REQUIRE(s.size() == 40);
  for (std::size_t i = 0; i < 40; ++i) REQUIRE(s[i] == i);

  Shape copy = s;  // deep copy
  copy[0] = 99;
  REQUIRE(s[0] == 0);

  Shape moved = std::move(copy);
  REQUIRE(moved.size() == 40);
  REQUIRE(moved[0] == 99);

  Shape small{1, 2};
  small = s;
  REQUIRE(small == s);
  s = Shape{4};
  REQUIRE(s.size() == 1);
  REQUIRE(s[0] == 4);
}

TEST_CASE("Shape iteration, span conversion, insert and erase") {
  Shape s{1, 2, 3};
  REQUIRE(std::accumulate(s.begin(), s.end(), std::size_t{0}) == 6);
  const std::span<const std::size_t> view = s;
  REQUIRE(view.size() == 3);
  REQUIRE(view[1] == 2);
  s.insert(1, 9);
  REQUIRE(s == Shape{1, 9, 2, 3});
  s.erase(0);
  REQUIRE(s == Shape{9, 2, 3});
  s.resize(5);
  REQUIRE(s == Shape{9, 2, 3, 0, 0});
  REQUIRE(s.back() == 0);
  Shape written = s;
  written.resize_for_overwrite(2);  // keeps the first entries
  REQUIRE(written == Shape{9, 2});
  written.resize_for_overwrite(4);  // the added entries are the caller's to write
  written[2] = 7;
  written[3] = 8;
  REQUIRE(written == Shape{9, 2, 7, 8});
  REQUIRE(Shape{1, 2} != Shape{1, 2, 0});
  s.erase(1, 3);  // [first, last)
  REQUIRE(s == Shape{9, 0, 0});
  s.erase(1, 1);
  REQUIRE(s == Shape{9, 0, 0});
  Shape big(9, 1);  // on the heap
  big[8] = 5;
  big.erase(0, 7);
  REQUIRE(big == Shape{1, 5});
}

namespace {
constexpr std::size_t sum_of_big_shape() {
  Shape s;
  for (std::size_t i = 0; i < 20; ++i) s.push_back(i);  // heap storage, inside constant evaluation
  Shape t = s;
  std::size_t total = 0;
  for (std::size_t v : t) total += v;
  return total;
}
}  // namespace

TEST_CASE("Shape is usable in constant expressions at every rank") {
  STATIC_REQUIRE(Shape{2, 3}.size() == 2);
  STATIC_REQUIRE(Strides{1, -4}[1] == -4);
  STATIC_REQUIRE(sum_of_big_shape() == 190);
  STATIC_REQUIRE(strided::max_rank == 64);
}

TEST_CASE("Shape and Strides print as [a, b, c]") {
  CHECK(strided::to_string(Shape{8, 3, 3, 3}) == "[8, 3, 3, 3]");
  CHECK(strided::to_string(Shape{}) == "[]");
  CHECK(strided::to_string(Strides{9, -3, 0}) == "[9, -3, 0]");
  const Shape spilled{1, 2, 3, 4, 5, 6, 7, 8, 9};  // beyond the inline capacity
  CHECK(strided::to_string(spilled) == "[1, 2, 3, 4, 5, 6, 7, 8, 9]");
  std::ostringstream os;
  os << Shape{8, 3} << ' ' << Strides{-1} << '|' << std::setw(8) << Shape{2, 0} << '|';
  CHECK(os.str() == "[8, 3] [-1]|  [2, 0]|");
  std::ostringstream big;
  big << Shape{18446744073709551615u};
  CHECK(big.str() == "[18446744073709551615]");
}
