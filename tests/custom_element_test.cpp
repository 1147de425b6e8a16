#include "catch_shim.hpp"
// A user-defined element type, registered the way docs/design.md ("Adding an element type")
// shows: the docs quote the code between the [custom-element] markers, so it must compile and
// behave as described.
#include <cmath>
#include <cstdint>
#include <strided/tensor.hpp>
#include <string>
#include <vector>

// [custom-element]
// Money in cents: an exact fixed-point type that a Tensor can hold, view, copy, cast and print.
struct Cents {
  std::int64_t value;
};

template <>
struct strided::element_traits<Cents> {
  static constexpr std::string_view name = "cents";  // shown by errors and interop
  static constexpr Cents zero() noexcept { return Cents{0}; }
  static constexpr Cents one() noexcept { return Cents{100}; }
  // Optional: casts from and to every other element type go through float.
  static float to_f32(Cents c) noexcept { return static_cast<float>(c.value) / 100.0f; }
  static Cents from_f32(float f) noexcept { return Cents{std::llround(f * 100.0f)}; }
};
// [custom-element]

using strided::Tensor;

TEST_CASE("a user element type satisfies Element and works with every non-arithmetic API") {
  STATIC_REQUIRE(strided::Element<Cents>);
  // [custom-element-use]
  auto prices = Tensor<Cents>::from_vector({{125}, {250}, {999}, {1}}, {2, 2}).value();
  auto column = prices.transpose_2d().value().contiguous();  // the copy engine moves bytes
  auto as_float = prices.cast<float>().value();              // through element_traits::to_f32
  auto back = as_float.cast<Cents>().value();                // and from_f32
  std::string text = strided::to_string(prices);             // printed through to_f32
  // [custom-element-use]
  CHECK(column.get({0, 1})->value == 999);
  CHECK(column.get({1, 0})->value == 250);
  CHECK(as_float.to_vector() == std::vector<float>{1.25f, 2.5f, 9.99f, 0.01f});
  CHECK(strided::equal(back, prices));  // no operator== on Cents: equal() compares the bytes
  CHECK(text == "tensor([[1.2500, 2.5000],\n        [9.9900, 0.0100]])");
  CHECK(Tensor<Cents>::ones({2}).value().get({1})->value == 100);
  CHECK(Tensor<std::int32_t>::from_vector({3, -2}, {2}).value().cast<Cents>()->get({1})->value ==
        -200);
}
