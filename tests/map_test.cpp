// map / zip_with (strided/map.hpp): results against a naive get() loop on random views (permuted,
// flipped, stepped, broadcast), every element-type pairing the docs use, broadcasting errors
// naming the shapes, empty and rank-0 tensors, and the engine's paths (in-place reads, broadcast
// loops, copies through scratch, tiles, a last tile column of width 1). Allocation failure is
// injected in alloc_failure_test.cpp.
#include "strided/map.hpp"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "strided/parallel.hpp"
#include "strided/tensor_span.hpp"
#include "support.hpp"

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Tensor;
using strided_test::next_index;

namespace {

template <class T>
Tensor<T> iota(const Shape& shape, std::size_t scale = 1) {
  std::size_t n = 1;
  for (std::size_t e : shape) n *= e;
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<T>((i * scale) % 251);
  return Tensor<T>::from_vector(std::move(v), shape).value();
}

// The element of `t` that index `out_index` of the broadcast shape `out` reads (NumPy's rules).
template <class T>
T broadcast_get(const Tensor<T>& t, const Shape& out_index) {
  Shape index(t.rank(), 0);
  const std::size_t lead = out_index.size() - t.rank();
  for (std::size_t k = 0; k < t.rank(); ++k) index[k] = t.shape()[k] == 1 ? 0 : out_index[lead + k];
  return t.get(index).value();
}

// Checks out[i] == f(in[i]...) for every index, reading everything with get().
template <class R, class F, class... T>
void check_against_get(const Tensor<R>& out, F f, const Tensor<T>&... in) {
  REQUIRE(out.is_contiguous());
  if (out.empty()) return;
  Shape index(out.rank(), 0);
  std::size_t mismatches = 0;
  do {
    const R want = f(broadcast_get(in, index)...);
    if (out.get(index).value() != want) ++mismatches;
  } while (next_index(index, out.shape()));
  CHECK(mismatches == 0);
}

// A random view over a fresh tensor: permuted, maybe flipped, stepped, narrowed or broadcast.
template <class T>
Tensor<T> random_view(std::mt19937& rng, std::size_t rank, std::size_t max_extent) {
  Shape shape;
  for (std::size_t k = 0; k < rank; ++k) shape.push_back(1 + rng() % max_extent);
  Tensor<T> t = iota<T>(shape, 1 + rng() % 7);
  if (rank > 1) {
    Shape perm;
    for (std::size_t k = 0; k < rank; ++k) perm.push_back(k);
    std::shuffle(perm.begin(), perm.end(), rng);
    t = t.permute(perm).value();
  }
  if (rank > 0 && rng() % 2 == 0) t = t.flip(rng() % rank).value();
  if (rank > 0 && rng() % 3 == 0) {
    const std::size_t axis = rng() % rank;
    t = t.slice(axis, 0, strided::slice_end, 1 + static_cast<std::ptrdiff_t>(rng() % 3)).value();
  }
  if (rank > 0 && rng() % 4 == 0) {  // stretch one axis: a stride-0 view
    const std::size_t axis = rng() % rank;
    Shape wide = t.shape();
    t = t.narrow(axis, 0, 1).value();
    wide[axis] = 1 + rng() % max_extent;
    t = t.broadcast_to(wide).value();
  }
  return t;
}

// A shape `target` broadcasts from: leading axes dropped, some axes set to 1.
Shape broadcastable_from(std::mt19937& rng, const Shape& target) {
  Shape s;
  const std::size_t drop = rng() % (target.size() + 1);
  for (std::size_t k = drop; k < target.size(); ++k) s.push_back(rng() % 3 == 0 ? 1 : target[k]);
  return s;
}

template <class T>
Tensor<T> view_of_shape(std::mt19937& rng, const Shape& shape) {
  // Built transposed and transposed back when possible, so the view is not contiguous.
  Tensor<T> t = iota<T>(shape, 1 + rng() % 5);
  if (shape.size() >= 2 && rng() % 2 == 0) {
    Shape swapped = shape;
    std::swap(swapped[0], swapped[shape.size() - 1]);
    t = iota<T>(swapped, 3).transpose(0, shape.size() - 1).value();
  }
  if (!shape.empty() && rng() % 3 == 0) t = t.flip(rng() % shape.size()).value();
  return t;
}

const auto affine = [](float v) { return v * 3.0f - 1.0f; };

}  // namespace

