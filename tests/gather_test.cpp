// index_select, index_select_into and gather_batch: NumPy's take / PyTorch's index_select over
// the generated table (tests/gen_operations.py), large gathers at every thread count and ISA
// level against a naive reference, and every error with its message.
#include "strided/gather.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "catch_shim.hpp"
#include "operations_table.hpp"
#include "strided/detail/copy/stream.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/half.hpp"
#include "support.hpp"
#include "thread_support.hpp"

using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;

namespace {

// A distinct value for each storage index below 256 (bool: its parity).
template <class T>
T value_at(std::size_t s) {
  if constexpr (std::is_same_v<T, bool>)
    return s % 2 == 1;
  else if constexpr (std::is_same_v<T, strided::f16> || std::is_same_v<T, strided::bf16>)
    return T(static_cast<float>(s));
  else
    return static_cast<T>(s);
}

template <class T>
Tensor<T> storage_values(std::size_t len) {
  std::vector<T> data;
  for (std::size_t s = 0; s < len; ++s) data.push_back(value_at<T>(s));
  return Tensor<T>::from_vector(std::move(data), {len}).value();
}

template <class T>
bool same_bits(const T& a, const T& b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

using strided_test::check_error;

// One table case: both forms, same values; an error leaves the caller's buffer untouched.
template <class T>
void replay_gather(strided_test::Words& in, const std::string& line) {
  INFO(line);
  const std::size_t len = in.size(), rank = in.size();
  const Shape shape = in.dims(rank);
  const Strides strides = in.strides(rank);
  const std::size_t offset = in.size(), axis = in.size();
  std::vector<std::int64_t> indices(in.size());
  for (auto& i : indices) i = in.integer();
  const Tensor<T> base = storage_values<T>(len);
  const Tensor<T> view = base.as_strided(shape, strides, offset).value();
  const auto fresh = strided::index_select(view, axis, indices);
  const std::size_t n = fresh ? fresh->numel() : 3;
  const auto buffer = std::make_unique<T[]>(n);  // not std::vector<bool>, which packs bits
  const std::span<T> out(buffer.get(), n);
  std::fill(out.begin(), out.end(), value_at<T>(7));
  const auto into = strided::index_select_into(view, axis, indices, out);
  if (in.word() == "err") {
    const std::string message = in.rest();
    const auto kind = rank == 0 || axis >= rank ? ShapeErrorKind::axis_out_of_range
                                                : ShapeErrorKind::index_out_of_range;
    check_error(fresh, kind, message);
    check_error(into, kind,
                "index_select_into" + message.substr(std::string("index_select").size()));
    for (const T& v : out) CHECK(same_bits(v, value_at<T>(7)));
    return;
  }
  REQUIRE(fresh.has_value());
  REQUIRE(into.has_value());
  CHECK(fresh->is_contiguous());
  const auto got = fresh->as_slice().value();
  REQUIRE(got.size() == out.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    const T expected = value_at<T>(in.size());
    CHECK(same_bits(got[i], expected));
    CHECK(same_bits(out[i], expected));
  }
}

}  // namespace

TEST_CASE("index_select matches NumPy's take and PyTorch's index_select on generated views") {
  const auto lines = strided_test::operation_lines("gather");
  REQUIRE(lines.size() >= 1000);
  std::size_t errors = 0;
  for (const std::string& line : lines) {
    strided_test::Words in(line);
    const std::string dtype = in.word();
    errors += line.find(" err ") != std::string::npos;
    if (dtype == "bool")
      replay_gather<bool>(in, line);
    else if (dtype == "u8")
      replay_gather<std::uint8_t>(in, line);
    else if (dtype == "i16")
      replay_gather<std::int16_t>(in, line);
    else if (dtype == "f16")
      replay_gather<strided::f16>(in, line);
    else if (dtype == "bf16")
      replay_gather<strided::bf16>(in, line);
    else if (dtype == "f32")
      replay_gather<float>(in, line);
    else if (dtype == "i64")
      replay_gather<std::int64_t>(in, line);
    else if (dtype == "f64")
      replay_gather<double>(in, line);
    else
      FAIL("unknown dtype " << dtype);
  }
  CHECK(errors > 50);
  CHECK(errors < lines.size() / 2);
}

namespace {

// out[..., j, ...] = t[..., indices[j], ...] element by element.
template <class T>
std::vector<T> naive_gather(const Tensor<T>& t, std::size_t axis,
                            const std::vector<std::int64_t>& indices) {
  Shape out_shape = t.shape();
  out_shape[axis] = indices.size();
  std::vector<T> out;
  Shape at(out_shape.size(), 0);
  const std::size_t n = Layout::contiguous(out_shape).value().numel();
  for (std::size_t e = 0; e < n; ++e) {
    Shape src = at;
    src[axis] = static_cast<std::size_t>(indices[at[axis]]);
    out.push_back(*t.get(src));
    for (std::size_t d = at.size(); d-- > 0;) {
      if (++at[d] < out_shape[d]) break;
      at[d] = 0;
    }
  }
  return out;
}

template <class T>
void check_large(const Tensor<T>& t, std::size_t axis, const std::vector<std::int64_t>& indices) {
  const std::vector<T> expected = naive_gather(t, axis, indices);
  for (const std::size_t threads : {std::size_t{1}, std::size_t{2}, std::size_t{3}}) {
    strided_test::ScopedThreadCount scoped(threads);
    CAPTURE(threads);
    const auto fresh = strided::index_select(t, axis, indices).value();
    const auto got = fresh.as_slice().value();
    REQUIRE(got.size() == expected.size());
    CHECK(std::memcmp(got.data(), expected.data(), got.size() * sizeof(T)) == 0);
    std::vector<T> out(expected.size() + 1);  // an unaligned destination: into out[1 ...]
    REQUIRE(strided::index_select_into(t, axis, indices, std::span<T>(out).subspan(1)));
    CHECK(std::memcmp(out.data() + 1, expected.data(), expected.size() * sizeof(T)) == 0);
  }
}

std::vector<std::int64_t> random_indices(std::mt19937_64& rng, std::size_t n, std::size_t size) {
  std::vector<std::int64_t> out(n);
  for (auto& i : out) i = static_cast<std::int64_t>(rng() % size);
  return out;
}

}  // namespace

TEST_CASE("index_select: large gathers, every thread count, ISA level and path") {
  STRIDED_TEST_RANDOM_SEED(seed);
  std::mt19937_64 rng(seed);
  // Rows of 64 bytes and of 1 KiB, taken in random order with repeats: the row path.
  // cast<T>() to T copies into a fresh 64-byte aligned buffer: whole lines are streamed from it;
  // from one byte further on, rows are streamed with a head and a tail.
  const auto rows64 = storage_values<std::uint8_t>(4096 * 64 + 1)
                          .as_strided({4096, 64}, {64, 1}, 0)
                          .value()
                          .cast<std::uint8_t>()
                          .value();
  const auto rows64_unaligned =
      storage_values<std::uint8_t>(4096 * 64 + 1).as_strided({4096, 64}, {64, 1}, 1).value();
  const auto rows1k = storage_values<float>(512 * 256).reshape({512, 256}).value();
  const int levels = strided_test::testable_levels("gather's streamed rows");
  for (int level = 0; level < levels; ++level) {
    strided::detail::ScopedIsa isa(static_cast<strided::detail::Isa>(level));
    CAPTURE(level);
    for (std::size_t threshold : {std::size_t{0}, std::size_t{1} << 40}) {
      strided::detail::copy_impl::ScopedStreamThreshold stream(threshold);  // 0: always stream
      check_large(rows64, 0, random_indices(rng, 6000, 4096));
      check_large(rows64_unaligned, 0, random_indices(rng, 6000, 4096));
      check_large(rows1k, 0, random_indices(rng, 700, 512));
    }
  }
  // Inner axes that are a view (transposed, flipped, broadcast): through the copy engine.
  const auto wide = storage_values<std::int16_t>(300 * 1024).reshape({300, 1024}).value();
  check_large(wide.transpose_2d().value(), 0, random_indices(rng, 400, 1024));
  check_large(wide.flip(1).value(), 0, random_indices(rng, 300, 300));
  check_large(wide, 1, random_indices(rng, 600, 1024));
  check_large(wide.select(0, 3).value().broadcast_to({200, 1024}).value(), 0,
              random_indices(rng, 200, 200));
  // A middle axis with rows that are contiguous: outer index and row interleaved.
  const auto cube = storage_values<double>(40 * 30 * 64).reshape({40, 30, 64}).value();
  check_large(cube, 1, random_indices(rng, 50, 30));
  check_large(cube.flip(0).value(), 1, random_indices(rng, 50, 30));
  // Few large slices: each split by the copy engine itself.
  check_large(rows64, 0, {5, 4095});
  check_large(cube, 0, {39});
}

TEST_CASE("index_select: index tensors, braced lists, empty and repeated indices") {
  const auto t = storage_values<std::int64_t>(12).reshape({3, 4}).value();
  const auto idx = Tensor<std::int64_t>::from_vector({0, 2, 2, 1}, {4}).value();
  const auto by_tensor = strided::index_select(t, 0, idx.flip(0).value()).value();
  CHECK(by_tensor.to_vector() ==
        std::vector<std::int64_t>{4, 5, 6, 7, 8, 9, 10, 11, 8, 9, 10, 11, 0, 1, 2, 3});
  const auto by_list = strided::index_select(t, 1, {3, 3}).value();
  CHECK(by_list.shape() == Shape{3, 2});
  CHECK(by_list.to_vector() == std::vector<std::int64_t>{3, 3, 7, 7, 11, 11});
  const auto none = strided::index_select(t, 0, std::vector<std::int64_t>{}).value();
  CHECK(none.shape() == Shape{0, 4});
  std::vector<std::int64_t> out(6);
  REQUIRE(strided::index_select_into(t, 1, idx.narrow(0, 1, 2).value(), std::span(out)));
  CHECK(out == std::vector<std::int64_t>{2, 2, 6, 6, 10, 10});
}

TEST_CASE("index_select: errors name the index, the axis and its size; nothing is written") {
  const auto t = storage_values<float>(12).reshape({3, 4}).value();
  check_error(strided::index_select(t, 2, {0}), ShapeErrorKind::axis_out_of_range,
              "index_select: axis 2 is out of range for rank 2 (shape [3, 4])");
  check_error(strided::index_select(t, 1, {0, 4, 9}), ShapeErrorKind::index_out_of_range,
              "index_select: index 4 is out of bounds for axis 1 of size 4 (shape [3, 4])");
  check_error(strided::index_select(t, 0, {-1}), ShapeErrorKind::index_out_of_range,
              "index_select: index 18446744073709551615 is out of bounds for axis 0 of size 3 "
              "(shape [3, 4]); the index looks like the negative value -1 converted to "
              "std::size_t: strided counts from 0 and has no negative indices (use 2, i.e. size "
              "- 1)");
  const auto matrix = Tensor<std::int64_t>::zeros({2, 2}).value();
  check_error(strided::index_select(t, 0, matrix), ShapeErrorKind::rank_mismatch,
              "index_select: needs rank 1, got rank 2");
  check_error(strided::index_select(Tensor<float>::scalar(1), 0, {0}),
              ShapeErrorKind::axis_out_of_range,
              "index_select: axis 0 is out of range for rank 0 (shape [])");
  const auto huge = Tensor<float>::scalar(1).broadcast_to({2, std::size_t{1} << 62}).value();
  check_error(strided::index_select(huge, 0, {0, 1, 1, 0}), ShapeErrorKind::size_overflow,
              "index_select: the element count, a stride or the offset of shape [4, "
              "4611686018427387904] overflows");

  std::vector<float> out(8, -1.0f);
  check_error(strided::index_select_into(t, 0, std::vector<std::int64_t>{0}, std::span(out)),
              ShapeErrorKind::element_count_mismatch,
              "index_select_into: 8 elements do not match shape [1, 4] (4 elements)");
  check_error(strided::index_select_into(t, 0, std::vector<std::int64_t>{0, 3}, std::span(out)),
              ShapeErrorKind::index_out_of_range,
              "index_select_into: index 3 is out of bounds for axis 0 of size 3 (shape [3, 4])");
  for (float v : out) CHECK(v == -1.0f);
}

TEST_CASE("gather_batch: samples by index from a tensor and from (inputs, labels)") {
  const auto inputs = storage_values<float>(5 * 3).reshape({5, 3}).value();
  const auto labels = storage_values<std::int64_t>(5);
  const std::vector<std::int64_t> picks{4, 0, 4};
  const auto batch = strided::gather_batch(inputs, picks).value();
  CHECK(batch.to_vector() == std::vector<float>{12, 13, 14, 0, 1, 2, 12, 13, 14});
  const auto pair = strided::gather_batch(std::pair(inputs, labels), picks).value();
  CHECK(pair.first.shape() == Shape{3, 3});
  CHECK(pair.second.to_vector() == std::vector<std::int64_t>{4, 0, 4});
  const auto triple = strided::gather_batch(std::tuple(labels, inputs, labels), picks).value();
  CHECK(std::get<1>(triple).to_vector() == batch.to_vector());

  const auto short_labels = storage_values<std::int64_t>(4);
  const auto bad = strided::gather_batch(std::pair(inputs, short_labels), picks);
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.error().kind() == strided::DataErrorKind::shape);
  CHECK(bad.error().message() ==
        "gather_batch: index 4 is out of bounds for axis 0 of size 4 (shape [4])");
}

