// for_each_run (strided/runs.hpp): runs are maximal, come in row-major order, and concatenated
// give exactly the elements get() sees; checked on fixed views and against a naive model on
// random views.
#include "strided/runs.hpp"

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "catch_shim.hpp"
#include "support.hpp"

using strided::Shape;
using strided::Tensor;

namespace {

struct Run {
  const float* first;
  std::size_t length;
  std::ptrdiff_t stride;
};

std::vector<Run> runs_of(const Tensor<float>& t) {
  std::vector<Run> out;
  strided::for_each_run(t, [&](const float* p, std::size_t n, std::ptrdiff_t s) {
    out.push_back({p, n, s});
  });
  return out;
}

Tensor<float> iota(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t e : shape) n *= e;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
  return Tensor<float>::from_vector(std::move(v), shape).value();
}

// The elements by get(), in row-major order (the reference).
std::vector<float> by_get(const Tensor<float>& t) {
  std::vector<float> out;
  if (t.empty()) return out;
  Shape index(t.rank(), 0);
  while (true) {
    out.push_back(t.get(index).value());
    std::size_t k = t.rank();
    while (k > 0 && ++index[k - 1] == t.shape()[k - 1]) index[--k] = 0;
    if (k == 0) return out;
  }
}

std::vector<float> concatenated(const std::vector<Run>& runs) {
  std::vector<float> out;
  for (const Run& r : runs)
    for (std::size_t i = 0; i < r.length; ++i)
      out.push_back(r.first[static_cast<std::ptrdiff_t>(i) * r.stride]);
  return out;
}

// The storage index of every element, in row-major order, by the layout's own formula.
std::vector<std::ptrdiff_t> positions(const Tensor<float>& t) {
  std::vector<std::ptrdiff_t> out;
  Shape index(t.rank(), 0);
  do out.push_back(static_cast<std::ptrdiff_t>(t.layout().storage_index(index)));
  while (strided_test::next_index(index, t.shape()));
  return out;
}

// True when `where` cut into blocks of `m` is arithmetic progressions with one common step.
bool progressions(const std::vector<std::ptrdiff_t>& where, std::size_t m) {
  if (m < 2) return true;
  const std::ptrdiff_t step = where[1] - where[0];
  for (std::size_t b = 0; b < where.size(); b += m)
    for (std::size_t i = 1; i < m; ++i)
      if (where[b + i] - where[b + i - 1] != step) return false;
  return true;
}

}  // namespace

TEST_CASE("a contiguous tensor of any rank is one run of stride 1", "[runs]") {
  const auto t = iota({2, 3, 4});
  const auto runs = runs_of(t);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].first == t.storage().get());
  CHECK(runs[0].length == 24);
  CHECK(runs[0].stride == 1);
}

TEST_CASE("a transposed matrix is one run per row, of stride rows", "[runs]") {
  const auto t = iota({3, 5}).transpose(0, 1).value();  // shape [5, 3], strides [1, 5]
  const auto runs = runs_of(t);
  REQUIRE(runs.size() == 5);
  for (std::size_t r = 0; r < 5; ++r) {
    CHECK(runs[r].first == t.storage().get() + r);
    CHECK(runs[r].length == 3);
    CHECK(runs[r].stride == 5);
  }
}

TEST_CASE("rank 0 is one run of length 1; empty tensors have none", "[runs]") {
  const auto s = Tensor<float>::scalar(7.0f);
  const auto runs = runs_of(s);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].length == 1);
  CHECK(*runs[0].first == 7.0f);
  CHECK(runs_of(iota({2, 0, 3})).empty());
  CHECK(runs_of(iota({0})).empty());
}

TEST_CASE("runs merge across axes that walk one progression", "[runs]") {
  // Every other column of a [4, 7] matrix: rows do not merge (row stride 7 != 2 * 4).
  const auto cols = iota({4, 7}).slice(1, 0, strided::slice_end, 2).value();
  auto runs = runs_of(cols);
  REQUIRE(runs.size() == 4);
  CHECK(runs[0].length == 4);
  CHECK(runs[0].stride == 2);
  // Of a [4, 6] matrix they do: 0, 2, 4 | 6, 8, 10 | ... is one progression of stride 2.
  runs = runs_of(iota({4, 6}).slice(1, 0, strided::slice_end, 2).value());
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].length == 12);
  CHECK(runs[0].stride == 2);
  // Every other row of [4, 6]: rows 0 and 2 are not adjacent.
  const auto rows = iota({4, 6}).slice(0, 0, strided::slice_end, 2).value();
  runs = runs_of(rows);
  REQUIRE(runs.size() == 2);
  CHECK(runs[0].length == 6);
  // Size-1 axes never split a run.
  runs = runs_of(iota({1, 4, 1, 3, 1}));
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].length == 12);
}

TEST_CASE("negative and broadcast strides are runs too", "[runs]") {
  const auto flipped = iota({2, 5}).flip(Shape{0, 1}).value();  // fully reversed: one run
  auto runs = runs_of(flipped);
  REQUIRE(runs.size() == 1);
  CHECK(runs[0].length == 10);
  CHECK(runs[0].stride == -1);
  CHECK(*runs[0].first == 9.0f);
  const auto wide = iota({3, 1}).broadcast_to({3, 4}).value();
  runs = runs_of(wide);
  REQUIRE(runs.size() == 3);
  CHECK(runs[1].length == 4);
  CHECK(runs[1].stride == 0);
  CHECK(*runs[1].first == 1.0f);
}

TEST_CASE("runs on random views: row-major order, maximal, same elements as get()", "[runs]") {
  std::mt19937 rng(20);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t rank = rng() % 5;
    Shape shape;
    for (std::size_t k = 0; k < rank; ++k) shape.push_back(1 + rng() % 5);
    Tensor<float> t = iota(shape);
    if (rank > 1) t = t.transpose(rng() % rank, rng() % rank).value();
    if (rank > 0 && rng() % 2 == 0) t = t.flip(rng() % rank).value();
    if (rank > 0 && rng() % 2 == 0) {
      const std::size_t axis = rng() % rank;
      t = t.slice(axis, 0, strided::slice_end, 1 + static_cast<std::ptrdiff_t>(rng() % 2)).value();
    }
    INFO(strided::to_debug_string(t));
    const auto runs = runs_of(t);
    CHECK(concatenated(runs) == by_get(t));
    if (runs.empty()) continue;
    // Runs are uniform, and maximal: blocks of length * (next outer extent) elements are not
    // arithmetic progressions of one common stride (or they would have been one run).
    const std::size_t length = runs[0].length;
    for (const Run& r : runs) {
      CHECK(r.length == length);
      CHECK(r.stride == runs[0].stride);
    }
    const auto where = positions(t);
    CHECK(progressions(where, length));
    std::size_t suffix = 1, k = t.rank();
    while (k > 0 && suffix < length) suffix *= t.shape()[--k];
    REQUIRE(suffix == length);
    while (k > 0 && t.shape()[k - 1] == 1) --k;
    if (k > 0) CHECK_FALSE(progressions(where, length * t.shape()[k - 1]));
  }
}