TEST_CASE("map equals a get() loop on random views", "[map]") {
  std::mt19937 rng(2020);
  for (int trial = 0; trial < 200; ++trial) {
    // Every tenth view is large enough for the tiled and parallel paths; the extent shrinks with
    // the rank so that the get() loop stays under ~100k elements (a 90^5 view took minutes at -O0).
    const std::size_t rank = rng() % 6;
    const std::size_t large_extent = rank <= 2 ? 300 : rank == 3 ? 40 : 10;
    const auto t = random_view<float>(rng, rank, trial % 10 == 0 ? large_extent : 7);
    INFO(strided::to_debug_string(t));
    const auto out = strided::map(t, affine);
    REQUIRE(out);
    CHECK(out->shape() == t.shape());
    check_against_get(*out, affine, t);
  }
}

TEST_CASE("map changes the element type to what f returns", "[map]") {
  const auto x = iota<float>({4, 5}).transpose(0, 1).value();
  const auto as_int = strided::map(x, [](float v) { return static_cast<std::int32_t>(v) * 2; });
  REQUIRE(as_int);
  STATIC_REQUIRE(std::is_same_v<std::decay_t<decltype(*as_int)>, Tensor<std::int32_t>>);
  check_against_get(
      *as_int, [](float v) { return static_cast<std::int32_t>(v) * 2; }, x);
  const auto pixels = iota<std::uint8_t>({2, 3, 4});
  const auto scaled = strided::map(pixels, [](std::uint8_t p) { return p / 255.0f; });
  REQUIRE(scaled);
  STATIC_REQUIRE(std::is_same_v<std::decay_t<decltype(*scaled)>, Tensor<float>>);
  check_against_get(
      *scaled, [](std::uint8_t p) { return p / 255.0f; }, pixels);
  const auto positive = strided::map(x, [](float v) { return v > 10.0f; });
  REQUIRE(positive);
  check_against_get(
      *positive, [](float v) { return v > 10.0f; }, x);
}

TEST_CASE("zip_with equals a get() loop on random broadcast views", "[zip_with]") {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t rank = rng() % 5;
    Shape target;
    const std::size_t large_extent = rank <= 2 ? 200 : rank == 3 ? 40 : 15;  // as above
    for (std::size_t k = 0; k < rank; ++k)
      target.push_back(1 + rng() % (trial % 8 == 0 ? large_extent : 6));
    const auto a = view_of_shape<float>(rng, broadcastable_from(rng, target));
    const auto b = view_of_shape<std::int16_t>(rng, broadcastable_from(rng, target));
    const auto c = view_of_shape<std::uint8_t>(rng, target);
    INFO(strided::to_debug_string(a) << "\n"
                                     << strided::to_debug_string(b) << "\n"
                                     << strided::to_debug_string(c));
    auto f = [](float x, std::int16_t y, std::uint8_t z) { return x * 2.0f - y + z * 0.5f; };
    const auto out = strided::zip_with(f, a, b, c);
    REQUIRE(out);
    CHECK(out->shape() == target);
    check_against_get(*out, f, a, b, c);
  }
}

