// map / zip_with benchmarks (issue 20): each case times the element-wise call (which allocates
// its output through the library's allocator) against std::memcpy of the OUTPUT bytes into a
// preallocated buffer, interleaved in the same process, median of 9 repetitions
// (docs/performance.md).
//
//   map/contiguous/<isa>      map(x, v * 2 + 1) over 16 M contiguous f32
//   map/transposed/<isa>/<n>  the same over the transpose of an n x n f32 matrix; x_copy_to is
//                             the ratio to copy_to of the same view into a preallocated buffer
//   zip/normalize/<isa>       zip_with((x / 255 - m) / s) of [64,3,224,224] u8 with [3,1,1] f32
//                             mean and std, to f32
//   map/random_views/<isa>    p50 / p90 / max of the ratio to copy_to over random views (seed 7)
// <isa> is the level forced for the copy kernels (the map loop itself is compiled code).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/map.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using strided::Shape;
using strided::Tensor;
using strided::detail::Isa;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// A prefaulted source and destination for the memcpy reference of `bytes`.
struct MemcpyRef {
  explicit MemcpyRef(std::size_t n)
      : bytes(n),
        src(strided::detail::allocate_buffer<std::byte>(n)),
        dst(strided::detail::allocate_buffer<std::byte>(n)) {
    std::memset(src.get(), 1, n);
    std::memset(dst.get(), 0, n);
  }
  void operator()() const {
    std::memcpy(dst.get(), src.get(), bytes);
    benchmark::ClobberMemory();
  }
  std::size_t bytes;
  std::shared_ptr<std::byte> src, dst;
};

/// Times `work` and each reference in rotating order; returns time(work) / time(ref[k]) per k,
/// and sets the iteration time to the work's.
std::vector<double> interleave(benchmark::State& state, const std::function<void()>& work,
                               const std::vector<std::function<void()>>& refs) {
  std::vector<double> total(refs.size() + 1, 0.0);
  std::size_t round = 0;
  for (auto _ : state) {
    double w = 0;
    for (std::size_t k = 0; k <= refs.size(); ++k) {
      const std::size_t which = (k + round) % (refs.size() + 1);
      const auto t0 = Clock::now();
      if (which == 0)
        work();
      else
        refs[which - 1]();
      const double t = seconds(t0, Clock::now());
      total[which] += t;
      if (which == 0) w = t;
    }
    ++round;
    state.SetIterationTime(w);
  }
  std::vector<double> ratios;
  for (std::size_t k = 1; k < total.size(); ++k) ratios.push_back(total[0] / total[k]);
  return ratios;
}

Tensor<float> iota(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t e : shape) n *= e;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000);
  return Tensor<float>::from_vector(std::move(v), shape).value();
}

const auto affine = [](float v) { return v * 2 + 1; };

void bench_contiguous(benchmark::State& state, Isa isa) {
  strided::detail::ScopedIsa forced(isa);
  const std::size_t n = std::size_t{16} << 20;
  static const Tensor<float> x = iota({n});
  const MemcpyRef ref(n * sizeof(float));
  const auto r =
      interleave(state, [&] { benchmark::DoNotOptimize(strided::map(x, affine).value()); }, {ref});
  state.counters["x_memcpy"] = r[0];
}

void bench_transposed(benchmark::State& state, Isa isa, std::size_t n) {
  strided::detail::ScopedIsa forced(isa);
  const Tensor<float> x = iota({n, n});
  const Tensor<float> xt = x.transpose(0, 1).value();
  std::vector<float> dst(n * n);
  const MemcpyRef ref(n * n * sizeof(float));
  auto copy_to = [&] {
    (void)xt.copy_to(dst);
    benchmark::ClobberMemory();
  };
  const auto r = interleave(
      state, [&] { benchmark::DoNotOptimize(strided::map(xt, affine).value()); }, {ref, copy_to});
  state.counters["x_memcpy"] = r[0];
  state.counters["x_copy_to"] = r[1];
}

