#include "catch_shim.hpp"
// Casts: the scalar reference against edge tables and independent oracles, and every
// cast_contiguous path (scalar loop, AVX2, AVX-512) against the reference, for all 13 x 13 pairs.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <random>
#include <strided/detail/cast.hpp>
#include <strided/tensor.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

namespace {

using strided::bf16;
using strided::f16;
using strided::detail::cast_contiguous;
using strided::detail::cast_value;
using strided::detail::Isa;
using strided::detail::ScopedIsa;

using AllTypes =
    std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
               std::uint16_t, std::uint32_t, std::uint64_t, float, double, f16, bf16>;

template <class F>
void for_each_type(F&& f) {
  std::apply([&](auto... t) { (f(t), ...); }, AllTypes{});
}

/// A plain array (std::vector<bool> has no data()).
template <class T>
class Array {
 public:
  explicit Array(std::size_t n = 0) : p_(std::make_unique<T[]>(n)), n_(n) {}
  T* data() noexcept { return p_.get(); }
  const T* data() const noexcept { return p_.get(); }
  std::size_t size() const noexcept { return n_; }
  T& operator[](std::size_t i) noexcept { return p_[i]; }
  const T& operator[](std::size_t i) const noexcept { return p_[i]; }

 private:
  std::unique_ptr<T[]> p_;
  std::size_t n_;
};

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

template <class T>
std::string bits_hex(T v) {
  unsigned char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  std::string s = "0x";
  static const char* digits = "0123456789abcdef";
  for (std::size_t i = sizeof(T); i-- > 0;) {
    s += digits[b[i] >> 4];
    s += digits[b[i] & 15];
  }
  return s;
}

// ---- constexpr ------------------------------------------------------------------------------
static_assert(cast_value<float, std::int8_t>(300.0f) == 127);
static_assert(cast_value<float, std::uint8_t>(-3.0f) == 0);
static_assert(cast_value<double, std::int32_t>(std::numeric_limits<double>::quiet_NaN()) == 0);
static_assert(cast_value<std::int32_t, std::int8_t>(300) == 44);
static_assert(cast_value<std::uint64_t, f16>(65519).bits() == 0x7bff);
static_assert(cast_value<std::uint64_t, f16>(65520).bits() == 0x7c00);
static_assert(cast_value<bool, bf16>(true).bits() == 0x3f80);
static_assert(cast_value<f16, bool>(f16::from_bits(0x8000)) == false);
static_assert(cast_value<f16, bool>(f16::from_bits(0x7e00)) == true);
static_assert(cast_value<f16, bf16>(f16::from_bits(0x3c00)).bits() == 0x3f80);
static_assert(strided::detail::is_castable_v<f16, std::uint64_t>);

// ---- sample values for every type -----------------------------------------------------------
template <class T>
Array<T> samples(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  // std::vector<T> except for bool, whose vector has no contiguous storage.
  std::vector<std::conditional_t<std::is_same_v<T, bool>, unsigned char, T>> out;
  if constexpr (std::is_same_v<T, bool>) {
    for (std::size_t i = 0; i < n; ++i) out.push_back((rng() & 1) != 0);
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    for (T v : {T(0), T(1), L::min(), L::max(), T(L::min() + 1), T(L::max() - 1)}) out.push_back(v);
    for (std::size_t i = out.size(); i < n; ++i) {
      // Mix full-range values with small ones, which stress int → narrow float rounding less.
      const std::uint64_t r = rng();
      out.push_back(static_cast<T>((i % 3 == 0) ? (r >> (r % 64)) : r));
    }
  } else {
    // Random bit patterns (NaNs with payloads, subnormals, infs) plus values near integer
    // boundaries, plus the usual suspects.
    using Bits =
        std::conditional_t<sizeof(T) == 2, std::uint16_t,
                           std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;
    const double specials[] = {0.0,      -0.0,      0.5,     -0.5,    1.0,     -1.0,     1.5,
                               -1.5,     127.0,     127.99,  128.0,   -128.0,  -128.99,  -129.0,
                               255.0,    255.5,     256.0,   32767.5, 32768.0, -32769.0, 65535.0,
                               65536.0,  65504.0,   65520.0, 0x1p31,  -0x1p31, 0x1p32,   0x1p63,
                               -0x1p63,  0x1p64,    1e30,    -1e30,   0x1p-24, 0x1p-25,  0x1p-149,
                               0x1p-133, 0x1p-1074, 1e300};
    for (double d : specials) out.push_back(cast_value<double, T>(d));
    for (double d :
         {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
          std::numeric_limits<double>::quiet_NaN()})
      out.push_back(cast_value<double, T>(d));
    for (std::size_t i = out.size(); i < n; ++i) {
      if (i % 2 == 0) {
        out.push_back(std::bit_cast<T>(static_cast<Bits>(rng())));
      } else {
        // Integers and half-integers of all magnitudes up to 2^70.
        const double d =
            std::ldexp(static_cast<double>(rng() >> 11), static_cast<int>(rng() % 71) - 53);
        out.push_back(cast_value<double, T>(std::round(d * 2) / 2 * ((rng() & 1) ? 1 : -1)));
      }
    }
  }
  Array<T> a(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) a[i] = static_cast<T>(out[i]);
  return a;
}

/// cast_contiguous on every ISA level and at several lengths and alignments equals cast_value.
template <class From, class To>
void check_pair_paths(const Array<From>& src) {
  Array<To> want(src.size());
  for (std::size_t i = 0; i < src.size(); ++i) want[i] = cast_value<From, To>(src[i]);
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    ScopedIsa isa(static_cast<Isa>(level));
    for (std::size_t offset : {std::size_t{0}, std::size_t{1}, std::size_t{3}}) {
      for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{33},
                            std::size_t{100}, src.size() - offset}) {
        Array<To> got(n + 1 + offset);
        cast_contiguous<From, To>(src.data() + offset, got.data() + offset, n);
        for (std::size_t i = 0; i < n; ++i) {
          if (!same_bits(got[offset + i], want[offset + i])) {
            FAIL_CHECK(strided::element_traits<From>::name
                       << " -> " << strided::element_traits<To>::name << " isa " << level << " n "
                       << n << " at " << i << ": in " << bits_hex(src[offset + i]) << " got "
                       << bits_hex(got[offset + i]) << " want " << bits_hex(want[offset + i]));
            return;
          }
        }
      }
    }
  }
}

