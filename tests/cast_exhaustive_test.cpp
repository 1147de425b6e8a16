#include "catch_shim.hpp"
// Exhaustive cast tests: every f32 bit pattern, and every 16-bit pattern, through the fast paths
// of every ISA level this machine has, against the scalar reference (detail::cast_value).
//
// The f16 reference is thereby checked against the hardware's vcvtps2ph (the AVX2 and AVX-512
// paths), and the bf16 reference against AVX-512-BF16's vcvtne2ps2bf16 where present. The f32
// sweeps call each level's kernel directly (the reference is computed once per chunk for all of
// them); the 16-bit sweeps go through cast_contiguous under ScopedIsa. Runs on two threads; build
// it with optimisation (-O2): at -O0 it takes far longer.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <memory>
#include <strided/detail/cast.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace {

using strided::bf16;
using strided::f16;
using strided::detail::cast_contiguous;
using strided::detail::cast_value;
using strided::detail::Isa;
using strided::detail::ScopedIsa;

constexpr std::uint64_t no_mismatch = std::numeric_limits<std::uint64_t>::max();

/// Runs `fn(first, count, scratch)` over [0, total) in chunks on two threads; each thread makes
/// one `Scratch` and reuses it (fresh buffers per chunk would cost millions of page faults).
/// With `stride` > chunk, only the chunk at the start of every stride is run (a sample).
template <class Scratch, class Fn>
void parallel_chunks(std::uint64_t total, std::uint64_t chunk, Fn fn, std::uint64_t stride = 0) {
  std::atomic<std::uint64_t> next{0};
  auto worker = [&] {
    Scratch scratch(static_cast<std::size_t>(chunk));
    for (;;) {
      const std::uint64_t first = next.fetch_add(stride > chunk ? stride : chunk);
      if (first >= total) return;
      fn(first, std::min(chunk, total - first), scratch);
    }
  };
  std::thread other(worker);
  worker();
  other.join();
}

void record_min(std::atomic<std::uint64_t>& slot, std::uint64_t value) {
  std::uint64_t seen = slot.load();
  while (value < seen && !slot.compare_exchange_weak(seen, value)) {
  }
}

/// One way of converting a contiguous run of f32 (one ISA level's kernel).
template <class To>
struct Path {
  std::string name;
  void (*run)(const float*, To*, std::size_t);
};

/// Every fast path for f32 → To on this machine. The scalar loop is listed only where it differs
/// from the reference (hardware conversions); elsewhere it IS cast_value.
template <class To>
std::vector<Path<To>> f32_paths() {
  std::vector<Path<To>> paths;
  if constexpr (strided::detail::cast_impl::hardware_exact_v<float, To>) {
    paths.push_back({"scalar", strided::detail::cast_impl::scalar_loop<float, To>});
  }
#if STRIDED_X86
  const Isa level = strided::detail::cpu_features().level;
  if constexpr (requires(const float* s, To* d) { strided::detail::cast_avx2::run(s, d, 1); }) {
    if (level >= Isa::avx2) {
      paths.push_back({"avx2", [](const float* s, To* d, std::size_t n) {
                         strided::detail::cast_avx2::run(s, d, n);
                       }});
    }
    if (level >= Isa::avx512) {
      paths.push_back({"avx512", [](const float* s, To* d, std::size_t n) {
                         strided::detail::cast_avx512::run(s, d, n);
                       }});
    }
  }
  if constexpr (std::is_same_v<To, bf16>) {
    // With AVX-512-BF16 the avx512 path uses vcvtne2ps2bf16; also check the integer-rounding
    // AVX-512 kernel that AVX-512 CPUs without BF16 run.
    if (level >= Isa::avx512 && strided::detail::cpu_features().avx512_bf16) {
      paths.push_back({"avx512 integer", [](const float* s, bf16* d, std::size_t n) {
                         using strided::detail::cast_avx512::F32ToBf16;
                         strided::detail::cast_avx512::drive<F32ToBf16>(s, d, n);
                       }});
    }
  }
#endif
#if STRIDED_NEON
  if constexpr (requires(const float* s, To* d) { strided::detail::cast_neon::run(s, d, 1); }) {
    if (strided::detail::cpu_features().level >= Isa::neon) {
      paths.push_back({"neon", [](const float* s, To* d, std::size_t n) {
                         strided::detail::cast_neon::run(s, d, n);
                       }});
    }
  }
#endif
  return paths;
}