TEST_CASE("per-channel normalisation: u8 images with [3, 1, 1] f32 mean and std", "[zip_with]") {
  const auto images = iota<std::uint8_t>({2, 3, 70, 90});  // > one chunk per image
  const auto mean = Tensor<float>::from_vector({0.485f, 0.456f, 0.406f}, {3, 1, 1}).value();
  const auto stdev = Tensor<float>::from_vector({0.229f, 0.224f, 0.225f}, {3, 1, 1}).value();
  auto normalize = [](std::uint8_t x, float m, float s) { return (x / 255.0f - m) / s; };
  const auto out = strided::zip_with(normalize, images, mean, stdev);
  REQUIRE(out);
  CHECK(out->shape() == Shape{2, 3, 70, 90});
  check_against_get(*out, normalize, images, mean, stdev);
  // The same from NHWC images: a permuted (non-contiguous) input.
  const auto nhwc = iota<std::uint8_t>({2, 70, 90, 3});
  const auto nchw = nhwc.permute({0, 3, 1, 2}).value();
  const auto from_nhwc = strided::zip_with(normalize, nchw, mean, stdev);
  REQUIRE(from_nhwc);
  check_against_get(*from_nhwc, normalize, nchw, mean, stdev);
}

TEST_CASE("zip_with paths: short broadcast rows, many inputs, width-1 tile columns", "[zip_with]") {
  const auto rows = iota<float>({300, 7});
  const auto row = iota<float>({7}, 3);
  auto add = [](float x, float y) { return x + y; };
  check_against_get(strided::zip_with(add, rows, row).value(), add, rows, row);
  const auto col = iota<float>({300, 1}, 5);
  check_against_get(strided::zip_with(add, rows, col).value(), add, rows, col);
  auto sum5 = [](float a, float b, float c, float d, float e) { return a + 2 * b + 3 * c - d + e; };
  const auto t = iota<float>({40, 33}).transpose(0, 1).value();
  const auto u = iota<float>({33, 1}, 2);
  const auto s = Tensor<float>::scalar(4.0f);
  const auto w = iota<float>({33, 40}, 7).flip(1).value();
  check_against_get(strided::zip_with(sum5, t, u, s, w, t).value(), sum5, t, u, s, w, t);
  // A transposed [512, 6337] view: tiles of 64 columns split 6337 into 99 x 64 + 1.
  const auto tall = iota<float>({6337, 512}).transpose(0, 1).value();
  check_against_get(strided::map(tall, affine).value(), affine, tall);
}

TEST_CASE("broadcasting errors name the shapes", "[zip_with][errors]") {
  auto add = [](float x, float y) { return x + y; };
  const auto r = strided::zip_with(add, iota<float>({2, 3, 4}), iota<float>({2}));
  REQUIRE_FALSE(r);
  CHECK(r.error().kind() == ShapeErrorKind::broadcast_incompatible);
  CHECK(r.error().op() == std::string("zip_with"));
  const std::string message = r.error().message();
  CHECK(message.find("[2, 3, 4]") != std::string::npos);
  CHECK(message.find("[2]") != std::string::npos);
  // With three inputs: the common shape of the first two, and the third.
  auto add3 = [](float x, float y, float z) { return x + y + z; };
  const auto r3 =
      strided::zip_with(add3, iota<float>({5, 1}), iota<float>({1, 4}), iota<float>({3}));
  REQUIRE_FALSE(r3);
  CHECK(r3.error().kind() == ShapeErrorKind::broadcast_incompatible);
  CHECK(r3.error().message().find("[5, 4]") != std::string::npos);
  CHECK(r3.error().message().find("[3]") != std::string::npos);
  // An empty axis broadcasts only against 1 or itself (NumPy).
  CHECK_FALSE(strided::zip_with(add, iota<float>({0}), iota<float>({2})));
}

TEST_CASE("empty tensors: the shape is kept and f is never called", "[map][zip_with]") {
  int calls = 0;
  auto counted = [&calls](float v) {
    ++calls;
    return v;
  };
  const auto out = strided::map(iota<float>({3, 0, 2}), counted);
  REQUIRE(out);
  CHECK(out->shape() == Shape{3, 0, 2});
  auto add = [&calls](float x, float y) {
    ++calls;
    return x + y;
  };
  const auto zipped = strided::zip_with(add, iota<float>({0, 4}), iota<float>({1, 4}));
  REQUIRE(zipped);
  CHECK(zipped->shape() == Shape{0, 4});
  CHECK(calls == 0);
}