// ---- independent oracle for integer → float rounding -------------------------------------------
// x86 long double holds every 64-bit integer exactly, and every f16/bf16/f32/f64 value, so the
// nearest of a few candidates can be found by exact subtraction.
template <class H>
H nearest_of(long double x, H guess) {
  auto value = [](H h) { return static_cast<long double>(cast_value<H, double>(h)); };
  H best = guess;
  for (int delta = -2; delta <= 2; ++delta) {
    const auto bits = static_cast<std::uint16_t>(guess.bits() + delta);
    const H c = H::from_bits(bits);
    const long double v = value(c);
    if (std::isnan(v)) continue;
    const long double e = std::fabs(x - v), eb = std::fabs(x - value(best));
    if (e < eb || (e == eb && (bits & 1) == 0 && !std::isinf(v))) best = c;
  }
  return best;
}

}  // namespace

TEST_CASE("float to integer truncates, saturates, NaN -> 0", "[cast]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto check_type = [&](auto int_tag) {
    using I = decltype(int_tag);
    using L = std::numeric_limits<I>;
    const double lo = static_cast<double>(L::min());
    const double hi_excl = std::ldexp(1.0, L::digits);
    struct Row {
      double in;
      I want;
    };
    const Row rows[] = {
        {nan, I(0)},
        {-nan, I(0)},
        {inf, L::max()},
        {-inf, L::min()},
        {0.0, I(0)},
        {-0.0, I(0)},
        {0.9, I(0)},
        {-0.9, I(0)},
        {1.9, I(1)},
        {hi_excl, L::max()},
        {hi_excl * 4, L::max()},
        {lo - 1e30, L::min()},
        {lo, L::min()},
        {1e300, L::max()},
        {-1e300, L::min()},
    };
    auto run = [&](auto float_tag) {
      using F = decltype(float_tag);
      for (const Row& r : rows) {
        const F f = cast_value<double, F>(r.in);
        INFO(strided::element_traits<F>::name << " " << r.in << " -> "
                                              << strided::element_traits<I>::name);
        CHECK(cast_value<F, I>(f) == r.want);
      }
      // Just below and at the limits, where the float type can represent them.
      if constexpr (std::is_signed_v<I>) {
        CHECK(cast_value<F, I>(cast_value<double, F>(-1.9)) == I(-1));
      }
    };
    run(float{});
    run(double{});
    run(f16{});
    run(bf16{});
    // Largest float below the upper bound converts exactly.
    const double below = std::nextafter(hi_excl, 0.0);
    if (below <= static_cast<double>(L::max()))
      CHECK(cast_value<double, I>(below) == static_cast<I>(below));
    const float belowf = std::nextafter(static_cast<float>(hi_excl), 0.0f);
    CHECK(cast_value<float, I>(belowf) == static_cast<I>(belowf));
  };
  check_type(std::int8_t{});
  check_type(std::int16_t{});
  check_type(std::int32_t{});
  check_type(std::int64_t{});
  check_type(std::uint8_t{});
  check_type(std::uint16_t{});
  check_type(std::uint32_t{});
  check_type(std::uint64_t{});
  // Exact boundaries.
  CHECK(cast_value<float, std::int8_t>(127.99f) == 127);
  CHECK(cast_value<float, std::int8_t>(-128.99f) == -128);
  CHECK(cast_value<float, std::uint8_t>(255.9f) == 255);
  CHECK(cast_value<double, std::int32_t>(2147483647.9) == 2147483647);
  CHECK(cast_value<double, std::int32_t>(-2147483648.9) == -2147483647 - 1);
  CHECK(cast_value<double, std::int64_t>(0x1p63 - 1024) == 0x7ffffffffffffc00LL);
  CHECK(cast_value<double, std::uint64_t>(0x1p64 - 2048) == 0xfffffffffffff800ULL);
  CHECK(cast_value<f16, std::uint16_t>(f16::from_bits(0x7bff)) == 65504);
  CHECK(cast_value<f16, std::int16_t>(f16::from_bits(0x7bff)) == 32767);
  CHECK(cast_value<bf16, std::int64_t>(bf16::from_bits(0xdf00)) ==
        std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("integer to integer is modular", "[cast]") {
  CHECK(cast_value<std::int32_t, std::uint8_t>(-1) == 255);
  CHECK(cast_value<std::uint64_t, std::int8_t>(0x1ff) == -1);
  CHECK(cast_value<std::int64_t, std::uint32_t>(-2) == 0xfffffffeu);
  CHECK(cast_value<std::uint32_t, std::int16_t>(0x18000u) == -32768);
  CHECK(cast_value<std::int8_t, std::uint64_t>(-1) == ~0ull);
}

TEST_CASE("64-bit integers round once to every float type", "[cast]") {
  // Double rounding through float would get these wrong.
  // 2^30 + 2^22 + 1: above the bf16 tie; through f32 it becomes the tie itself, then even (down).
  CHECK(cast_value<std::int32_t, bf16>((1 << 30) + (1 << 22) + 1).bits() == 0x4e81);
  CHECK(cast_value<std::int64_t, f16>(2049 + 0).bits() == 0x6800);  // tie → even (2048)
  CHECK(cast_value<std::int64_t, f16>(2051).bits() == 0x6802);      // tie → even (2052)
  // u64: 2^63 + 2^39 + 1 rounds up in f32 (ulp 2^40: 2^39 is the tie, +1 above).
  CHECK(cast_value<std::uint64_t, float>((1ull << 63) + (1ull << 39) + 1) == 0x1.000002p63f);
  CHECK(cast_value<std::uint64_t, float>((1ull << 63) + (1ull << 39)) == 0x1p63f);  // tie → even
  CHECK(cast_value<std::uint64_t, double>(~0ull) == 0x1p64);
  CHECK(cast_value<std::int64_t, double>(std::numeric_limits<std::int64_t>::min()) == -0x1p63);
  CHECK(cast_value<std::uint64_t, bf16>(~0ull).bits() == 0x5f80);  // 2^64
  CHECK(cast_value<std::uint64_t, f16>(~0ull).bits() == 0x7c00);   // overflow → inf
  CHECK(cast_value<std::int64_t, f16>(-65520).bits() == 0xfc00);
  CHECK(cast_value<std::int64_t, f16>(-65519).bits() == 0xfbff);

  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const std::uint64_t u = rng() >> (rng() % 64);
    const auto s = static_cast<std::int64_t>(rng()) >> (rng() % 64);
    // f32 / f64: the hardware's conversions (independent of the reference code).
    REQUIRE(same_bits(cast_value<std::uint64_t, float>(u), static_cast<float>(u)));
    REQUIRE(same_bits(cast_value<std::uint64_t, double>(u), static_cast<double>(u)));
    REQUIRE(same_bits(cast_value<std::int64_t, float>(s), static_cast<float>(s)));
    REQUIRE(same_bits(cast_value<std::int64_t, double>(s), static_cast<double>(s)));
    // bf16 / f16: the nearest candidate by exact long double arithmetic.
    const auto lu = static_cast<long double>(u), ls = static_cast<long double>(s);
    const bf16 bu = cast_value<std::uint64_t, bf16>(u), bs = cast_value<std::int64_t, bf16>(s);
    REQUIRE(nearest_of(lu, bu).bits() == bu.bits());
    REQUIRE(nearest_of(ls, bs).bits() == bs.bits());
    const f16 hu = cast_value<std::uint64_t, f16>(u), hs = cast_value<std::int64_t, f16>(s);
    if (u < 65520)
      REQUIRE(nearest_of(lu, hu).bits() == hu.bits());
    else
      REQUIRE(hu.bits() == 0x7c00);
    if (s > -65520 && s < 65520)
      REQUIRE(nearest_of(ls, hs).bits() == hs.bits());
    else
      REQUIRE((hs.bits() & 0x7fff) == 0x7c00);
  }
}

