// TensorSpan (a strided destination over the caller's memory) and the writes into it:
// Tensor::copy_to against NumPy's copyto / PyTorch's copy_ on the generated table
// (tests/gen_destinations.py), cast_into against cast(), large writes at every thread count
// against a naive loop, overlap, and every error with its message (nothing written on an error).
#include "strided/tensor_span.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "catch_shim.hpp"
#include "operations_table.hpp"
#include "strided/half.hpp"
#include "strided/parallel.hpp"
#include "strided/tensor.hpp"
#include "support.hpp"
#include "thread_support.hpp"

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;
using strided::TensorSpan;
using strided_test::check_error;

namespace {

// A distinct value for each storage index below 200 (bool: its parity); -1 / 255 never occur.
template <class T>
T value_at(std::int64_t s) {
  if constexpr (std::is_same_v<T, bool>)
    return s % 2 == 1;
  else if constexpr (std::is_same_v<T, strided::f16> || std::is_same_v<T, strided::bf16>)
    return T(static_cast<float>(s < 0 ? s : s % 200));
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return static_cast<T>(s < 0 ? 255 : s % 200);
  else
    return static_cast<T>(s);
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
Tensor<T> storage_values(std::size_t len) {
  std::vector<T> data;
  for (std::size_t s = 0; s < len; ++s) data.push_back(value_at<T>(static_cast<std::int64_t>(s)));
  return Tensor<T>::from_vector(std::move(data), {len}).value();
}

// A tensor over memory the test also writes through a TensorSpan (for the overlap cases).
template <class T>
Tensor<T> borrowed(std::span<T> memory) {
  std::shared_ptr<const T> data(memory.data(), [](const T*) {});
  return Tensor<T>::from_shared(data, memory.size(),
                                strided::Layout::contiguous({memory.size()}).value())
      .value();
}

std::vector<std::string> destination_lines() {
  std::ifstream file(STRIDED_TEST_DATA_DIR "/destinations.txt");
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(file, line))
    if (line.rfind("copyto ", 0) == 0) lines.push_back(line.substr(7));
  return lines;
}

// One table case: the destination buffer afterwards, element by element; an error writes nothing.
template <class T>
void replay_copyto(strided_test::Words& in, const std::string& line) {
  INFO(line);
  const std::size_t len = in.size(), rank = in.size();
  const Shape shape = in.dims(rank);
  const Strides strides = in.strides(rank);
  const std::size_t offset = in.size(), dst_len = in.size(), dst_rank = in.size();
  const Shape dst_shape = in.dims(dst_rank);
  const Strides dst_strides = in.strides(dst_rank);
  const std::size_t dst_offset = in.size();
  const Tensor<T> src = storage_values<T>(len).as_strided(shape, strides, offset).value();
  const auto buffer = std::make_unique<T[]>(dst_len);  // not std::vector<bool>
  const std::span<T> memory(buffer.get(), dst_len);
  std::fill(memory.begin(), memory.end(), value_at<T>(-1));
  const auto dst = TensorSpan<T>::from_parts(memory, dst_shape, dst_strides, dst_offset);
  REQUIRE(dst.has_value());
  const auto done = src.copy_to(*dst);
  if (in.word() == "err") {
    check_error(done, ShapeErrorKind::broadcast_incompatible,
                "copy_to: shape " + strided::to_string(shape) + " cannot be broadcast with " +
                    strided::to_string(dst_shape));
    for (const T& v : memory) CHECK(same_bits(v, value_at<T>(-1)));
    return;
  }
  REQUIRE(done.has_value());
  for (const T& v : memory) CHECK(same_bits(v, value_at<T>(in.integer())));
}

// dst[k][c][h][w] = image[h][w][c] through a naive loop: the reference of the loader cases.
template <class T>
std::vector<T> naive_chw(const std::vector<T>& image, std::size_t h, std::size_t w, std::size_t c) {
  std::vector<T> out(image.size());
  for (std::size_t y = 0; y < h; ++y)
    for (std::size_t x = 0; x < w; ++x)
      for (std::size_t ch = 0; ch < c; ++ch)
        out[(ch * h + y) * w + x] = image[(y * w + x) * c + ch];
  return out;
}

}  // namespace