void bench_normalize(benchmark::State& state, Isa isa) {
  strided::detail::ScopedIsa forced(isa);
  const Shape shape{64, 3, 224, 224};
  std::vector<std::uint8_t> pixels(64 * 3 * 224 * 224);
  for (std::size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<std::uint8_t>(i * 7);
  const auto images = Tensor<std::uint8_t>::from_vector(std::move(pixels), shape).value();
  const auto mean = Tensor<float>::from_vector({0.485f, 0.456f, 0.406f}, {3, 1, 1}).value();
  const auto stdev = Tensor<float>::from_vector({0.229f, 0.224f, 0.225f}, {3, 1, 1}).value();
  const MemcpyRef ref(images.numel() * sizeof(float));
  auto normalize = [](std::uint8_t x, float m, float s) { return (x / 255.0f - m) / s; };
  const auto r = interleave(
      state,
      [&] { benchmark::DoNotOptimize(strided::zip_with(normalize, images, mean, stdev).value()); },
      {ref});
  state.counters["x_memcpy"] = r[0];
}

// A random view of a random f32 tensor of 1-4 M elements: permuted, narrowed, maybe flipped.
Tensor<float> random_view(std::mt19937& rng) {
  std::uniform_int_distribution<int> rank_dist(2, 4);
  const int rank = rank_dist(rng);
  Shape shape;
  std::size_t n = 1;
  for (int k = 0; k < rank; ++k) {
    const std::size_t e = std::uniform_int_distribution<std::size_t>(2, 96)(rng);
    shape.push_back(e);
    n *= e;
  }
  while (n < (std::size_t{1} << 20)) {  // grow the first axis to a size out of L2
    n = n / shape[0] * shape[0] * 2;
    shape[0] *= 2;
  }
  Tensor<float> t = iota(shape);
  Shape perm;
  for (int k = 0; k < rank; ++k) perm.push_back(static_cast<std::size_t>(k));
  std::shuffle(perm.begin(), perm.end(), rng);
  t = t.permute(perm).value();
  const std::size_t axis = std::uniform_int_distribution<std::size_t>(0, t.rank() - 1)(rng);
  t = t.narrow(axis, 1, t.shape()[axis] - 1).value();
  if (rng() % 2 == 0) t = t.flip(rng() % t.rank()).value();
  return t;
}

void bench_random_views(benchmark::State& state, Isa isa) {
  strided::detail::ScopedIsa forced(isa);
  std::mt19937 rng(7);
  std::vector<double> ratios;
  for (int v = 0; v < 24; ++v) {
    const Tensor<float> t = random_view(rng);
    std::vector<float> dst(t.numel());
    std::vector<double> per_rep;
    for (int rep = 0; rep < 5; ++rep) {
      auto t0 = Clock::now();
      benchmark::DoNotOptimize(strided::map(t, affine).value());
      const double m = seconds(t0, Clock::now());
      t0 = Clock::now();
      (void)t.copy_to(dst);
      benchmark::ClobberMemory();
      per_rep.push_back(m / seconds(t0, Clock::now()));
    }
    std::sort(per_rep.begin(), per_rep.end());
    ratios.push_back(per_rep[per_rep.size() / 2]);
  }
  for (auto _ : state) benchmark::DoNotOptimize(ratios.data());
  std::sort(ratios.begin(), ratios.end());
  state.counters["p50_x_copy_to"] = ratios[ratios.size() / 2];
  state.counters["p90_x_copy_to"] = ratios[ratios.size() * 9 / 10];
  state.counters["max_x_copy_to"] = ratios.back();
}

template <class Fn>
void add(const std::string& name, Fn fn, bool manual = true) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), fn);
  if (manual) b->UseManualTime();
  b->Unit(benchmark::kMillisecond)->Repetitions(manual ? 9 : 1)->ReportAggregatesOnly(true);
}

void register_all() {
  for (int level = strided::detail::available_isa_count() - 1; level >= 0; --level) {
    const auto isa = static_cast<Isa>(level);
    const std::string tag = std::string(strided::detail::isa_name(isa));
    add("map/contiguous/" + tag, [isa](benchmark::State& s) { bench_contiguous(s, isa); });
    for (std::size_t n : {std::size_t{4096}, std::size_t{4104}, std::size_t{512}})
      add("map/transposed/" + tag + "/" + std::to_string(n),
          [isa, n](benchmark::State& s) { bench_transposed(s, isa, n); });
    add("zip/normalize/" + tag, [isa](benchmark::State& s) { bench_normalize(s, isa); });
    add(
        "map/random_views/" + tag, [isa](benchmark::State& s) { bench_random_views(s, isa); },
        false);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return strided_bench::run(argc, argv, "map_bench", register_all);
}