TEST_CASE("rank 0: a scalar maps to a scalar and broadcasts against anything", "[map][zip_with]") {
  const auto s = Tensor<float>::scalar(2.5f);
  const auto m = strided::map(s, affine);
  REQUIRE(m);
  CHECK(m->rank() == 0);
  CHECK(m->get({}).value() == affine(2.5f));
  auto mul = [](float x, double y) { return x * y; };
  const auto t = iota<double>({2, 3});
  const auto z = strided::zip_with(mul, s, t);
  REQUIRE(z);
  CHECK(z->shape() == Shape{2, 3});
  check_against_get(*z, mul, s, t);
}

TEST_CASE("f is called exactly once per output element", "[map][zip_with]") {
  std::size_t calls = 0;
  auto counted = [&calls](float x, float y) {
    ++calls;
    return x - y;
  };
  const auto a = iota<float>({130, 257}).transpose(0, 1).value();
  const auto b = iota<float>({130});
  REQUIRE(strided::zip_with(counted, a, b));
  CHECK(calls == a.numel());
}

// The row loop runs in blocks of a 64-byte line of output, then the remainder: every length
// around the blocks, inputs dense or broadcast (Mask), and nothing written past the row.
template <unsigned Mask, class R, class A, class B>
void check_dense_row() {
  constexpr std::size_t block = strided::detail::zip::row_block<R>;
  std::vector<A> a(4 * block + 2);
  std::vector<B> b(4 * block + 2);
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<A>(i % 97 + 1);
    b[i] = static_cast<B>(i % 89 + 2);
  }
  auto f = [](A x, B y) { return static_cast<R>(x * 3 - y); };
  for (std::size_t n = 0; n <= 3 * block + 1; ++n) {
    std::vector<R> out(n + 1, R{7});
    strided::detail::zip::dense_row<Mask>(f, out.data(), n, a.data(), b.data());
    for (std::size_t i = 0; i < n; ++i) {
      const A x = (Mask & 1u) != 0 ? a[0] : a[i];
      const B y = (Mask & 2u) != 0 ? b[0] : b[i];
      INFO("n " << n << " i " << i << " mask " << Mask);
      REQUIRE(out[i] == f(x, y));
    }
    CHECK(out[n] == R{7});
  }
}

TEST_CASE("the row loop: lengths around its blocks, dense and broadcast inputs", "[map]") {
  check_dense_row<0u, float, float, float>();
  check_dense_row<1u, float, float, float>();
  check_dense_row<2u, double, double, float>();
  check_dense_row<3u, double, double, double>();
  check_dense_row<0u, std::uint8_t, std::uint8_t, std::uint8_t>();
  check_dense_row<2u, std::int16_t, std::int16_t, std::int32_t>();
}

TEST_CASE("an output too large to allocate is allocation_failed before f runs", "[map][errors]") {
  bool called = false;
  const auto huge = Tensor<float>::scalar(1.0f).broadcast_to({std::size_t{1} << 62}).value();
  const auto r = strided::map(huge, [&called](float v) {
    called = true;
    return v;
  });
  REQUIRE_FALSE(r);
  CHECK(r.error().kind() == ShapeErrorKind::allocation_failed);
  CHECK(r.error().op() == std::string("map"));
  CHECK_FALSE(called);
}

