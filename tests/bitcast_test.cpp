// Tensor::bitcast and AnyTensor::bitcast: PyTorch's x.view(dtype) layouts over the generated
// table (tests/gen_operations.py), values against a byte-wise reference on views PyTorch cannot
// make (negative strides), and every refusal with its message.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "operations_table.hpp"
#include "strided/any_tensor.hpp"
#include "strided/half.hpp"
#include "strided/tensor.hpp"
#include "support.hpp"

using strided::AnyTensor;
using strided::DType;
using strided::Layout;
using strided::Shape;
using strided::ShapeErrorKind;
using strided::Strides;
using strided::Tensor;

namespace {

DType dtype_named(const std::string& name) {
  const std::pair<const char*, DType> names[] = {
      {"bool", DType::bool_}, {"u8", DType::u8},   {"i8", DType::i8},   {"i16", DType::i16},
      {"i32", DType::i32},    {"i64", DType::i64}, {"f16", DType::f16}, {"bf16", DType::bf16},
      {"f32", DType::f32},    {"f64", DType::f64}};
  for (const auto& [n, d] : names)
    if (name == n) return d;
  FAIL("unknown dtype " << name);
  return DType::u8;
}

// A buffer of `len` elements of `dtype` with varied bytes (bools 0 or 1), at a 64-byte boundary.
AnyTensor buffer_of(DType dtype, std::size_t len) {
  auto t = AnyTensor::zeros(dtype, {len}).value();
  auto* bytes = static_cast<std::uint8_t*>(const_cast<void*>(t.storage().get()));
  const std::size_t size = strided::dtype_size(dtype);
  for (std::size_t b = 0; b < len * size; ++b)
    bytes[b] = dtype == DType::bool_ ? b % 3 == 0 : static_cast<std::uint8_t>(b * 37 + 11);
  return t;
}

using strided_test::check_error;

}  // namespace

TEST_CASE("bitcast: the layouts of PyTorch's view(dtype), and its refusals") {
  const auto lines = strided_test::operation_lines("bitcast");
  REQUIRE(lines.size() >= 1000);
  std::size_t accepted = 0, resized = 0;
  for (const std::string& line : lines) {
    INFO(line);
    strided_test::Words in(line);
    const DType from = dtype_named(in.word()), to = dtype_named(in.word());
    const std::size_t len = in.size(), rank = in.size();
    const Shape shape = in.dims(rank);
    const Strides strides = in.strides(rank);
    const std::size_t offset = in.size();
    const AnyTensor base = buffer_of(from, len);
    const AnyTensor view = base.as_strided(shape, strides, offset).value();
    const auto cast = view.bitcast(to);
    if (in.word() == "err") {
      REQUIRE_FALSE(cast.has_value());
      CHECK(cast.error().kind() == ShapeErrorKind::invalid_argument);
      CHECK(cast.error().message().rfind("bitcast: ", 0) == 0);
      continue;
    }
    REQUIRE(cast.has_value());
    const std::size_t out_rank = in.size();
    const Shape out_shape = in.dims(out_rank);
    const Strides out_strides = in.strides(out_rank);
    CHECK(cast->dtype() == to);
    CHECK(cast->shape() == out_shape);
    CHECK(cast->strides() == out_strides);
    CHECK(cast->offset() == in.size());
    CHECK(cast->storage().get() == base.storage().get());  // the same buffer, no copy
    CHECK(cast->storage_len() == len * strided::dtype_size(from) / strided::dtype_size(to));
    ++accepted;
    resized += strided::dtype_size(from) != strided::dtype_size(to);
  }
  CHECK(accepted > 300);
  CHECK(resized > 150);
}