TEST_CASE("bool both ways", "[cast]") {
  for_each_type([](auto tag) {
    using T = decltype(tag);
    INFO(strided::element_traits<T>::name);
    CHECK(same_bits(cast_value<bool, T>(true), strided::element_traits<T>::one()));
    CHECK(same_bits(cast_value<bool, T>(false), strided::element_traits<T>::zero()));
    CHECK(cast_value<T, bool>(strided::element_traits<T>::one()) == true);
    CHECK(cast_value<T, bool>(strided::element_traits<T>::zero()) == false);
  });
  CHECK(cast_value<float, bool>(-0.0f) == false);
  CHECK(cast_value<double, bool>(std::numeric_limits<double>::quiet_NaN()) == true);
  CHECK(cast_value<float, bool>(0x1p-149f) == true);
  CHECK(cast_value<bf16, bool>(bf16::from_bits(0x8000)) == false);
  CHECK(cast_value<bf16, bool>(bf16::from_bits(0x0001)) == true);
  CHECK(cast_value<f16, bool>(f16::from_bits(0xfe00)) == true);
  CHECK(cast_value<std::int64_t, bool>(std::numeric_limits<std::int64_t>::min()) == true);
  CHECK(cast_value<std::uint8_t, bool>(0) == false);
}

TEST_CASE("float to float: NaNs are quieted with sign and payload kept", "[cast]") {
  const auto snan32 = std::bit_cast<float>(0xff812345u);
  CHECK(std::bit_cast<std::uint64_t>(cast_value<float, double>(snan32)) == 0xfff82468a0000000ull);
  const auto snan64 = std::bit_cast<double>(0x7ff0000123456789ull);
  CHECK(std::bit_cast<std::uint32_t>(cast_value<double, float>(snan64)) == 0x7fc00009u);
  const auto nan64 = std::bit_cast<double>(0x7ff4567800000000ull);
  CHECK(std::bit_cast<std::uint32_t>(cast_value<double, float>(nan64)) == 0x7fe2b3c0u);
  CHECK(cast_value<f16, bf16>(f16::from_bits(0x7d23)).bits() == 0x7fe4);
  CHECK(cast_value<bf16, f16>(bf16::from_bits(0xff81)).bits() == 0xfe08);
  CHECK(std::bit_cast<std::uint32_t>(cast_value<bf16, float>(bf16::from_bits(0x7f81))) ==
        0x7fc10000u);
  // f64 → f32: subnormal results are kept, overflow is inf, ties to even.
  CHECK(cast_value<double, float>(0x1p-149) == 0x1p-149f);
  CHECK(cast_value<double, float>(0x1p-150) == 0.0f);
  CHECK(cast_value<double, float>(0x1.8p-150) == 0x1p-149f);
  CHECK(std::isinf(cast_value<double, float>(0x1.ffffffp127)));
  CHECK(cast_value<double, float>(0x1.fffffefffffffp127) == std::numeric_limits<float>::max());
}