TEST_CASE("map and zip_with on the thread pool equal the one-thread result", "[map][threads]") {
  // 1 MiB outputs, above the parallel threshold; a transposed input takes the scratch path.
  const auto a = iota<float>({512, 512}).transpose(0, 1).value();
  const auto b = iota<float>({512});
  auto f = [](float x, float y) { return x * 0.5f - y; };
  strided::set_num_threads(1);
  const auto serial_map = strided::map(a, [](float v) { return v * 2 + 1; }).value();
  const auto serial_zip = strided::zip_with(f, a, b).value();
  for (std::size_t threads : {2u, 3u, 8u}) {
    strided::set_num_threads(threads);
    std::atomic<std::size_t> calls{0};
    const auto m = strided::map(a, [&calls](float v) {
                     calls.fetch_add(1, std::memory_order_relaxed);
                     return v * 2 + 1;
                   }).value();
    CHECK(calls.load() == a.numel());
    CHECK(m.to_vector() == serial_map.to_vector());
    CHECK(strided::zip_with(f, a, b).value().to_vector() == serial_zip.to_vector());
  }
  strided::set_num_threads(0);
}

// ----- map_into / zip_with_into: a strided destination in the caller's memory ------------------

namespace {

// A destination of `shape` inside a bigger buffer: axes permuted in memory, some flipped, maybe
// every other element, so that its strides are neither row-major nor positive.
strided::TensorSpan<float> random_destination(std::mt19937& rng, std::vector<float>& memory,
                                              const Shape& shape) {
  const std::size_t rank = shape.size();
  Shape perm(rank, 0), big(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), rng);
  const std::size_t step = rng() % 2 + 1;
  std::size_t n = 1;
  for (std::size_t k = 0; k < rank; ++k) n *= (big[k] = shape[perm[k]] * step + 1);
  memory.assign(n, -7.0f);
  auto dst = strided::TensorSpan<float>::dense(memory, big).value();
  for (std::size_t k = 0; k < rank; ++k) dst = dst.narrow(k, 1, shape[perm[k]] * step).value();
  Shape inverse(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) inverse[perm[k]] = k;
  dst = dst.permute(inverse).value();
  if (step == 2)  // every other element along each axis, through a reshape view [n, 2]
    for (std::size_t k = 0; k < rank; ++k) {
      Shape split = dst.shape();
      split[k] = shape[k];
      split.insert(k + 1, 2);
      dst = dst.reshape(split).value().select(k + 1, 0).value();
    }
  for (std::size_t k = 0; k < rank; ++k)
    if (rng() % 3 == 0) dst = dst.flip(k).value();
  return dst;
}

// The buffer a correct write of `values` into `dst` leaves, by a naive loop over dst's indices.
std::vector<float> scattered(const strided::TensorSpan<float>& dst, const Tensor<float>& values,
                             std::vector<float> memory) {
  std::fill(memory.begin(), memory.end(), -7.0f);
  if (dst.empty()) return memory;
  Shape index(dst.rank(), 0);
  do memory[dst.layout().storage_index(index)] = values.get(index).value();
  while (next_index(index, dst.shape()));
  return memory;
}

}  // namespace

TEST_CASE("map_into and zip_with_into write a strided destination as a naive loop does",
          "[map][zip_with][into]") {
  std::mt19937 rng(46);
  const auto g = [](float x, float y) { return x * 0.5f - y; };
  for (int trial = 0; trial < 120; ++trial) {
    const std::size_t rank = rng() % 5;
    const bool large = trial % 12 == 0;  // the tiled, scratch and parallel paths
    const auto a = random_view<float>(rng, rank, large ? (rank <= 2 ? 400 : 24) : 6);
    const auto b = view_of_shape<float>(rng, broadcastable_from(rng, a.shape()));
    INFO(strided::to_debug_string(a) << "\n" << strided::to_debug_string(b));
    std::vector<float> memory;
    const auto dst = random_destination(rng, memory, a.shape());
    const std::size_t threads = 1 + static_cast<std::size_t>(trial % 3);
    strided::set_num_threads(threads);
    REQUIRE(strided::map_into(dst, affine, a).has_value());
    CHECK(memory == scattered(dst, strided::map(a, affine).value(), memory));
    REQUIRE(strided::zip_with_into(dst, g, a, b).has_value());
    CHECK(memory == scattered(dst, strided::zip_with(g, a, b).value(), memory));
  }
  strided::set_num_threads(0);
}

