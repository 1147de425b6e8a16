// Cast engine benchmarks (issue 5): detail::cast_contiguous of 16 M contiguous elements into a
// preallocated destination, as a ratio to memcpy of the INPUT bytes measured interleaved in the
// same process (method: docs/performance.md, "How it is measured").
//
//   cast/<from>_<to>/<isa>/<n>   x_memcpy = cast time / memcpy time of n * sizeof(from) bytes
//                                x_memcpy_out = cast time / memcpy time of n * sizeof(to) bytes
// <isa> is the level forced with ScopedIsa (scalar, avx2, avx512: those the CPU has). n is 16 M
// (out of cache: 32-128 MiB moved) and 64 Ki (in L2).
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>

#include "bench_main.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/cast.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/element.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using strided::detail::Isa;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// Preallocated, prefaulted buffers for one case: the cast's source and destination and the two
/// memcpy references (input bytes and output bytes), all through the library's allocator.
template <class From, class To>
struct Buffers {
  explicit Buffers(std::size_t count)
      : n(count),
        src(strided::detail::allocate_buffer<From>(n)),
        dst(strided::detail::allocate_buffer<To>(n)),
        ref_src(strided::detail::allocate_buffer<std::byte>(bytes())),
        ref_dst(strided::detail::allocate_buffer<std::byte>(bytes())) {
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> dist(-300.0f, 300.0f);  // i8/u8 saturate sometimes
    for (std::size_t i = 0; i < n; ++i) {
      src.get()[i] = strided::detail::cast_value<float, From>(dist(rng));
    }
    std::memset(static_cast<void*>(dst.get()), 0, n * sizeof(To));
    std::memset(ref_src.get(), 1, bytes());
    std::memset(ref_dst.get(), 0, bytes());
  }
  std::size_t bytes() const { return n * (sizeof(From) > sizeof(To) ? sizeof(From) : sizeof(To)); }

  std::size_t n;
  std::shared_ptr<From> src;
  std::shared_ptr<To> dst;
  std::shared_ptr<std::byte> ref_src, ref_dst;
};

/// Times the cast and memcpys of the input and output byte counts, alternating their order.
template <class From, class To>
void bench_cast(benchmark::State& state, Isa isa, std::size_t n) {
  static std::unique_ptr<Buffers<From, To>> b;  // reused across repetitions of this case
  if (!b || b->n != n) {
    b.reset();
    b = std::make_unique<Buffers<From, To>>(n);
  }
  strided::detail::ScopedIsa forced(isa);
  const std::size_t in_bytes = n * sizeof(From), out_bytes = n * sizeof(To);
  auto cast = [&] {
    strided::detail::cast_contiguous<From, To>(b->src.get(), b->dst.get(), n);
    benchmark::ClobberMemory();
  };
  auto copy = [&](std::size_t bytes) {
    std::memcpy(b->ref_dst.get(), b->ref_src.get(), bytes);
    benchmark::ClobberMemory();
  };
  double t_cast = 0, t_in = 0, t_out = 0;
  int round = 0;
  for (auto _ : state) {
    double c = 0;
    // Rotate the order: cast / memcpy(in) / memcpy(out), so none always runs on a warm cache.
    for (int k = 0; k < 3; ++k) {
      const int which = (k + round) % 3;
      const auto t0 = Clock::now();
      if (which == 0)
        cast();
      else
        copy(which == 1 ? in_bytes : out_bytes);
      const double t = seconds(t0, Clock::now());
      if (which == 0) c = t;
      (which == 0 ? t_cast : which == 1 ? t_in : t_out) += t;
    }
    ++round;
    state.SetIterationTime(c);
  }
  state.counters["x_memcpy"] = t_cast / t_in;
  state.counters["x_memcpy_out"] = t_cast / t_out;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in_bytes));
}

template <class From, class To>
void add_case() {
  const std::string pair = std::string(strided::element_traits<From>::name) + "_" +
                           std::string(strided::element_traits<To>::name);
  for (std::size_t n : {std::size_t{16} << 20, std::size_t{64} << 10}) {
    for (int level = strided::detail::available_isa_count() - 1; level >= 0; --level) {
      const auto isa = static_cast<Isa>(level);
      const std::string name = "cast/" + pair + "/" + std::string(strided::detail::isa_name(isa)) +
                               "/" + std::to_string(n);
      benchmark::RegisterBenchmark(
          name.c_str(), [isa, n](benchmark::State& s) { bench_cast<From, To>(s, isa, n); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Repetitions(9)
          ->ReportAggregatesOnly(true)
          ->MinTime(0.1);
    }
  }
}

void register_all() {
  add_case<float, strided::f16>();
  add_case<float, strided::bf16>();
  add_case<float, std::int8_t>();
  add_case<strided::f16, float>();
  add_case<strided::bf16, float>();
  add_case<float, double>();
  add_case<double, float>();
  add_case<float, std::uint8_t>();
  add_case<float, std::int32_t>();
  add_case<std::int8_t, float>();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string bf16 = strided::detail::cpu_features().avx512_bf16 ? "1" : "0";
  return strided_bench::run(argc, argv, "cast_bench", register_all, ", avx512_bf16 " + bf16);
}