/// STRIDED_EXHAUSTIVE_SAMPLE=k sweeps one 2^16-pattern chunk in every k (all 2^16 low bits of
/// every k-th value of the top 16 bits) instead of all 2^32 patterns: for emulators, where the
/// full sweep takes hours. Each chunk still holds every rounding case of f16 and bf16.
std::uint64_t f32_sample_every() {
  const char* env = std::getenv("STRIDED_EXHAUSTIVE_SAMPLE");
  const long k = env == nullptr ? 1 : std::atol(env);
  return k > 1 ? static_cast<std::uint64_t>(k) : 1;
}

/// Every f32 bit pattern through every path of f32_paths<To>(), compared with cast_value (computed
/// once per chunk). Two threads; chunks of 2^16.
template <class To>
void check_all_f32() {
  const std::vector<Path<To>> paths = f32_paths<To>();
  std::vector<std::atomic<std::uint64_t>> bad(paths.size());
  for (auto& b : bad) b = no_mismatch;
  const auto start = std::chrono::steady_clock::now();
  constexpr std::uint64_t chunk = std::uint64_t{1} << 16;  // 512 KiB of buffers: stays in L2
  struct Scratch {
    explicit Scratch(std::size_t n) : src(new float[n]), want(new To[n]), got(new To[n]) {}
    std::unique_ptr<float[]> src;
    std::unique_ptr<To[]> want, got;
  };
  const std::uint64_t every = f32_sample_every();
  const std::uint64_t swept = ((std::uint64_t{1} << 16) + every - 1) / every * chunk;
  parallel_chunks<Scratch>(
      std::uint64_t{1} << 32, chunk,
      [&](std::uint64_t first, std::uint64_t count, Scratch& b) {
        const auto n = static_cast<std::size_t>(count);
        float* const src = b.src.get();
        To* const want = b.want.get();
        To* const got = b.got.get();
        for (std::size_t i = 0; i < n; ++i) {
          src[i] = std::bit_cast<float>(static_cast<std::uint32_t>(first + i));
          want[i] = cast_value<float, To>(src[i]);
        }
        for (std::size_t p = 0; p < paths.size(); ++p) {
          paths[p].run(src, got, n);
          if (std::memcmp(static_cast<const void*>(got), want, n * sizeof(To)) == 0) continue;
          for (std::size_t i = 0; i < n; ++i) {
            if (std::memcmp(static_cast<const void*>(&got[i]), &want[i], sizeof(To)) != 0) {
              record_min(bad[p], first + i);
              break;
            }
          }
        }
      },
      chunk * every);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::cout << "f32 -> " << strided::element_traits<To>::name << ": "
            << (every == 1 ? std::string("all 2^32 patterns")
                           : std::to_string(swept) + " patterns (one 2^16 chunk in " +
                                 std::to_string(every) + ", STRIDED_EXHAUSTIVE_SAMPLE)")
            << ", paths:";
  for (const Path<To>& p : paths) std::cout << ' ' << p.name;
  std::cout << ", " << took.count() << " s" << std::endl;
  for (std::size_t p = 0; p < paths.size(); ++p) {
    INFO("f32 -> " << strided::element_traits<To>::name << " on " << paths[p].name
                   << ", first bad pattern 0x" << std::hex << bad[p].load());
    CHECK(bad[p].load() == no_mismatch);
  }
}