TEST_CASE("bitcast: values are the same bytes on any view, and the buffer outlives the source") {
  auto data = Tensor<std::uint8_t>::from_vector(
                  {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, {4, 4})
                  .value();
  // Negative strides on the outer axis and a broadcast axis: only the last needs stride 1.
  const auto view = data.flip(0).value().unsqueeze(1).value().broadcast_to({4, 2, 4}).value();
  Tensor<std::uint32_t> words = view.bitcast<std::uint32_t>().value();
  data = Tensor<std::uint8_t>::scalar(0);  // the view keeps the old buffer alive
  CHECK(words.shape() == Shape{4, 2, 1});
  CHECK(words.strides() == Strides{-1, 0, 1});
  const auto bytes = view.to_vector();
  const auto got = words.to_vector();
  REQUIRE(got.size() * 4 == bytes.size());
  CHECK(std::memcmp(got.data(), bytes.data(), bytes.size()) == 0);
  // Shrinking back gives the bytes again; equal sizes keep any layout (a transpose here).
  CHECK(strided::equal(words.bitcast<std::uint8_t>().value(), view));
  const auto floats = Tensor<float>::from_vector({1.0f, -2.0f, 0.5f, 8.0f}, {2, 2}).value();
  const auto t = floats.transpose_2d().value().bitcast<std::int32_t>().value();
  CHECK(t.strides() == Strides{1, 2});
  CHECK(t.to_vector() == std::vector<std::int32_t>{0x3f800000, 0x3f000000,
                                                   static_cast<std::int32_t>(0xc0000000u),
                                                   0x41000000});
  const auto halves = floats.bitcast<strided::bf16>().value();
  CHECK(halves.shape() == Shape{2, 4});
  CHECK(static_cast<float>(*halves.get({0, 1})) == 1.0f);  // the high half, little-endian
  const auto flags = Tensor<bool>::from_vector({true, false}, {2}).value();
  CHECK(flags.bitcast<std::uint8_t>().value().to_vector() == std::vector<std::uint8_t>{1, 0});
  CHECK(flags.bitcast<bool>().value().to_vector() == std::vector<bool>{true, false});
}

TEST_CASE("bitcast: refusals say which rule failed") {
  const auto bytes = Tensor<std::uint8_t>::zeros({4, 8}).value();
  check_error(bytes.transpose_2d().value().bitcast<float>(), ShapeErrorKind::invalid_argument,
              "bitcast: axis 1 of size 4 (shape [8, 4]): the last axis must have stride 1 for the "
              "element size to change");
  check_error(bytes.narrow(1, 0, 6).value().bitcast<float>(), ShapeErrorKind::invalid_argument,
              "bitcast: axis 1 of size 6 (shape [4, 6]): the last axis's size must be a multiple "
              "of the size ratio");
  check_error(bytes.as_strided({2, 4}, {6, 1}, 0).value().bitcast<float>(),
              ShapeErrorKind::invalid_argument,
              "bitcast: axis 0 of size 2 (shape [2, 4]): its stride must be a multiple of the size "
              "ratio");
  // A u8 buffer seen as f32 from byte 2: misaligned, refused (never an unaligned float).
  check_error(bytes.as_strided({1, 4}, {4, 1}, 2).value().bitcast<float>(),
              ShapeErrorKind::invalid_argument,
              "bitcast: the offset must be a multiple of the size ratio, so that the view starts "
              "on a whole new element");
  check_error(Tensor<float>::scalar(1).bitcast<double>(), ShapeErrorKind::invalid_argument,
              "bitcast: a rank-0 tensor has no last axis to scale, so its element size cannot "
              "change");
  CHECK(Tensor<float>::scalar(1).bitcast<std::int32_t>().value().to_vector() ==
        std::vector<std::int32_t>{0x3f800000});
  // External memory at an odd address cannot hold 2-byte elements.
  std::vector<std::uint8_t> raw(9);
  const std::shared_ptr<const std::uint8_t> odd(raw.data() + 1, [](const std::uint8_t*) {});
  const auto unaligned = Tensor<std::uint8_t>::from_shared(odd, 8, Layout::contiguous({8}).value());
  check_error(unaligned.value().bitcast<std::int16_t>(), ShapeErrorKind::invalid_argument,
              "bitcast: the buffer's address is not aligned for the new element type");
  check_error(AnyTensor(bytes).bitcast(DType::bool_), ShapeErrorKind::invalid_argument,
              "bitcast: a bitcast to bool is only from bool: use cast(DType::bool_)");
  // An empty view may have any strides; scaled by 8 this one overflows.
  const auto empty =
      Tensor<std::uint64_t>::scalar(0).as_strided({0, 1}, {std::ptrdiff_t{1} << 62, 1}, 0).value();
  check_error(empty.bitcast<std::uint8_t>(), ShapeErrorKind::size_overflow,
              "bitcast: the element count, a stride or the offset of shape [0, 1] overflows");
}
