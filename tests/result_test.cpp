#include <strided/result.hpp>
#include <string>
#include <type_traits>
#include <utility>

#include "catch_shim.hpp"

using strided::DataError;
using strided::Result;
using strided::ShapeError;
using strided::ShapeErrorKind;

namespace {
Result<int> parse_positive(int v) {
  if (v <= 0) return ShapeError::invalid_argument("parse", "value must be positive");
  return v;
}

constexpr Result<int> constexpr_half(int v) {
  if (v % 2 != 0) return ShapeError::invalid_argument("half", "odd");
  return v / 2;
}
}  // namespace

TEST_CASE("Result holds a value or an error") {
  const Result<int> ok = parse_positive(3);
  REQUIRE(ok.has_value());
  REQUIRE(static_cast<bool>(ok));
  REQUIRE(*ok == 3);
  REQUIRE(ok.value() == 3);

  const Result<int> bad = parse_positive(-1);
  REQUIRE_FALSE(bad.has_value());
  REQUIRE(bad.error().kind() == ShapeErrorKind::invalid_argument);
  REQUIRE(bad.value_or(7) == 7);
  REQUIRE(ok.value_or(7) == 3);
}

TEST_CASE("Result monadic operations follow std::expected") {
  auto doubled = parse_positive(4).transform([](int v) { return v * 2; });
  REQUIRE(*doubled == 8);
  auto chained = parse_positive(4).and_then([](int v) { return parse_positive(v - 10); });
  REQUIRE_FALSE(chained);
  REQUIRE(std::string(chained.error().op()) == "parse");
  auto recovered = parse_positive(-2).or_else([](const ShapeError&) { return Result<int>(1); });
  REQUIRE(*recovered == 1);
  auto kind = parse_positive(-2).transform_error([](const ShapeError& e) { return e.code(); });
  REQUIRE(kind.error() == ShapeErrorKind::invalid_argument);
  auto passthrough = parse_positive(5).or_else([](const ShapeError&) { return Result<int>(0); });
  REQUIRE(*passthrough == 5);
}

TEST_CASE("Result copies, moves and assigns between value and error states") {
  Result<std::string> a(std::string("hello"));
  Result<std::string> b(ShapeError::invalid_argument("x", "y"));
  b = a;
  REQUIRE(*b == "hello");
  a = Result<std::string>(ShapeError::invalid_argument("x", "z"));
  REQUIRE_FALSE(a);
  Result<std::string> c = std::move(b);
  REQUIRE(c->size() == 5);
  std::string taken = std::move(c).value();
  REQUIRE(taken == "hello");
}

TEST_CASE("Result<void> reports success or the error") {
  Result<void> ok;
  REQUIRE(ok.has_value());
  ok.value();
  Result<void> bad(ShapeError::invalid_argument("copy_to", "nope"));
  REQUIRE_FALSE(bad);
  REQUIRE(bad.error().kind() == ShapeErrorKind::invalid_argument);
  auto next = ok.and_then([] { return Result<int>(3); });
  REQUIRE(*next == 3);
  auto skipped = bad.transform([] { return 1; });
  REQUIRE_FALSE(skipped);
}

TEST_CASE("Result with a DataError") {
  Result<int, DataError> r(DataError::empty_batch("stack_samples"));
  REQUIRE(r.error().kind() == strided::DataErrorKind::empty_batch);
}

#if defined(__cpp_exceptions)
TEST_CASE("value() on an error throws BadResultAccess carrying the message") {
  const Result<int> bad = parse_positive(0);
  REQUIRE_THROWS_AS(bad.value(), strided::BadResultAccess<ShapeError>);
  try {
    (void)*bad;
    FAIL("no throw");
  } catch (const strided::BadResultAccess<ShapeError>& e) {
    REQUIRE(std::string(e.what()) == "parse: value must be positive");
    REQUIRE(e.error().kind() == ShapeErrorKind::invalid_argument);
  }
  const Result<int> ok = 1;
  REQUIRE_THROWS_AS(ok.error(), strided::BadResultAccess<ShapeError>);
  REQUIRE_THROWS_AS(Result<void>(ShapeError::invalid_argument("a", "b")).value(),
                    strided::BadResultAccess<ShapeError>);
}
#endif

TEST_CASE("Result builds its value in place and Result<void> gives its error up") {
  const Result<std::string> built(std::in_place, std::size_t{3}, 'x');  // std::string(3, 'x')
  REQUIRE(built.value() == "xxx");
  STATIC_REQUIRE(Result<std::pair<int, int>>(std::in_place, 2, 5).value().second == 5);
  STATIC_REQUIRE(!std::is_convertible_v<int, Result<std::string>>);  // no implicit in-place
  // A value changed where it lives, then the whole Result replaced by an error.
  Result<std::string> changed(std::in_place, "ab");
  changed->push_back('c');
  REQUIRE(*changed == "abc");
  Result<void> failed(ShapeError::invalid_argument("op", "why"));
  changed = std::move(failed).error();
  REQUIRE_FALSE(changed.has_value());
  REQUIRE(changed.error().message() == "op: why");
  Result<void> fine;
  REQUIRE_THROWS_AS(std::move(fine).error(), strided::BadResultAccess<ShapeError>);
}

TEST_CASE("Result is usable in constant expressions") {
  STATIC_REQUIRE(constexpr_half(8).value() == 4);
  STATIC_REQUIRE(!constexpr_half(3).has_value());
  STATIC_REQUIRE(constexpr_half(3).error().kind() == ShapeErrorKind::invalid_argument);
  STATIC_REQUIRE(constexpr_half(6).transform([](int v) { return v + 1; }).value() == 4);
}

#if defined(__cpp_lib_expected) && __cpp_lib_expected >= 202202L
TEST_CASE("Result converts to and from std::expected") {
  auto e = strided::to_expected(parse_positive(2));
  REQUIRE(*e == 2);
  auto back = strided::from_expected(strided::to_expected(parse_positive(-1)));
  REQUIRE_FALSE(back);
}
#endif