/// Every pattern of a 16-bit type into `To` on every ISA, and f32 results back again.
template <class From, class To>
void check_all_16bit_on_every_isa() {
  constexpr std::size_t n = 1 << 16;
  const auto src = std::make_unique<From[]>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto bits = static_cast<std::uint16_t>(i);
    std::memcpy(static_cast<void*>(&src[i]), &bits, 2);
  }
  const auto want = std::make_unique<To[]>(n);
  for (std::size_t i = 0; i < n; ++i) want[i] = cast_value<From, To>(src[i]);
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    ScopedIsa isa(static_cast<Isa>(level));
    const auto got = std::make_unique<To[]>(n);
    cast_contiguous<From, To>(src.get(), got.get(), n);
    std::size_t first_bad = n;
    for (std::size_t i = 0; i < n && first_bad == n; ++i)
      if (std::memcmp(&got[i], &want[i], sizeof(To)) != 0) first_bad = i;
    INFO(strided::element_traits<From>::name << " -> " << strided::element_traits<To>::name
                                             << " on isa " << level << ", first bad input 0x"
                                             << std::hex << first_bad);
    CHECK(first_bad == n);
  }
}

template <class From>
void check_16bit_to_every_type() {
  std::apply([](auto... to) { (check_all_16bit_on_every_isa<From, decltype(to)>(), ...); },
             std::tuple<bool, std::int8_t, std::int16_t, std::int32_t, std::int64_t, std::uint8_t,
                        std::uint16_t, std::uint32_t, std::uint64_t, float, double, f16, bf16>{});
}

/// f16/bf16 → f32 → f16/bf16 is the identity except that NaNs come back quiet.
template <class H>
void check_round_trip(std::uint16_t quiet_bit) {
  constexpr std::size_t n = 1 << 16;
  const auto src = std::make_unique<H[]>(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = H::from_bits(static_cast<std::uint16_t>(i));
  const std::uint16_t inf = std::numeric_limits<H>::infinity().bits();
  for (int level = 0; level < strided::detail::available_isa_count(); ++level) {
    ScopedIsa isa(static_cast<Isa>(level));
    const auto wide = std::make_unique<float[]>(n);
    const auto back = std::make_unique<H[]>(n);
    cast_contiguous<H, float>(src.get(), wide.get(), n);
    cast_contiguous<float, H>(wide.get(), back.get(), n);
    std::size_t bad = n;
    for (std::size_t i = 0; i < n && bad == n; ++i) {
      const auto bits = static_cast<std::uint16_t>(i);
      const bool nan = (bits & 0x7fff) > inf;
      const auto expect = static_cast<std::uint16_t>(nan ? (bits | quiet_bit) : bits);
      if (back[i].bits() != expect) bad = i;
    }
    INFO(strided::element_traits<H>::name << " round trip on isa " << level << ", first bad 0x"
                                          << std::hex << bad);
    CHECK(bad == n);
  }
}

}  // namespace

TEST_CASE("every f32 pattern to f16 on every ISA", "[cast][exhaustive]") { check_all_f32<f16>(); }

TEST_CASE("every f32 pattern to bf16 on every ISA", "[cast][exhaustive]") { check_all_f32<bf16>(); }

TEST_CASE("every f32 pattern to i8, u8, i32 and f64 on every ISA", "[cast][exhaustive]") {
  check_all_f32<std::int8_t>();
  check_all_f32<std::uint8_t>();
  check_all_f32<std::int32_t>();
  check_all_f32<double>();
}

TEST_CASE("every f16 and bf16 pattern to every type on every ISA", "[cast][exhaustive]") {
  check_16bit_to_every_type<f16>();
  check_16bit_to_every_type<bf16>();
  check_16bit_to_every_type<std::int16_t>();
  check_16bit_to_every_type<std::uint16_t>();
}

TEST_CASE("every f16 and bf16 pattern survives f32 and back", "[cast][exhaustive]") {
  check_round_trip<f16>(0x0200);
  check_round_trip<bf16>(0x0040);
}
