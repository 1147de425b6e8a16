// Reduction benchmarks (strided/reduce.hpp): each case times the reduction (which allocates its
// small output) against one read-only pass over the same input bytes, interleaved in the same
// process, median of 9 repetitions (docs/performance.md).
//
// The read pass is an xor of every 8-byte word of the input into 8 independent accumulators:
// a plain loop the compiler vectorises at the same flags as the library, touching every byte
// once and doing the least arithmetic any reduction could. It is the floor a reduction that
// must read all of its input can reach, so x_read = time / read pass says how far above
// memory speed a reduction runs.
//
//   <op>/full/<MiB>     all elements of a contiguous f32 tensor (64 MiB out of cache, 1 MiB in L2)
//   <op>/inner/<n>      over axis 1 of an n x n f32 matrix (one output per row)
//   <op>/outer/<n>      over axis 0 of it (one output per column)
//   <case>/threads:1    the same on one thread (the read pass always runs on one)
//   sum_floor/outer/4096 the plainest sum over axis 0, one thread: every row added into one row
//                       of f32 accumulators that stays in L1 (NumPy's order, no tree): the least
//                       work any outer-axis sum does beyond the read pass
//   sum/full_transposed the transpose of a 4096 x 4096 matrix, all elements
//   sum/accuracy_1e8    not a timing: the relative errors (counters) of f32 sums of
//                       x_i = float32((i * 2654435761) mod 2^32) / 2^32, i < 10^8, against
//                       their double sum: strided::sum, a Kahan f32 sum, a sequential f32 loop
//                       (bench/peers_reduce.py --accuracy prints NumPy's and PyTorch's)
// The library's reductions are plain C++ loops (no run-time ISA dispatch): STRIDED_ISA does not
// change them.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "strided/parallel.hpp"
#include "strided/reduce.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using strided::Shape;
using strided::Tensor;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// The reference: every 8-byte word of `bytes` bytes at `p` xor-ed into 8 accumulators.
std::uint64_t read_pass(const void* p, std::size_t bytes) {
  const auto* w = static_cast<const std::uint64_t*>(p);
  const std::size_t n = bytes / 8;
  std::uint64_t acc[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (std::size_t j = 0; j != 8; ++j) acc[j] ^= w[i + j];
  for (; i < n; ++i) acc[0] ^= w[i];
  std::uint64_t x = 0;
  for (std::uint64_t a : acc) x ^= a;
  return x;
}

/// Times `work` and the read pass alternately; returns time(work) / time(read pass) and sets the
/// iteration time to the work's.
double interleave(benchmark::State& state, const std::function<void()>& work, const void* p,
                  std::size_t bytes) {
  double total[2] = {0, 0};
  std::size_t round = 0;
  for (auto _ : state) {
    double w = 0;
    for (std::size_t k = 0; k != 2; ++k) {
      const bool is_work = (k + round) % 2 == 0;
      const auto t0 = Clock::now();
      if (is_work)
        work();
      else
        benchmark::DoNotOptimize(read_pass(p, bytes));
      const double t = seconds(t0, Clock::now());
      total[is_work ? 0 : 1] += t;
      if (is_work) w = t;
    }
    ++round;
    state.SetIterationTime(w);
  }
  return total[0] / total[1];
}

Tensor<float> values(const Shape& shape) {
  std::size_t n = 1;
  for (std::size_t e : shape) n *= e;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 1000) * 0.001f;
  return Tensor<float>::from_vector(std::move(v), shape).value();
}

template <class Op>
void bench(benchmark::State& state, const Tensor<float>& x, Op op) {
  const auto data = x.as_view_slice().value();
  state.counters["x_read"] = interleave(
      state, [&] { benchmark::DoNotOptimize(op(x)); }, data.data(), data.size_bytes());
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * data.size_bytes()));
}

void add(const std::string& name, std::function<void(benchmark::State&)> fn) {
  benchmark::RegisterBenchmark(name.c_str(), fn)
      ->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Repetitions(9)
      ->ReportAggregatesOnly(true);
}