TEST_CASE("index_select_into: an output overlapping the input or the indices is memory_overlap") {
  std::vector<std::int64_t> memory{0, 1, 2, 3, 4, 5, 6, 7};
  std::shared_ptr<const std::int64_t> shared(memory.data(), [](const std::int64_t*) {});
  const auto t =
      Tensor<std::int64_t>::from_shared(shared, 8, Layout::contiguous({4}).value()).value();
  const std::string overlap = "index_select_into: the source and the destination overlap in memory";
  check_error(strided::index_select_into(t, 0, {3, 2}, std::span(memory).subspan(3, 2)),
              ShapeErrorKind::memory_overlap, overlap);
  const auto small = t.narrow(0, 0, 2).value();
  std::vector<std::int64_t> picks{1, 0};
  check_error(
      strided::index_select_into(small, 0, std::span<const std::int64_t>(picks), std::span(picks)),
      ShapeErrorKind::memory_overlap, overlap);
  CHECK(memory == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  CHECK(picks == std::vector<std::int64_t>{1, 0});
  REQUIRE(strided::index_select_into(t, 0, {3, 2}, std::span(memory).subspan(4, 2)).has_value());
  CHECK(memory == std::vector<std::int64_t>{0, 1, 2, 3, 3, 2, 6, 7});
}