TEST_CASE("cast_contiguous equals cast_value for all 13 x 13 pairs on every ISA", "[cast]") {
  for_each_type([](auto from_tag) {
    using From = decltype(from_tag);
    const Array<From> src = samples<From>(4000, 11);
    for_each_type([&](auto to_tag) {
      using To = decltype(to_tag);
      check_pair_paths<From, To>(src);
    });
  });
}

TEST_CASE("large casts take the streaming path and stay exact", "[cast]") {
  // Outputs of at least the streaming threshold use non-temporal stores after an unaligned head;
  // check head, body and tail (the threshold lowered to 1 MiB, as the copy tests do).
  const std::size_t threshold = std::size_t{1} << 20;
  const strided::detail::copy_impl::ScopedStreamThreshold streaming(threshold);
  auto run = [&](auto from_tag, auto to_tag) {
    using From = decltype(from_tag);
    using To = decltype(to_tag);
    const std::size_t n = threshold / sizeof(To) + 77;
    const Array<From> pool = samples<From>(5003, 5);
    std::vector<From> src(n);
    for (std::size_t i = 0; i < n; ++i) src[i] = pool[(i * 7919) % pool.size()];
    std::vector<To> want(n);
    for (std::size_t i = 0; i < n; ++i) want[i] = cast_value<From, To>(src[i]);
    for (int level = 1; level < strided::detail::available_isa_count(); ++level) {
      ScopedIsa isa(static_cast<Isa>(level));
      std::vector<To> got(n + 1);
      cast_contiguous<From, To>(src.data(), got.data() + 1, n);  // misaligned destination
      REQUIRE(std::memcmp(got.data() + 1, want.data(), n * sizeof(To)) == 0);
    }
  };
  run(float{}, f16{});
  run(float{}, bf16{});
  run(f16{}, float{});
  run(bf16{}, float{});
  run(float{}, double{});
  run(double{}, float{});
  run(float{}, std::int8_t{});
  run(float{}, std::uint8_t{});
  run(float{}, std::int32_t{});
  run(std::int8_t{}, float{});
  run(std::uint8_t{}, float{});
  run(std::int32_t{}, float{});
}