TEST_CASE("TensorSpan::dense and from_parts check the memory and the layout") {
  std::vector<float> memory(24);
  const auto dense = TensorSpan<float>::dense(memory, {2, 3, 4});
  REQUIRE(dense.has_value());
  CHECK(dense->shape() == Shape{2, 3, 4});
  CHECK(dense->strides() == Strides{12, 4, 1});
  CHECK(dense->offset() == 0);
  CHECK(dense->rank() == 3);
  CHECK(dense->numel() == 24);
  CHECK(dense->data() == memory.data());
  CHECK(dense->is_contiguous());
  check_error(TensorSpan<float>::dense(memory, {5, 5}), ShapeErrorKind::element_count_mismatch,
              "TensorSpan::dense: 24 elements do not match shape [5, 5] (25 elements)");
  const auto scalar = TensorSpan<float>::dense(std::span(memory).first(1), {});
  REQUIRE(scalar.has_value());
  CHECK(scalar->numel() == 1);

  // A reversed, stepped view: every element inside, none reached twice.
  const auto flipped = TensorSpan<float>::from_parts(memory, {3, 4}, {-8, 2}, 17);
  REQUIRE(flipped.has_value());
  CHECK(flipped->offset() == 17);
  CHECK(TensorSpan<float>::from_parts(memory, {3, 4}, {8, 2}, 1).has_value());  // reaches 23
  check_error(TensorSpan<float>::from_parts(memory, {3, 4}, {8, 2}, 2),
              ShapeErrorKind::storage_out_of_bounds,
              "TensorSpan::from_parts: a layout of shape [3, 4] reaches storage index 24, outside "
              "the buffer of length 24");
  check_error(TensorSpan<float>::from_parts(memory, {3}, {-1}, 1),
              ShapeErrorKind::storage_out_of_bounds,
              "TensorSpan::from_parts: a layout of shape [3] reaches below storage index 0 (buffer "
              "length 24)");
  check_error(TensorSpan<float>::from_parts(memory, {3}, {1, 1}, 0), ShapeErrorKind::rank_mismatch,
              "TensorSpan::from_parts: 2 entries given for a tensor of rank 1");
  check_error(TensorSpan<float>::from_parts(memory, {std::size_t{1} << 62, 4}, {4, 1}, 0),
              ShapeErrorKind::size_overflow,
              "TensorSpan::from_parts: the element count, a stride or the offset of shape "
              "[4611686018427387904, 4] overflows");
  // No two indices may reach one element: a zero stride (broadcast), or axes that interleave.
  const std::string itself =
      "TensorSpan::from_parts: the destination overlaps itself (two indices reach one element)";
  check_error(TensorSpan<float>::from_parts(memory, {2, 3}, {0, 1}, 0),
              ShapeErrorKind::memory_overlap, itself);
  check_error(TensorSpan<float>::from_parts(memory, {3, 4}, {2, 1}, 0),
              ShapeErrorKind::memory_overlap, itself);
  // Disjoint but not nested (0 3 / 2 5 / 4 7): rejected too, the check being conservative.
  check_error(TensorSpan<float>::from_parts(memory, {3, 2}, {2, 3}, 0),
              ShapeErrorKind::memory_overlap, itself);
  // A zero stride on an axis of size 1, and no element at all, reach nothing twice.
  CHECK(TensorSpan<float>::from_parts(memory, {1, 3}, {0, 1}, 0).has_value());
  CHECK(TensorSpan<float>::from_parts(memory, {0, 3}, {0, 0}, 99).has_value());
}

template <class S>
concept can_broadcast = requires(const S& s) {
  s.broadcast_to(strided::Shape{});
};

