#include "catch_shim.hpp"
// detail::parse_float (decimal text → nearest float) against the C library's strtof, which glibc
// rounds correctly; the test process runs in the "C" locale, so strtof reads '.' as the point.
#include <bit>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <strided/detail/parse_float.hpp>
#include <strided/half.hpp>
#include <string>

namespace {

using strided::detail::parse_float;

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

/// The number of inputs on which parse_float and strtof differ (each must accept the text).
std::size_t mismatch_with_strtof(const std::string& text) {
  const std::optional<float> got = parse_float(text);
  const float want = std::strtof(text.c_str(), nullptr);
  if (got && bits(*got) == bits(want)) return 0;
  UNSCOPED_INFO("text " << text << " parse_float "
                        << (got ? std::to_string(*got) : std::string("nullopt")) << " strtof "
                        << want);
  return 1;
}

std::string scientific(float f, int digits) {
  char buf[64];
  const auto [end, ec] =
      std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific, digits);
  REQUIRE(ec == std::errc());
  return std::string(buf, end);
}

template <class H>
std::size_t every_half_at_every_precision() {
  std::size_t bad = 0;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float f = static_cast<float>(H::from_bits(static_cast<std::uint16_t>(b)));
    if (!std::isfinite(f)) continue;
    for (int digits = 0; digits < 9; ++digits) bad += mismatch_with_strtof(scientific(f, digits));
  }
  return bad;
}

}  // namespace

TEST_CASE("parse_float reads what the half printer writes: every f16 and bf16, 0-8 digits",
          "[parse_float]") {
  CHECK(every_half_at_every_precision<strided::f16>() == 0);
  CHECK(every_half_at_every_precision<strided::bf16>() == 0);
}

TEST_CASE("parse_float equals strtof on random floats in scientific, fixed and shortest form",
          "[parse_float]") {
  std::mt19937 rng(17);
  std::size_t bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
    if (!std::isfinite(f)) continue;
    bad += mismatch_with_strtof(scientific(f, static_cast<int>(rng() % 19)));
    char buf[64];
    const auto shortest = std::to_chars(buf, buf + sizeof buf, f);
    bad += mismatch_with_strtof(std::string(buf, shortest.ptr));
    if (std::fabs(f) < 1e12f && std::fabs(f) > 1e-6f) {
      const auto fixed = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::fixed, 6);
      const std::string text(buf, fixed.ptr);
      // 19 significant digits at most: count the digits that are not leading zeros.
      const std::size_t first = text.find_first_of("123456789");
      if (first != std::string::npos && text.size() - first <= 19)
        bad += mismatch_with_strtof(text);
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("parse_float breaks exact ties to even", "[parse_float]") {
  CHECK(bits(*parse_float("16777217")) == bits(16777216.0f));  // 2^24 + 1: tie, even is below
  CHECK(bits(*parse_float("16777219")) == bits(16777220.0f));  // 2^24 + 3: tie, even is above
  CHECK(bits(*parse_float("16777217.000000001")) == bits(16777218.0f));  // just past the tie
  std::size_t bad = 0;
  for (int shift = 0; shift < 39; ++shift) {
    for (std::uint64_t odd = 1; odd < 64; odd += 2) {  // (2^24 + odd) * 2^shift: a midpoint
      const std::uint64_t v = ((std::uint64_t{1} << 24) + odd) << shift;
      bad += mismatch_with_strtof(std::to_string(v));
    }
  }
  CHECK(bad == 0);
}

TEST_CASE("parse_float at the ends of float's range", "[parse_float]") {
  const float max = std::numeric_limits<float>::max();
  const float tiny = std::numeric_limits<float>::denorm_min();
  CHECK(bits(*parse_float("3.4028235e38")) == bits(max));
  CHECK(bits(*parse_float("3.4028235677973365e38")) == bits(max));  // just below the midpoint
  CHECK_FALSE(parse_float("3.4028235677973367e38"));                // rounds to infinity
  CHECK_FALSE(parse_float("1e39"));
  CHECK_FALSE(parse_float("-1e40"));
  CHECK_FALSE(parse_float("1e9999"));
  CHECK(bits(*parse_float("1e-45")) == bits(tiny));
  CHECK(bits(*parse_float("7.1e-46")) == bits(tiny));  // above half the smallest subnormal
  CHECK(bits(*parse_float("7e-46")) == bits(0.0f));    // below it
  CHECK(bits(*parse_float("-1e-50")) == bits(-0.0f));
  CHECK(bits(*parse_float("1.1754942e-38")) == bits(0x1.fffffcp-127f));  // largest subnormal
  CHECK(bits(*parse_float("-0")) == bits(-0.0f));
  CHECK(bits(*parse_float("0e12")) == bits(0.0f));
  CHECK(bits(*parse_float("0.000")) == bits(0.0f));
  CHECK(bits(*parse_float("1.5E+2")) == bits(150.0f));
  CHECK(bits(*parse_float("0.1")) == bits(0.1f));
  CHECK(bits(*parse_float("-65504")) == bits(-65504.0f));
}

TEST_CASE("parse_float rejects text outside its form", "[parse_float]") {
  for (const char* text : {"",
                           "-",
                           ".",
                           "-.",
                           "e5",
                           "1e",
                           "1e+",
                           "1e-",
                           "abc",
                           "1.2.3",
                           "1x",
                           "+1",
                           " 1",
                           "1 ",
                           "--1",
                           "1e5.0",
                           "nan",
                           "inf",
                           "0x1p3",
                           "12345678901234567890",
                           "0.12345678901234567890"}) {
    INFO("text '" << text << "'");
    CHECK_FALSE(parse_float(text));
  }
  CHECK(parse_float("1234567890123456789"));       // 19 significant digits: accepted
  CHECK(parse_float("0.0001234567890123456789"));  // leading zeros are not significant
}
