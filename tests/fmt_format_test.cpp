#include "catch_shim.hpp"
// fmt::formatter (and std::formatter where <format> exists) for Tensor: {}, {:.N}, {:?}, {:#?}.
#include <fmt/format.h>
#include <fmt/ranges.h>  // its range formatter must not capture Shape

#include <cstdint>
#include <iterator>
#include <strided/format.hpp>
#include <strided/tensor.hpp>
#include <string>
#include <string_view>
#include <vector>

using strided::Tensor;

namespace {

template <class T>
Tensor<T> make(std::vector<T> values, const strided::Shape& shape) {
  return Tensor<T>::from_vector(std::move(values), shape).value();
}

// The spec parser is constexpr: invalid specs are rejected while compiling (this is what makes
// fmt::format("{:x}", t) a compile error).
constexpr bool spec_ok(std::string_view text) {
  strided::detail::TextSpec spec;
  bool ok = true;
  const char* end =
      strided::detail::parse_text_spec(text.data(), text.data() + text.size(), spec, ok);
  return ok && end == text.data() + text.size() - 1;  // stops at the closing brace
}
static_assert(spec_ok("}"));
static_assert(spec_ok(".2}"));
static_assert(spec_ok("?}"));
static_assert(spec_ok("#?}"));
static_assert(!spec_ok("x}"));
static_assert(!spec_ok(".}"));
static_assert(!spec_ok("#}"));
static_assert(!spec_ok("?x}"));
static_assert(!spec_ok(".2?}"));
static_assert(!spec_ok(".99999}"));

}  // namespace

TEST_CASE("fmt: {} is Display") {
  const auto t = make<float>({1.0f, 2.5f, 3.0f, 4.0f}, {2, 2});
  CHECK(fmt::format("{}", t) == "tensor([[1.0000, 2.5000],\n        [3.0000, 4.0000]])");
  CHECK(fmt::format("{}", t) == strided::to_string(t));
  CHECK(fmt::format("{}", Tensor<std::int64_t>::scalar(3)) == "tensor(3)");
  CHECK(fmt::format("{}", Tensor<float>::zeros({2, 0}).value()) == "tensor([], shape=[2, 0])");
  CHECK(fmt::format("a={} b={}", Tensor<bool>::scalar(true), Tensor<std::uint8_t>::scalar(7)) ==
        "a=tensor(True) b=tensor(7)");
}

TEST_CASE("fmt: {:.N} sets the precision") {
  const auto t = make<double>({3.14159265, -2.5}, {2});
  CHECK(fmt::format("{:.2}", t) == "tensor([ 3.14, -2.50])");
  CHECK(fmt::format("{:.0}", t) == "tensor([ 3, -2])");
  CHECK(fmt::format("{:.7}", t) == "tensor([ 3.1415927, -2.5000000])");
  strided::PrintOptions o;
  o.precision = 2;
  CHECK(fmt::format("{:.2}", t) == strided::display(t, o));
}

TEST_CASE("fmt: {:?} and {:#?} are Debug") {
  const auto t = make<std::int32_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(fmt::format("{:?}", t) ==
        "Tensor { shape: [2, 3], strides: [3, 1], offset: 0, storage_len: 6, data: [1, 2, 3, 4, "
        "5, 6] }");
  CHECK(fmt::format("{:#?}", t) ==
        "Tensor {\n    shape: [2, 3],\n    strides: [3, 1],\n    offset: 0,\n    storage_len: 6,\n"
        "    data: [1, 2, 3, 4, 5, 6],\n}");
  CHECK(fmt::format("{:?}", t) == strided::to_debug_string(t));
  CHECK(fmt::format("{:#?}", t) == strided::to_debug_string(t, true));
}

TEST_CASE("fmt: invalid specs are format errors, not crashes") {
  const auto t = make<float>({1.0f}, {1});
  CHECK_THROWS_AS(fmt::format(fmt::runtime("{:x}"), t), fmt::format_error);
  CHECK_THROWS_AS(fmt::format(fmt::runtime("{:.}"), t), fmt::format_error);
  CHECK_THROWS_AS(fmt::format(fmt::runtime("{:#}"), t), fmt::format_error);
  CHECK_THROWS_AS(fmt::format(fmt::runtime("{:>10}"), t), fmt::format_error);
}

TEST_CASE("fmt: output iterators and views") {
  const auto t = make<float>({1, 2, 3, 4, 5, 6}, {2, 3}).transpose(0, 1).value();
  std::string out;
  fmt::format_to(std::back_inserter(out), "{}|{:?}", t, t);
  CHECK(out ==
        "tensor([[1., 4.],\n        [2., 5.],\n        [3., 6.]])|Tensor { shape: [3, 2], "
        "strides: [1, 3], offset: 0, storage_len: 6, data: [1, 4, 2, 5, 3, 6] }");
}

TEST_CASE("fmt: Shape and Strides format as lists, with string specs") {
  const auto t = make<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  CHECK(fmt::format("{}", t.shape()) == "[2, 3]");
  CHECK(fmt::format("{}", t.transpose(0, 1).value().flip(0).value().strides()) == "[-1, 3]");
  CHECK(fmt::format("{:>10}|", t.shape()) == "    [2, 3]|");
  CHECK(fmt::format("{}", strided::Shape{}) == "[]");
}

#if defined(__cpp_lib_format)
TEST_CASE("std::format: Shape and Strides") {
  CHECK(std::format("{}", strided::Shape{8, 3, 3, 3}) == "[8, 3, 3, 3]");
  CHECK(std::format("{:<8}|", strided::Strides{-1}) == "[-1]    |");
}
#else
TEST_CASE("std::format: not available") {
  WARN("this standard library has no <format>: the std::formatter tests did not run");
}
#endif

#if defined(__cpp_lib_format)
TEST_CASE("std::format: the same specs") {
  const auto t = make<double>({3.14159265, -2.5}, {2});
  CHECK(std::format("{}", t) == strided::to_string(t));
  CHECK(std::format("{:.2}", t) == "tensor([ 3.14, -2.50])");
  CHECK(std::format("{:?}", t) == strided::to_debug_string(t));
  CHECK(std::format("{:#?}", t) == strided::to_debug_string(t, true));
}
#endif