TEST_CASE("TensorSpan views are Layout's views over the same memory") {
  std::vector<std::int32_t> memory(2 * 3 * 4);
  const TensorSpan<std::int32_t> t = TensorSpan<std::int32_t>::dense(memory, {2, 3, 4}).value();
  const auto expect = [&](const strided::Result<TensorSpan<std::int32_t>>& v,
                          const strided::Result<strided::Layout>& l) {
    REQUIRE(v.has_value());
    REQUIRE(l.has_value());
    CHECK(v->layout() == *l);
    CHECK(v->data() == memory.data());
  };
  const strided::Layout& l = t.layout();
  expect(t.select(0, 1), l.select(0, 1));
  expect(t.narrow(2, 1, 2), l.narrow(2, 1, 2));
  expect(t.permute({2, 0, 1}), l.permute({2, 0, 1}));
  expect(t.transpose(0, 2), l.transpose(0, 2));
  expect(t.flip({1, 2}), l.flip({1, 2}));
  expect(t.unsqueeze(3), l.unsqueeze(3));
  expect(t.unsqueeze(0).value().squeeze(), l);
  expect(t.unsqueeze(1).value().squeeze(1), l);
  expect(t.reshape({6, 4}), l.reshape({6, 4}));
  check_error(t.select(3, 0), ShapeErrorKind::axis_out_of_range,
              "select: axis 3 is out of range for rank 3 (shape [2, 3, 4])");
  check_error(t.narrow(1, 2, 2), ShapeErrorKind::index_out_of_range,
              "narrow: range [2, 4) is out of bounds for axis 1 of size 3 (shape [2, 3, 4])");
  check_error(t.transpose(0, 1).value().reshape({24}), ShapeErrorKind::non_contiguous_reshape,
              "reshape: shape [3, 2, 4] has no zero-copy view as [24] with its strides; call "
              "contiguous() first");
  // The ViewOps list: every view a Tensor has but the broadcasting ones; a layout that repeats an
  // element is refused, named after the op called.
  expect(t.movedim(0, 2), l.movedim(0, 2));
  expect(t.diagonal(0, 0, 1), l.diagonal(0, 0, 1));
  expect(t.as_strided({3, 2}, {4, 1}, 2),
         strided::Layout::from_parts({3, 2}, {4, 1}, 2, "as_strided"));
  check_error(t.as_strided({4, 2}, {0, 1}, 0), ShapeErrorKind::memory_overlap,
              "as_strided: the destination overlaps itself (two indices reach one element)");
  static_assert(!can_broadcast<TensorSpan<std::int32_t>>);
  static_assert(can_broadcast<strided::Tensor<std::int32_t>>);
}

TEST_CASE("copy_to(TensorSpan) matches NumPy's copyto and PyTorch's copy_ on generated views") {
  const auto lines = destination_lines();
  REQUIRE(lines.size() >= 400);
  for (const std::string& line : lines) {
    strided_test::Words in(line);
    const std::string dtype = in.word();
    if (dtype == "bool")
      replay_copyto<bool>(in, line);
    else if (dtype == "u8")
      replay_copyto<std::uint8_t>(in, line);
    else if (dtype == "i16")
      replay_copyto<std::int16_t>(in, line);
    else if (dtype == "f16")
      replay_copyto<strided::f16>(in, line);
    else if (dtype == "bf16")
      replay_copyto<strided::bf16>(in, line);
    else if (dtype == "f32")
      replay_copyto<float>(in, line);
    else if (dtype == "i64")
      replay_copyto<std::int64_t>(in, line);
    else if (dtype == "f64")
      replay_copyto<double>(in, line);
    else
      FAIL("unknown dtype " << dtype);
  }
}