TEST_CASE("a short chunk of a streamed cast writes only its own elements", "[cast]") {
  // The parallel layer passes each chunk the size of the whole cast, so a last chunk of a few
  // elements takes the streaming path; its unaligned head must stop at the chunk's end.
  const auto check = [](auto from_tag, auto to_tag) {
    using From = decltype(from_tag);
    using To = decltype(to_tag);
    const Array<From> src = samples<From>(64, 3);
    const std::size_t whole_n = strided::detail::copy_impl::stream_threshold();
    for (int level = 1; level < strided::detail::available_isa_count(); ++level) {
      ScopedIsa isa(static_cast<Isa>(level));
      for (std::size_t n = 1; n < 40; ++n) {
        std::vector<To> got(48, cast_value<From, To>(src[63]));  // sentinel: not src[0..39]
        cast_contiguous<From, To>(src.data(), got.data() + 1, n, whole_n);
        for (std::size_t i = 0; i < got.size(); ++i) {
          const To want = i >= 1 && i <= n ? cast_value<From, To>(src[i - 1]) : got[0];
          REQUIRE(std::memcmp(&got[i], &want, sizeof(To)) == 0);
        }
      }
    }
  };
  check(float{}, f16{});
  check(f16{}, float{});
  check(float{}, std::int8_t{});
  check(std::uint8_t{}, float{});
  check(double{}, float{});
  check(float{}, double{});
}

