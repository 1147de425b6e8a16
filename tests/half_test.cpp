#include "catch_shim.hpp"
// f16 / bf16: conversions against an independent oracle, numeric_limits, comparisons.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <strided/half.hpp>
#include <type_traits>
#include <vector>

namespace {

using strided::bf16;
using strided::f16;

static_assert(std::is_trivially_copyable_v<f16> && std::is_trivially_copyable_v<bf16>);
static_assert(sizeof(f16) == 2 && sizeof(bf16) == 2);
static_assert(f16().bits() == 0 && bf16().bits() == 0);
static_assert(!std::is_convertible_v<float, f16> && !std::is_convertible_v<f16, float>);
// constexpr conversions.
static_assert(f16(1.0f).bits() == 0x3c00 && bf16(1.0f).bits() == 0x3f80);
static_assert(f16(-2.0).bits() == 0xc000 && bf16(-2.0).bits() == 0xc000);
static_assert(static_cast<float>(f16::from_bits(0x0001)) == 0x1p-24f);
static_assert(static_cast<double>(bf16::from_bits(0x0001)) == 0x1p-133);
static_assert(f16(65520.0f).bits() == 0x7c00 && f16(65519.996f).bits() == 0x7bff);
static_assert(f16::from_bits(0x8000) == f16::from_bits(0x0000));
static_assert(!(f16::from_bits(0x7e00) == f16::from_bits(0x7e00)));
static_assert(f16::from_bits(0xbc00) < f16::from_bits(0x3c00));

// Oracle: the 16-bit pattern nearest to `v` (ties to even), found by search over the ordered
// positive patterns and an exact midpoint comparison in double (both formats have <= 11 bits).
template <class H>
std::uint16_t nearest_bits(double v) {
  const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  const std::uint16_t inf = std::numeric_limits<H>::infinity().bits();
  // Largest finite pattern p with value(p) <= a.
  std::uint16_t lo = 0, hi = static_cast<std::uint16_t>(inf - 1);
  if (a >= static_cast<double>(H::from_bits(hi))) {
    lo = hi;
  } else {
    while (hi - lo > 1) {
      const auto mid = static_cast<std::uint16_t>((lo + hi) / 2);
      if (static_cast<double>(H::from_bits(mid)) <= a)
        lo = mid;
      else
        hi = mid;
    }
  }
  const double below = static_cast<double>(H::from_bits(lo));
  // The pattern after the largest finite is inf; treat it as the next binade's first value.
  const double above = lo + 1 == inf
                           ? std::ldexp(1.0, std::numeric_limits<H>::max_exponent)
                           : static_cast<double>(H::from_bits(static_cast<std::uint16_t>(lo + 1)));
  const double mid = (below + above) / 2;  // exact
  std::uint16_t r = lo;
  if (a > mid || (a == mid && (lo & 1) != 0)) r = static_cast<std::uint16_t>(lo + 1);
  return static_cast<std::uint16_t>(sign | r);
}

template <class H>
void check_against_oracle(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int max_e = std::numeric_limits<H>::max_exponent + 1;
  const int min_e = std::numeric_limits<H>::min_exponent - std::numeric_limits<H>::digits - 2;
  std::uniform_int_distribution<int> exp_dist(min_e, max_e);
  for (int i = 0; i < 200000; ++i) {
    // Random significand, random exponent across the whole range incl. subnormals and overflow.
    const double m = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
    const double d = std::ldexp((rng() & 1) != 0 ? -m : m, exp_dist(rng));
    const std::uint16_t want = nearest_bits<H>(d);
    REQUIRE(H(d).bits() == want);
    // Floats: the same oracle (float to double is exact).
    const auto f = static_cast<float>(d);
    REQUIRE(H(f).bits() == nearest_bits<H>(static_cast<double>(f)));
  }
}

}  // namespace

TEST_CASE("f16 and bf16 from float/double match a nearest-value oracle", "[half]") {
  check_against_oracle<f16>(1);
  check_against_oracle<bf16>(2);
}

