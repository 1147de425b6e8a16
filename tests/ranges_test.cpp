// arange and linspace: NumPy's values bit for bit over the generated table
// (tests/gen_operations.py), and the errors with their messages.
#include "strided/ranges.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "catch_shim.hpp"
#include "operations_table.hpp"
#include "strided/half.hpp"
#include "support.hpp"

using strided::Shape;
using strided::ShapeErrorKind;
using strided::Tensor;

namespace {

template <class T>
std::uint64_t bits_of(T v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
  } else {
    std::uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));  // little-endian: the low bytes
    return b;
  }
}

template <class T>
void check_values(const strided::Result<Tensor<T>>& r, strided_test::Words& in) {
  if (in.word() == "err") {
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind() == ShapeErrorKind::invalid_argument);
    return;
  }
  REQUIRE(r.has_value());
  const std::size_t n = in.size();
  REQUIRE(r->shape() == Shape{n});
  const auto values = r->as_slice().value();
  for (std::size_t i = 0; i < n; ++i) {
    CAPTURE(i);
    CHECK(bits_of(values[i]) == in.bits());
  }
}

template <class T>
void replay(const std::string& op, strided_test::Words& in) {
  if (op == "linspace") {
    const double start = in.real(), stop = in.real();
    const std::size_t n = in.size();
    const bool endpoint = in.size() != 0;
    return check_values(strided::linspace<T>(start, stop, n, endpoint), in);
  }
  if constexpr (std::is_integral_v<T>) {
    const std::int64_t start = in.integer(), stop = in.integer();
    return check_values(strided::arange<T>(start, stop, in.integer()), in);
  } else {
    const double start = in.real(), stop = in.real();
    return check_values(strided::arange<T>(start, stop, in.real()), in);
  }
}

using strided_test::check_error;

}  // namespace

TEST_CASE("arange and linspace give NumPy's values bit for bit") {
  std::size_t cases = 0;
  for (const std::string op : {"arange", "linspace"}) {
    for (const std::string& line : strided_test::operation_lines(op)) {
      INFO(op << " " << line);
      strided_test::Words in(line);
      const std::string dtype = in.word();
      if (dtype == "i8")
        replay<std::int8_t>(op, in);
      else if (dtype == "u8")
        replay<std::uint8_t>(op, in);
      else if (dtype == "i16")
        replay<std::int16_t>(op, in);
      else if (dtype == "i32")
        replay<std::int32_t>(op, in);
      else if (dtype == "u32")
        replay<std::uint32_t>(op, in);
      else if (dtype == "i64")
        replay<std::int64_t>(op, in);
      else if (dtype == "f16")
        replay<strided::f16>(op, in);
      else if (dtype == "bf16")
        replay<strided::bf16>(op, in);
      else if (dtype == "f32")
        replay<float>(op, in);
      else if (dtype == "f64")
        replay<double>(op, in);
      else
        FAIL("unknown dtype " << dtype);
      ++cases;
    }
  }
  CHECK(cases >= 800);
}

TEST_CASE("ranges: lengths, ends and the special counts") {
  CHECK(strided::arange<int>(5).value().to_vector() == std::vector<int>{0, 1, 2, 3, 4});
  CHECK(strided::arange<int>(5, 0, -2).value().to_vector() == std::vector<int>{5, 3, 1});
  CHECK(strided::arange<int>(3, 3).value().shape() == Shape{0});
  CHECK(strided::arange<int>(3, 0).value().shape() == Shape{0});
  CHECK(strided::arange<double>(0, 1, 0.1).value().numel() == 10);  // ceil(1 / 0.1)
  CHECK(strided::arange<float>(1, 1.5, 0.5).value().to_vector() == std::vector<float>{1});
  CHECK(strided::arange<std::int64_t>(std::numeric_limits<std::int64_t>::min(), 0,
                                      std::numeric_limits<std::int64_t>::max())
            .value()
            .to_vector() ==
        std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(), -1});
  CHECK(strided::linspace<double>(2, 3, 0).value().shape() == Shape{0});
  CHECK(strided::linspace<double>(2, 3, 1).value().to_vector() == std::vector<double>{2});
  CHECK(strided::linspace<double>(2, 3, 1, false).value().to_vector() == std::vector<double>{2});
  CHECK(strided::linspace<float>(0, 1, 3).value().to_vector() == std::vector<float>{0, 0.5f, 1});
  CHECK(strided::linspace<float>(0, 1, 4, false).value().to_vector() ==
        std::vector<float>{0, 0.25f, 0.5f, 0.75f});
  CHECK(strided::linspace<int>(-1, 1, 5).value().to_vector() == std::vector<int>{-1, -1, 0, 0, 1});
}

TEST_CASE("ranges: errors") {
  check_error(strided::arange<int>(0, 4, 0), ShapeErrorKind::invalid_argument,
              "arange: step must not be zero");
  check_error(strided::arange<float>(0, 4, 0.0), ShapeErrorKind::invalid_argument,
              "arange: step must not be zero");
  check_error(strided::arange<double>(0, std::numeric_limits<double>::infinity(), 1),
              ShapeErrorKind::invalid_argument, "arange: start, stop and step must be finite");
  check_error(strided::arange<double>(0, std::numeric_limits<double>::quiet_NaN(), 1),
              ShapeErrorKind::invalid_argument, "arange: start, stop and step must be finite");
  check_error(strided::arange<std::int8_t>(0, 300), ShapeErrorKind::invalid_argument,
              "arange: the range's values do not fit the element type");
  check_error(strided::arange<std::uint8_t>(-1, 3), ShapeErrorKind::invalid_argument,
              "arange: the range's values do not fit the element type");
  check_error(strided::arange<std::int64_t>(std::numeric_limits<std::int64_t>::min(),
                                            std::numeric_limits<std::int64_t>::max()),
              ShapeErrorKind::size_overflow,
              "arange: the element count, a stride or the offset of shape [18446744073709551615] "
              "overflows");
  check_error(strided::arange<double>(-1e300, 1e300, 1e-300), ShapeErrorKind::size_overflow,
              "arange: the element count, a stride or the offset of shape [18446744073709551615] "
              "overflows");
  check_error(strided::arange<float>(0, 0x1p62, 1), ShapeErrorKind::size_overflow,
              "arange: the element count, a stride or the offset of shape [4611686018427387904] "
              "overflows");
  check_error(strided::linspace<double>(0, 1, std::size_t{1} << 61), ShapeErrorKind::size_overflow,
              "linspace: the element count, a stride or the offset of shape [2305843009213693952] "
              "overflows");
  check_error(strided::linspace<std::uint8_t>(-1, 10, 3), ShapeErrorKind::invalid_argument,
              "linspace: the values do not fit the element type");
  check_error(strided::linspace<int>(0, std::numeric_limits<double>::infinity(), 3),
              ShapeErrorKind::invalid_argument, "linspace: the values do not fit the element type");
}