// ---- user element types ---------------------------------------------------------------------
namespace {
/// Fixed point with 8 fraction bits: a user type that opts into casts through f32.
struct Q8 {
  std::int16_t raw;
};
/// A user type without to_f32/from_f32: not castable (except to itself).
struct Opaque {
  int v;
};
}  // namespace

template <>
struct strided::element_traits<Q8> {
  static constexpr std::string_view name = "q8";
  static constexpr Q8 zero() noexcept { return Q8{0}; }
  static constexpr Q8 one() noexcept { return Q8{256}; }
  static float to_f32(Q8 q) { return static_cast<float>(q.raw) / 256.0f; }
  static Q8 from_f32(float f) {
    return Q8{strided::detail::cast_value<float, std::int16_t>(f * 256.0f)};
  }
};
template <>
struct strided::element_traits<Opaque> {
  static constexpr std::string_view name = "opaque";
  static constexpr Opaque zero() noexcept { return Opaque{0}; }
  static constexpr Opaque one() noexcept { return Opaque{1}; }
};

template <class T>
concept HasToF32 = requires(const strided::Tensor<T>& t) {
  t.to_f32();
};

TEST_CASE("user element types cast through f32", "[cast]") {
  using strided::detail::is_castable_v;
  static_assert(is_castable_v<Q8, float> && is_castable_v<std::int64_t, Q8> &&
                is_castable_v<Q8, Q8>);
  static_assert(is_castable_v<Q8, bf16> && is_castable_v<f16, Q8>);
  static_assert(!is_castable_v<Opaque, float> && !is_castable_v<float, Opaque>);
  static_assert(!is_castable_v<Opaque, Q8> && is_castable_v<Opaque, Opaque>);
  static_assert(!is_castable_v<int*, float>);
  // The public concept Tensor::cast is constrained by says the same, pair by pair.
  using strided::CastableTo;
  static_assert(CastableTo<Q8, float> && CastableTo<std::int64_t, Q8> && CastableTo<Q8, Q8>);
  static_assert(CastableTo<Q8, bf16> && CastableTo<f16, Q8> && CastableTo<bool, f16>);
  static_assert(!CastableTo<Opaque, float> && !CastableTo<float, Opaque>);
  static_assert(!CastableTo<Opaque, Q8> && CastableTo<Opaque, Opaque>);
  static_assert(!CastableTo<int*, float>);
  static_assert(HasToF32<Q8> && !HasToF32<Opaque>);
  CHECK(strided::element_traits<Q8>::name == "q8");
  CHECK(strided::element_traits<Opaque>::name == "opaque");
  CHECK(cast_value<Q8, float>(Q8{384}) == 1.5f);
  CHECK(cast_value<Q8, std::int32_t>(Q8{-384}) == -1);
  CHECK(cast_value<Q8, f16>(Q8{384}).bits() == 0x3e00);
  CHECK(cast_value<double, Q8>(2.25).raw == 576);
  CHECK(cast_value<bf16, Q8>(bf16::from_bits(0xbf80)).raw == -256);
  CHECK(cast_value<bool, Q8>(true).raw == 256);
  CHECK(cast_value<Q8, bool>(Q8{1}) == true);
  CHECK(cast_value<float, Q8>(std::numeric_limits<float>::quiet_NaN()).raw == 0);
  const std::vector<Q8> src = {Q8{1}, Q8{-512}, Q8{32767}};
  std::vector<double> dst(3);
  cast_contiguous<Q8, double>(src.data(), dst.data(), 3);
  CHECK(dst == std::vector<double>{1.0 / 256, -2.0, 32767.0 / 256});
  std::vector<Opaque> o = {Opaque{4}}, p(1);
  cast_contiguous<Opaque, Opaque>(o.data(), p.data(), 1);
  CHECK(p[0].v == 4);
}