TEST_CASE("f16/bf16 from double round once, not through float", "[half]") {
  // 1 + 2^-11 + 2^-40: just above the f16 tie between 1 and 1 + 2^-10. Through float the 2^-40
  // is lost first and the tie then goes to even (1.0).
  const double d = 1.0 + 0x1p-11 + 0x1p-40;
  CHECK(f16(d).bits() == 0x3c01);
  CHECK(f16(static_cast<float>(d)).bits() == 0x3c00);
  const double e = 1.0 + 0x1p-8 + 0x1p-40;  // the same for bf16
  CHECK(bf16(e).bits() == 0x3f81);
  CHECK(bf16(static_cast<float>(e)).bits() == 0x3f80);
  // Subnormal result from double: 2^-25 + 2^-60 is above half of f16's smallest subnormal.
  CHECK(f16(0x1p-25 + 0x1p-60).bits() == 0x0001);
  CHECK(f16(0x1p-25).bits() == 0x0000);
  CHECK(f16(-0x1p-25).bits() == 0x8000);
}

TEST_CASE("every f16 and bf16 pattern widens exactly and comes back", "[half]") {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const auto bits = static_cast<std::uint16_t>(b);
    const bool f16_nan = (bits & 0x7fff) > 0x7c00;
    const f16 h = f16::from_bits(bits);
    const auto hf = static_cast<float>(h);
    const auto hd = static_cast<double>(h);
    if (f16_nan) {
      REQUIRE(std::isnan(hf));
      REQUIRE(std::isnan(hd));
      // Quiet, with sign and payload kept.
      REQUIRE(std::bit_cast<std::uint32_t>(hf) ==
              ((bits & 0x8000u) << 16 | 0x7fc00000u | (bits & 0x3ffu) << 13));
      REQUIRE(f16(hf).bits() == (bits | 0x0200));
      REQUIRE(f16(hd).bits() == (bits | 0x0200));
    } else {
      REQUIRE(static_cast<double>(hf) == hd);
      REQUIRE(f16(hf).bits() == bits);
      REQUIRE(f16(hd).bits() == bits);
      REQUIRE(std::signbit(hf) == ((bits & 0x8000) != 0));
    }
    const bool bf_nan = (bits & 0x7fff) > 0x7f80;
    const bf16 g = bf16::from_bits(bits);
    const auto gf = static_cast<float>(g);
    if (bf_nan) {
      REQUIRE(std::bit_cast<std::uint32_t>(gf) == ((std::uint32_t{bits} << 16) | 0x00400000u));
      REQUIRE(bf16(gf).bits() == (bits | 0x0040));
      REQUIRE(bf16(static_cast<double>(g)).bits() == (bits | 0x0040));
    } else {
      REQUIRE(std::bit_cast<std::uint32_t>(gf) == std::uint32_t{bits} << 16);
      REQUIRE(static_cast<double>(g) == static_cast<double>(gf));
      REQUIRE(bf16(gf).bits() == bits);
    }
  }
}