template <class Op>
void add_cases(const std::string& name, Op op, Op inner, Op outer) {
  static const Tensor<float> big = values({std::size_t{16} << 20});
  static const Tensor<float> small = values({std::size_t{256} << 10});
  static const Tensor<float> square = values({4096, 4096});
  add(name + "/full/64", [=](benchmark::State& s) { bench(s, big, op); });
  add(name + "/full/1", [=](benchmark::State& s) { bench(s, small, op); });
  add(name + "/inner/4096", [=](benchmark::State& s) { bench(s, square, inner); });
  add(name + "/outer/4096", [=](benchmark::State& s) { bench(s, square, outer); });
  add(name + "/outer/4096/threads:1", [=](benchmark::State& s) {
    strided::set_num_threads(1);
    bench(s, square, outer);
    strided::set_num_threads(0);
  });
}

/// The floor of an outer-axis sum: rows added in order into one row of accumulators.
void sum_floor_outer(benchmark::State& state) {
  static const Tensor<float> square = values({4096, 4096});
  const auto data = square.as_view_slice().value();
  std::vector<float> acc(4096);
  state.counters["x_read"] = interleave(
      state,
      [&] {
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (std::size_t r = 0; r != 4096; ++r) {
          const float* row = data.data() + r * 4096;
          for (std::size_t c = 0; c != 4096; ++c) acc[c] += row[c];
        }
        benchmark::DoNotOptimize(acc.data());
      },
      data.data(), data.size_bytes());
}

using Fn = std::function<Tensor<double>(const Tensor<float>&)>;

template <class R>
Tensor<double> as_f64(const Tensor<R>& t) {
  return t.template cast<double>().value();  // tiny outputs: not measured apart
}

/// The accuracy comparison: relative errors of three f32 sums of 10^8 values.
void accuracy(benchmark::State& state) {
  const std::size_t n = 100'000'000;
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = static_cast<float>(static_cast<std::uint32_t>(i * 2654435761u)) * 0x1p-32f;
  double exact = 0;
  float kahan = 0, carry = 0, sequential = 0;
  for (float x : v) {
    exact += x;
    sequential += x;
    const float y = x - carry;
    const float t = kahan + y;
    carry = (t - kahan) - y;
    kahan = t;
  }
  const auto t = Tensor<float>::from_vector(std::move(v), {n}).value();
  const double got = strided::sum(t).value().get({}).value();
  for (auto _ : state) benchmark::DoNotOptimize(got);
  auto rel = [exact](double s) { return std::abs(s - exact) / exact; };
  state.counters["err_strided"] = rel(got);
  state.counters["err_kahan"] = rel(kahan);
  state.counters["err_sequential"] = rel(sequential);
  std::fprintf(stderr,
               "f32 sum of 1e8 values: double %.17g, strided %.9g, kahan %.9g, "
               "sequential %.9g\n",
               exact, got, static_cast<double>(kahan), static_cast<double>(sequential));
}

void register_all() {
  add_cases<Fn>(
      "sum", [](const Tensor<float>& x) { return as_f64(strided::sum(x).value()); },
      [](const Tensor<float>& x) { return as_f64(strided::sum(x, {1}).value()); },
      [](const Tensor<float>& x) { return as_f64(strided::sum(x, {0}).value()); });
  add_cases<Fn>(
      "mean", [](const Tensor<float>& x) { return as_f64(strided::mean(x).value()); },
      [](const Tensor<float>& x) { return as_f64(strided::mean(x, {1}).value()); },
      [](const Tensor<float>& x) { return as_f64(strided::mean(x, {0}).value()); });
  add_cases<Fn>(
      "argmax", [](const Tensor<float>& x) { return as_f64(strided::argmax(x).value()); },
      [](const Tensor<float>& x) { return as_f64(strided::argmax(x, 1).value()); },
      [](const Tensor<float>& x) { return as_f64(strided::argmax(x, 0).value()); });
  add("sum_floor/outer/4096", sum_floor_outer);
  benchmark::RegisterBenchmark("sum/accuracy_1e8", accuracy)->Iterations(1);
  static const Tensor<float> square = values({4096, 4096});
  add("sum/full_transposed", [](benchmark::State& s) {
    bench(s, square.transpose(0, 1).value(),
          [](const Tensor<float>& x) { return strided::sum(x).value(); });
  });
}

}  // namespace

int main(int argc, char** argv) {
  return strided_bench::run(argc, argv, "reduce_bench", register_all);
}