// ---- agreement with NumPy (f16) and PyTorch (bf16), from tests/gen_cast_data.py --------------
namespace {

std::vector<unsigned char> read_data(const std::string& name) {
  std::ifstream in(std::string(STRIDED_TEST_DATA_DIR) + "/" + name, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(in), {});
}

std::uint64_t read_le(const unsigned char* p, int bytes) {
  std::uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/// Bulk-casts `in` on every ISA level and counts the elements whose bits differ from `want`.
template <class From, class To>
std::size_t bulk_mismatches(const std::vector<From>& in, const std::vector<To>& want) {
  std::size_t bad = 0;
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    ScopedIsa isa(static_cast<Isa>(level));
    std::vector<To> got(in.size());
    cast_contiguous<From, To>(in.data(), got.data(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) bad += same_bits(got[i], want[i]) ? 0 : 1;
  }
  return bad;
}

}  // namespace

TEST_CASE("f32 -> f16 agrees with NumPy and f32 -> bf16 with PyTorch", "[cast][peers]") {
  const auto data = read_data("cast_f32.bin");
  REQUIRE(data.size() % 8 == 0);
  REQUIRE(data.size() / 8 > 90000);
  std::vector<float> in;
  std::vector<f16> numpy;
  std::vector<bf16> torch;
  for (std::size_t at = 0; at < data.size(); at += 8) {
    in.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(read_le(&data[at], 4))));
    numpy.push_back(f16::from_bits(static_cast<std::uint16_t>(read_le(&data[at + 4], 2))));
    torch.push_back(bf16::from_bits(static_cast<std::uint16_t>(read_le(&data[at + 6], 2))));
  }
  std::size_t f16_bad = 0, bf16_bad = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    f16_bad += cast_value<float, f16>(in[i]).bits() == numpy[i].bits() ? 0 : 1;
    bf16_bad += cast_value<float, bf16>(in[i]).bits() == torch[i].bits() ? 0 : 1;
  }
  CHECK(f16_bad == 0);
  CHECK(bf16_bad == 0);
  CHECK(bulk_mismatches(in, numpy) == 0);
  CHECK(bulk_mismatches(in, torch) == 0);
}

TEST_CASE("f64 -> f16 agrees with NumPy (one rounding)", "[cast][peers]") {
  const auto data = read_data("cast_f64_f16.bin");
  REQUIRE(data.size() % 10 == 0);
  REQUIRE(data.size() / 10 > 40000);
  std::size_t bad = 0;
  for (std::size_t at = 0; at < data.size(); at += 10) {
    const auto d = std::bit_cast<double>(read_le(&data[at], 8));
    const auto want = static_cast<std::uint16_t>(read_le(&data[at + 8], 2));
    bad += cast_value<double, f16>(d).bits() == want ? 0 : 1;
  }
  CHECK(bad == 0);
}

TEST_CASE("f16 -> f32 agrees with NumPy and bf16 -> f32 with PyTorch", "[cast][peers]") {
  const auto data = read_data("cast_16_f32.bin");
  REQUIRE(data.size() % 10 == 0);
  REQUIRE(data.size() / 10 > 60000);
  std::vector<f16> h;
  std::vector<bf16> b;
  std::vector<float> numpy, torch;
  for (std::size_t at = 0; at < data.size(); at += 10) {
    const auto bits = static_cast<std::uint16_t>(read_le(&data[at], 2));
    h.push_back(f16::from_bits(bits));
    b.push_back(bf16::from_bits(bits));
    numpy.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(read_le(&data[at + 2], 4))));
    torch.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(read_le(&data[at + 6], 4))));
  }
  CHECK(bulk_mismatches(h, numpy) == 0);
  CHECK(bulk_mismatches(b, torch) == 0);
}