TEST_CASE("copy_to and cast_into fill slot k of a [B, C, H, W] batch from an HWC image") {
  constexpr std::size_t b = 3, c = 3, h = 160, w = 224, k = 1;  // above the parallel threshold
  std::vector<float> image(h * w * c);
  for (std::size_t i = 0; i < image.size(); ++i) image[i] = static_cast<float>(i % 977) * 0.5f;
  const Tensor<float> hwc = Tensor<float>::from_vector(image, {h, w, c}).value();
  const Tensor<float> chw = hwc.permute({2, 0, 1}).value();
  const std::vector<float> expected = naive_chw(image, h, w, c);
  for (std::size_t threads : {1u, 2u, 3u}) {
    INFO("threads " << threads);
    const strided_test::ScopedThreadCount scope(threads);
    std::vector<float> batch(b * c * h * w, -1.0f);
    const auto slot = TensorSpan<float>::dense(batch, {b, c, h, w}).value().select(0, k).value();
    REQUIRE(chw.copy_to(slot).has_value());
    const std::size_t n = c * h * w;
    CHECK(std::equal(expected.begin(), expected.end(), batch.begin() + k * n));
    CHECK(std::all_of(batch.begin(), batch.begin() + k * n, [](float v) { return v == -1.0f; }));
    CHECK(
        std::all_of(batch.begin() + (k + 1) * n, batch.end(), [](float v) { return v == -1.0f; }));

    // The same slot as f16 and bf16 by cast_into, bit-equal to cast(); and upside down (a
    // negative destination stride).
    std::vector<strided::f16> halves(b * c * h * w);
    const auto hslot =
        TensorSpan<strided::f16>::dense(halves, {b, c, h, w}).value().select(0, k).value();
    REQUIRE(chw.cast_into(hslot.flip(1).value()).has_value());
    const Tensor<strided::f16> reference = chw.flip(1).value().cast<strided::f16>().value();
    CHECK(std::memcmp(reference.as_slice()->data(), halves.data() + k * n, n * 2) == 0);
    std::vector<strided::bf16> brains(n);
    REQUIRE(chw.cast_into(std::span(brains)).has_value());
    const Tensor<strided::bf16> bref = chw.cast<strided::bf16>().value();
    CHECK(std::memcmp(bref.as_slice()->data(), brains.data(), n * 2) == 0);
  }
}

TEST_CASE("copy_to writes the channels-first half of an image buffer") {
  // A [2, C, H, W] buffer whose second half is written from the first, flipped left-right.
  constexpr std::size_t c = 3, h = 4, w = 5, n = c * h * w;
  std::vector<std::int64_t> memory(2 * n);
  for (std::size_t i = 0; i < n; ++i) memory[i] = static_cast<std::int64_t>(i);
  const TensorSpan<std::int64_t> all =
      TensorSpan<std::int64_t>::dense(memory, {2, c, h, w}).value();
  const Tensor<std::int64_t> first =
      borrowed(std::span(memory)).reshape({2, c, h, w}).value().select(0, 0).value();
  REQUIRE(first.flip(2).value().copy_to(all.select(0, 1).value()).has_value());
  for (std::size_t ch = 0; ch < c; ++ch)
    for (std::size_t y = 0; y < h; ++y)
      for (std::size_t x = 0; x < w; ++x)
        CHECK(memory[n + (ch * h + y) * w + x] ==
              static_cast<std::int64_t>((ch * h + y) * w + (w - 1 - x)));
}

TEST_CASE("copy_to broadcasts the source and handles rank 0 and empty destinations") {
  std::vector<double> memory(12, 0.0);
  const auto row = Tensor<double>::from_vector({1, 2, 3}, {3}).value();
  REQUIRE(row.copy_to(TensorSpan<double>::dense(memory, {4, 3})
                          .value()
                          .transpose(0, 1)
                          .value()
                          .reshape({3, 4})  // a view: the transposed [3, 4] of the buffer
                          .value()
                          .transpose(0, 1)
                          .value())
              .has_value());
  for (std::size_t i = 0; i < 12; ++i) CHECK(memory[i] == static_cast<double>(i % 3 + 1));
  REQUIRE(Tensor<double>::scalar(7)
              .copy_to(TensorSpan<double>::dense(memory, {2, 6}).value())
              .has_value());
  CHECK(std::all_of(memory.begin(), memory.end(), [](double v) { return v == 7; }));
  REQUIRE(Tensor<double>::scalar(5)
              .copy_to(TensorSpan<double>::dense(std::span(memory).first(1), {}).value())
              .has_value());
  CHECK(memory[0] == 5);
  const auto empty = Tensor<double>::zeros({0, 3}).value();
  REQUIRE(empty.copy_to(TensorSpan<double>::dense(std::span(memory).first(0), {0, 3}).value())
              .has_value());
  REQUIRE(empty.cast_into(TensorSpan<double>::dense(std::span(memory).first(0), {0, 3}).value())
              .has_value());
  CHECK(memory[1] == 7);
}