TEST_CASE("narrowing edge table", "[half]") {
  struct Row {
    float in;
    std::uint16_t f16_bits;
    std::uint16_t bf16_bits;
  };
  const float inf = std::numeric_limits<float>::infinity();
  const Row rows[] = {
      {0.0f, 0x0000, 0x0000},
      {-0.0f, 0x8000, 0x8000},
      {1.0f, 0x3c00, 0x3f80},
      {inf, 0x7c00, 0x7f80},
      {-inf, 0xfc00, 0xff80},
      {65504.0f, 0x7bff, 0x4780},             // f16 max
      {65519.0f, 0x7bff, 0x4780},             // below the f16 overflow tie
      {65520.0f, 0x7c00, 0x4780},             // tie at f16 max + half ulp: to even = inf
      {1.0f + 0x1p-11f, 0x3c00, 0x3f80},      // tie, even below
      {1.0f + 3 * 0x1p-11f, 0x3c02, 0x3f80},  // tie, even above
      {1.0f + 0x1p-8f, 0x3c04, 0x3f80},       // bf16 tie to even (down)
      {1.0f + 3 * 0x1p-8f, 0x3c0c, 0x3f82},   // bf16 tie to even (up)
      {0x1p-14f, 0x0400, 0x3880},             // f16 smallest normal
      {0x1p-24f, 0x0001, 0x3380},             // f16 smallest subnormal
      {0x1p-25f, 0x0000, 0x3300},             // tie with 0: even = 0
      {0x1.8p-25f, 0x0001, 0x3340},           // above the tie
      {0x1.8p-24f, 0x0002, 0x33c0},           // 1.5 subnormal units: tie to even 2
      {0x1.ffcp-15f, 0x0400, 0x3880},         // half an ulp above the largest subnormal: up
      {std::numeric_limits<float>::max(), 0x7c00, 0x7f80},
      {0x1p-149f, 0x0000, 0x0000},    // f32 smallest subnormal
      {0x1p-133f, 0x0000, 0x0001},    // bf16 smallest subnormal
      {0x1.8p-133f, 0x0000, 0x0002},  // bf16 subnormal tie to even
      {0x1p-126f, 0x0000, 0x0080},    // f32 smallest normal
  };
  for (const Row& r : rows) {
    INFO("in = " << r.in);
    CHECK(f16(r.in).bits() == r.f16_bits);
    CHECK(bf16(r.in).bits() == r.bf16_bits);
    CHECK(f16(-r.in).bits() == (r.f16_bits ^ 0x8000));
    CHECK(bf16(-r.in).bits() == (r.bf16_bits ^ 0x8000));
    CHECK(f16(static_cast<double>(r.in)).bits() == r.f16_bits);
    CHECK(bf16(static_cast<double>(r.in)).bits() == r.bf16_bits);
  }
}

TEST_CASE("NaN narrowing keeps sign and leading payload, quieted", "[half]") {
  struct Row {
    std::uint32_t in;
    std::uint16_t f16_bits;
    std::uint16_t bf16_bits;
  };
  const Row rows[] = {
      {0x7fc00000, 0x7e00, 0x7fc0},  // default quiet NaN
      {0xffc00000, 0xfe00, 0xffc0},
      {0x7f800001, 0x7e00, 0x7fc0},  // signalling, payload only in low bits
      {0x7fa00000, 0x7f00, 0x7fe0},  // signalling with a high payload bit
      {0xff812345, 0xfe09, 0xffc1},
      {0x7fffffff, 0x7fff, 0x7fff},
  };
  for (const Row& r : rows) {
    const float v = std::bit_cast<float>(r.in);
    CHECK(f16(v).bits() == r.f16_bits);
    CHECK(bf16(v).bits() == r.bf16_bits);
  }
  // From double: payload bits 51.. map to the top of the narrower payload.
  CHECK(f16(std::bit_cast<double>(0x7ff4000000000000ull)).bits() == 0x7f00);
  CHECK(bf16(std::bit_cast<double>(0xfff0000000000001ull)).bits() == 0xffc0);
}

TEST_CASE("numeric_limits describe the formats", "[half]") {
  using LF = std::numeric_limits<f16>;
  using LB = std::numeric_limits<bf16>;
  CHECK(static_cast<float>(LF::max()) == 65504.0f);
  CHECK(static_cast<float>(LF::lowest()) == -65504.0f);
  CHECK(static_cast<float>(LF::min()) == 0x1p-14f);
  CHECK(static_cast<float>(LF::denorm_min()) == 0x1p-24f);
  CHECK(static_cast<float>(LF::epsilon()) == 0x1p-10f);
  CHECK(static_cast<float>(LF::round_error()) == 0.5f);
  CHECK(std::isinf(static_cast<float>(LF::infinity())));
  CHECK(std::isnan(static_cast<float>(LF::quiet_NaN())));
  CHECK((LF::signaling_NaN().bits() & 0x0200) == 0);
  CHECK(static_cast<float>(LB::max()) == std::ldexp(255.0f, 120));
  CHECK(static_cast<float>(LB::min()) == std::numeric_limits<float>::min());
  CHECK(static_cast<float>(LB::denorm_min()) == 0x1p-133f);
  CHECK(static_cast<float>(LB::epsilon()) == 0x1p-7f);
  CHECK(std::isnan(static_cast<float>(LB::quiet_NaN())));
  CHECK((LB::signaling_NaN().bits() & 0x0040) == 0);
  CHECK(std::isnan(static_cast<float>(LB::signaling_NaN())));
  // digits/exponent fields agree with the values.
  CHECK(std::ldexp(1.0f, LF::max_exponent - 1) <= static_cast<float>(LF::max()));
  CHECK(std::ldexp(1.0f, LF::min_exponent - 1) == static_cast<float>(LF::min()));
  CHECK(std::ldexp(1.0f, LB::min_exponent - 1) == static_cast<float>(LB::min()));
  CHECK(std::ldexp(1.0f, 1 - LF::digits) == static_cast<float>(LF::epsilon()));
  CHECK(std::ldexp(1.0f, 1 - LB::digits) == static_cast<float>(LB::epsilon()));
}