// ---- Tensor<T>::cast<U>() on views ----------------------------------------------------------
namespace {

/// cast<U>() of `view` must equal casting its contiguous() copy element by element, on every ISA.
template <class T, class U>
void check_view_cast(const strided::Tensor<T>& view, const char* what) {
  const std::vector<T> dense = view.contiguous().to_vector();
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    ScopedIsa isa(static_cast<Isa>(level));
    auto cast = view.template cast<U>();
    REQUIRE(cast.has_value());
    CHECK(cast->shape() == view.shape());
    CHECK(cast->is_contiguous());
    const std::vector<U> got = cast->to_vector();
    REQUIRE(got.size() == dense.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < dense.size(); ++i) {
      const U want = cast_value<T, U>(dense[i]);
      const U have = got[i];
      bad += same_bits(have, want) ? 0 : 1;
    }
    INFO(what << ": " << strided::element_traits<T>::name << " -> "
              << strided::element_traits<U>::name << " on isa " << level);
    CHECK(bad == 0);
  }
}

template <class T>
void check_views_of(const strided::Tensor<T>& base) {
  // base: shape [4, 6, 40]; 40 > one SIMD block, so kernels see full blocks and tails.
  const auto transposed = base.transpose(0, 2).value();
  const auto narrowed = base.narrow(2, 3, 29).value();
  const auto flipped = base.flip(2).value();                              // negative stride
  const auto row = base.narrow(0, 1, 1).value().narrow(1, 2, 1).value();  // [1, 1, 40]
  const auto broadcast = row.broadcast_to({3, 5, 40}).value();            // zero strides
  std::apply(
      [&](auto... to) {
        ((check_view_cast<T, decltype(to)>(transposed, "transpose"),
          check_view_cast<T, decltype(to)>(narrowed, "narrow"),
          check_view_cast<T, decltype(to)>(flipped, "flip"),
          check_view_cast<T, decltype(to)>(broadcast, "broadcast"),
          check_view_cast<T, decltype(to)>(base, "contiguous")),
         ...);
      },
      std::tuple<bool, std::int8_t, std::uint8_t, std::int32_t, std::uint64_t, float, double, f16,
                 bf16>{});
}

}  // namespace

TEST_CASE("cast<U>() of transposed, narrowed, flipped and broadcast views", "[cast][tensor]") {
  const Array<float> f = samples<float>(4 * 6 * 40, 21);
  check_views_of(strided::Tensor<float>::from_vector(
                     std::vector<float>(f.data(), f.data() + f.size()), {4, 6, 40})
                     .value());
  const Array<f16> h = samples<f16>(4 * 6 * 40, 22);
  check_views_of(
      strided::Tensor<f16>::from_vector(std::vector<f16>(h.data(), h.data() + h.size()), {4, 6, 40})
          .value());
  const Array<std::int32_t> i = samples<std::int32_t>(4 * 6 * 40, 23);
  check_views_of(strided::Tensor<std::int32_t>::from_vector(
                     std::vector<std::int32_t>(i.data(), i.data() + i.size()), {4, 6, 40})
                     .value());
}

TEST_CASE("to_f32() of a transposed bf16 view", "[cast][tensor]") {
  const Array<bf16> b = samples<bf16>(240, 31);
  const auto t =
      strided::Tensor<bf16>::from_vector(std::vector<bf16>(b.data(), b.data() + b.size()), {4, 60})
          .value()
          .transpose(0, 1)
          .value();
  const auto f = t.to_f32().value();
  const std::vector<bf16> dense = t.contiguous().to_vector();
  const std::vector<float> got = f.to_vector();
  REQUIRE(got.size() == 240);
  for (std::size_t k = 0; k < 240; ++k) CHECK(same_bits(got[k], cast_value<bf16, float>(dense[k])));
}