TEST_CASE("writes whose destination overlaps the source are memory_overlap, nothing written") {
  std::vector<float> memory(16);
  for (std::size_t i = 0; i < 16; ++i) memory[i] = static_cast<float>(i);
  const std::vector<float> before = memory;
  const Tensor<float> all = borrowed(std::span(memory));
  const TensorSpan<float> dst = TensorSpan<float>::dense(memory, {16}).value();
  const std::string overlap = "the source and the destination overlap in memory";
  // Partial overlap: [0, 8) into [4, 12).
  check_error(all.narrow(0, 0, 8).value().copy_to(dst.narrow(0, 4, 8).value()),
              ShapeErrorKind::memory_overlap, "copy_to: " + overlap);
  check_error(all.narrow(0, 0, 8).value().copy_to(std::span(memory).subspan(4, 8)),
              ShapeErrorKind::memory_overlap, "copy_to: " + overlap);
  check_error(all.cast_into(dst.flip(0).value()), ShapeErrorKind::memory_overlap,
              "cast_into: " + overlap);
  check_error(all.narrow(0, 0, 8).value().cast_into(std::span(memory).subspan(7, 8)),
              ShapeErrorKind::memory_overlap, "cast_into: " + overlap);
  // Even elements into odd ones: disjoint, but interleaved extents count as overlap.
  const auto even = all.as_strided({8}, {2}, 0).value();
  const auto odd = TensorSpan<float>::from_parts(memory, {8}, {2}, 1).value();
  check_error(even.copy_to(odd), ShapeErrorKind::memory_overlap, "copy_to: " + overlap);
  CHECK(memory == before);
  // Neighbouring halves do not overlap.
  REQUIRE(all.narrow(0, 0, 8).value().copy_to(dst.narrow(0, 8, 8).value()).has_value());
  for (std::size_t i = 0; i < 8; ++i) CHECK(memory[8 + i] == static_cast<float>(i));
}

TEST_CASE("copy_to and cast_into errors name the call, the buffer untouched") {
  std::vector<std::int16_t> memory(6, 9);
  const auto src = Tensor<float>::from_vector({1, 2, 3, 4, 5, 6}, {2, 3}).value();
  const auto dst = TensorSpan<std::int16_t>::dense(memory, {3, 2}).value();
  check_error(src.cast_into(dst), ShapeErrorKind::broadcast_incompatible,
              "cast_into: shape [2, 3] cannot be broadcast with [3, 2]");
  check_error(src.cast_into(std::span(memory).first(5)), ShapeErrorKind::element_count_mismatch,
              "cast_into: 5 elements do not match shape [2, 3] (6 elements)");
  check_error(src.transpose(0, 1).value().copy_to(
                  TensorSpan<float>::dense(std::span<float>(), {0}).value()),
              ShapeErrorKind::broadcast_incompatible,
              "copy_to: shape [3, 2] cannot be broadcast with [0]");
  CHECK(std::all_of(memory.begin(), memory.end(), [](std::int16_t v) { return v == 9; }));
  // Same shapes transposed: each element converted into its place (a strided source).
  REQUIRE(src.transpose(0, 1).value().cast_into(dst).has_value());
  CHECK(memory == std::vector<std::int16_t>{1, 4, 2, 5, 3, 6});
  std::vector<bool> expected{true, false, true};
  bool flags[3] = {};
  REQUIRE(Tensor<std::int64_t>::from_vector({5, 0, -2}, {3})
              .value()
              .cast_into(std::span<bool>(flags))
              .has_value());
  CHECK(std::vector<bool>(flags, flags + 3) == expected);
}