TEST_CASE("zip_with_into converts f's result, broadcasts to the destination, rank 0 and empty",
          "[zip_with][into]") {
  std::vector<std::int32_t> out(6, -1);
  const auto dst = strided::TensorSpan<std::int32_t>::dense(out, {2, 3}).value();
  const auto row = iota<std::uint8_t>({3});  // 0 1 2, broadcast over the rows
  const auto col = Tensor<double>::from_vector({10.5, 20.5}, {2, 1}).value();
  REQUIRE(strided::zip_with_into(
              dst, [](std::uint8_t x, double y) { return x + y; }, row, col)
              .has_value());
  CHECK(out == std::vector<std::int32_t>{10, 11, 12, 20, 21, 22});  // truncated to int32
  REQUIRE(strided::map_into(
              dst, [](std::uint8_t x) { return x * 3; }, Tensor<std::uint8_t>::scalar(4))
              .has_value());
  CHECK(out == std::vector<std::int32_t>(6, 12));
  const auto one = strided::TensorSpan<std::int32_t>::dense(std::span(out).first(1), {}).value();
  REQUIRE(strided::map_into(
              one, [](std::uint8_t x) { return x + 1; }, Tensor<std::uint8_t>::scalar(1))
              .has_value());
  CHECK(out[0] == 2);
  std::size_t calls = 0;
  const auto none =
      strided::TensorSpan<std::int32_t>::dense(std::span(out).first(0), {0, 3}).value();
  REQUIRE(strided::map_into(
              none, [&calls](std::uint8_t x) { return ++calls + x; }, iota<std::uint8_t>({3}))
              .has_value());
  CHECK(calls == 0);
}

TEST_CASE("map_into and zip_with_into errors: shapes, overlap, nothing written", "[into][errors]") {
  std::vector<float> memory(12, 1.0f);
  const std::vector<float> before = memory;
  const auto dst = strided::TensorSpan<float>::dense(memory, {3, 4}).value();
  const auto x = iota<float>({4, 3});
  std::size_t calls = 0;
  const auto f = [&calls](float v) { return ++calls, v; };
  auto r = strided::map_into(dst, f, x);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == ShapeErrorKind::broadcast_incompatible);
  CHECK(r.error().message() == "map_into: shape [4, 3] cannot be broadcast with [3, 4]");
  r = strided::zip_with_into(
      dst, [](float a, float b) { return a + b; }, iota<float>({4}), iota<float>({2, 1, 4}));
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message() == "zip_with_into: shape [2, 1, 4] cannot be broadcast with [3, 4]");
  // In place (the input is the destination's memory) and partial overlap are memory_overlap.
  std::shared_ptr<const float> shared(memory.data(), [](const float*) {});
  const auto same =
      Tensor<float>::from_shared(shared, 12, strided::Layout::contiguous({3, 4}).value()).value();
  r = strided::map_into(dst, f, same);
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().kind() == ShapeErrorKind::memory_overlap);
  CHECK(r.error().message() == "map_into: the source and the destination overlap in memory");
  r = strided::zip_with_into(
      dst.narrow(0, 2, 1).value(), [](float a, float b) { return a + b; }, iota<float>({4}),
      same.select(0, 0).value());
  CHECK(r.has_value());  // rows 0 and 2: disjoint
  r = strided::zip_with_into(
      dst.narrow(0, 1, 2).value(), [](float a, float b) { return a + b; }, iota<float>({4}),
      same.narrow(0, 0, 2).value());
  REQUIRE_FALSE(r.has_value());
  CHECK(r.error().message() == "zip_with_into: the source and the destination overlap in memory");
  CHECK(calls == 0);
  CHECK(std::equal(memory.begin() + 4, memory.begin() + 8, before.begin() + 4));  // row 1
}