// The members f16 and bf16 share with float: each specialisation spells them out, so a typo in
// one of the two would otherwise go unseen.
template <class H>
void check_float_like_limits() {
  using L = std::numeric_limits<H>;
  using F = std::numeric_limits<float>;
  CHECK(L::is_specialized);
  CHECK(L::is_signed == F::is_signed);
  CHECK(L::is_integer == F::is_integer);
  CHECK(L::is_exact == F::is_exact);
  CHECK(L::has_infinity == F::has_infinity);
  CHECK(L::has_quiet_NaN == F::has_quiet_NaN);
  CHECK(L::has_signaling_NaN == F::has_signaling_NaN);
  CHECK(L::has_denorm == std::denorm_present);  // both formats have subnormals
  CHECK_FALSE(L::has_denorm_loss);
  CHECK(L::round_style == F::round_style);
  CHECK(L::is_bounded == F::is_bounded);
  CHECK(L::is_modulo == F::is_modulo);
  CHECK(L::radix == F::radix);
  CHECK_FALSE(L::traps);
  CHECK_FALSE(L::tinyness_before);
}

TEST_CASE("numeric_limits share float's flags", "[half]") {
  check_float_like_limits<f16>();
  check_float_like_limits<bf16>();
  CHECK(std::numeric_limits<f16>::is_iec559);
  CHECK_FALSE(std::numeric_limits<bf16>::is_iec559);
}

TEST_CASE("comparisons follow float semantics", "[half]") {
  // For every pair drawn from a sample that covers zeros, NaNs, infs and subnormals, the
  // comparison must equal the comparison of the widened floats.
  std::mt19937 rng(3);
  std::vector<std::uint16_t> sample = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x7d01, 0xfe00,
                                       0x0001, 0x8001, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7f80,
                                       0xff80, 0x7fc0, 0x7f81, 0x0080, 0x3f80};
  for (int i = 0; i < 300; ++i) sample.push_back(static_cast<std::uint16_t>(rng()));
  for (std::uint16_t a : sample) {
    for (std::uint16_t b : sample) {
      const f16 ha = f16::from_bits(a), hb = f16::from_bits(b);
      const auto fa = static_cast<float>(ha), fb = static_cast<float>(hb);
      REQUIRE((ha == hb) == (fa == fb));
      REQUIRE((ha != hb) == (fa != fb));
      REQUIRE((ha < hb) == (fa < fb));
      REQUIRE((ha <= hb) == (fa <= fb));
      REQUIRE((ha > hb) == (fa > fb));
      REQUIRE((ha >= hb) == (fa >= fb));
      const bf16 ga = bf16::from_bits(a), gb = bf16::from_bits(b);
      const auto ea = static_cast<float>(ga), eb = static_cast<float>(gb);
      REQUIRE((ga == gb) == (ea == eb));
      REQUIRE((ga < gb) == (ea < eb));
      REQUIRE((ga >= gb) == (ea >= eb));
      REQUIRE(((ga <=> gb) == std::partial_ordering::unordered) ==
              (std::isnan(ea) || std::isnan(eb)));
    }
  }
}