namespace {

// cast_into of a random view (permuted, flipped, maybe broadcast) into a random destination
// (permuted and flipped inside a bigger buffer) against cast() scattered by a naive loop.
template <class From, class To>
void check_cast_into(std::mt19937& rng, bool large) {
  const std::size_t rank = 1 + rng() % 3;
  Shape shape(rank, 0);
  for (auto& d : shape) d = 1 + rng() % (large ? 120 : 6);
  std::vector<From> values(strided_test::product(shape));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<From>(static_cast<double>(i % 97) * 1.75 -
                                  (std::is_unsigned_v<From> ? 0.0 : 40.0));
  Shape perm(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) perm[k] = k;
  std::shuffle(perm.begin(), perm.end(), rng);
  Tensor<From> src = Tensor<From>::from_vector(values, shape).value().permute(perm).value();
  if (rng() % 2 == 0) src = src.flip(rng() % rank).value();
  if (rng() % 4 == 0) src = src.narrow(0, 0, 1).value().broadcast_to(src.shape()).value();
  // The destination: the same shape, its axes in another order in memory, some flipped.
  std::shuffle(perm.begin(), perm.end(), rng);
  Shape stored(rank, 0), inverse(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) stored[k] = src.shape()[perm[k]] + 1;
  for (std::size_t k = 0; k < rank; ++k) inverse[perm[k]] = k;
  const std::size_t len = strided_test::product(stored);
  const auto memory = std::make_unique<To[]>(len);
  std::fill_n(memory.get(), len, To{});
  auto dst = TensorSpan<To>::dense(std::span<To>(memory.get(), len), stored).value();
  for (std::size_t k = 0; k < rank; ++k) dst = dst.narrow(k, 1, stored[k] - 1).value();
  dst = dst.permute(inverse).value();
  if (rng() % 2 == 0) dst = dst.flip(rng() % rank).value();
  REQUIRE(dst.shape() == src.shape());
  INFO(strided::to_debug_string(src) << " into strides " << strided::to_string(dst.strides()));
  REQUIRE(src.cast_into(dst).has_value());
  const Tensor<To> expected = src.template cast<To>().value();
  const auto want = std::make_unique<To[]>(len);  // not std::vector<bool>
  std::fill_n(want.get(), len, To{});
  Shape index(rank, 0);
  std::size_t i = 0;
  do {
    want[dst.layout().storage_index(index)] = expected.as_slice().value()[i++];
    std::size_t k = rank;
    while (k > 0 && ++index[k - 1] == dst.shape()[k - 1]) index[--k] = 0;
    if (k == 0) break;
  } while (true);
  CHECK(std::memcmp(want.get(), memory.get(), len * sizeof(To)) == 0);
}

}  // namespace

TEST_CASE("cast_into any view into any destination equals cast(), at 1, 2 and 3 threads") {
  std::mt19937 rng(4605);
  for (int trial = 0; trial < 60; ++trial) {
    const strided_test::ScopedThreadCount threads(1 + static_cast<std::size_t>(trial % 3));
    const bool large = trial % 6 == 0;  // chunks, scratch restaging, the pool
    switch (trial % 5) {
      case 0:
        check_cast_into<float, strided::f16>(rng, large);
        break;
      case 1:
        check_cast_into<float, strided::bf16>(rng, large);
        break;
      case 2:
        check_cast_into<std::int64_t, float>(rng, large);
        break;
      case 3:
        check_cast_into<std::uint8_t, bool>(rng, large);
        break;
      default:
        check_cast_into<double, std::int64_t>(rng, large);
        break;
    }
  }
}
