// The threads layer: copies, casts and batches at 1, 2 and all threads, as ratios to a one-thread
// memcpy AND to an all-thread memcpy of the same bytes, all measured interleaved in one process
// (docs: docs/performance.md, "Threads").
//
//   copy_to/<case>/threads:N     detail::copy_strided into a preallocated destination;
//   cast/<case>/threads:N        detail::cast_contiguous_parallel into a preallocated destination
//                                (reference bytes: the larger side);
//   stack_samples/<case>/threads:N  strided::stack_samples (the batch is allocated: the buffer
//                                cache keeps it warm, as in a training loop);
//   small/<case>/threads:N       contiguous() of a 4 KiB view, below the threshold: the pool must
//                                cost nothing there (compare threads:1 with threads:all).
//   crossover/<bytes>/threads:N  a square f32 transpose of about <bytes>, at threads:1 serial and
//                                otherwise forced onto the pool whatever its size: where the
//                                two cross is where the threshold belongs.
//   x_memcpy     = time / (memcpy of the same bytes on one thread)
//   x_memcpy_all = time / (the same bytes cut into one share per thread, copied on the pool;
//                  its own buffers, not the one-thread reference's)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_main.hpp"
#include "memcpy_on_pool.hpp"
#include "strided/batch.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/cast.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/parallel.hpp"
#include "strided/tensor.hpp"

namespace {

using Clock = std::chrono::steady_clock;

std::size_t all_threads() { return strided::detail::hardware_thread_count(); }

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::shared_ptr<std::byte> filled(std::size_t bytes, int seed) {
  auto p = strided::detail::allocate_buffer<std::byte>(bytes);
  for (std::size_t i = 0; i < bytes; ++i)
    p.get()[i] = static_cast<std::byte>(i * 131 + static_cast<std::size_t>(seed));
  return p;
}

/// The two references of one case: memcpy of `bytes` on one thread, and on all threads (one
/// share each, through the library's pool so both sides pay the same dispatch). Each has buffers
/// of its own, as the work has: sharing them, the second reference found the bytes the first had
/// just moved still in L3 whenever they fit there (a 9.6 MB stack: one-thread memcpy 480 us
/// against 730 us from its own buffers), where the work, always run after a reference, did not.
struct Reference {
  std::size_t bytes;
  std::shared_ptr<std::byte> src = filled(bytes, 2), dst = filled(bytes, 3);
  std::shared_ptr<std::byte> all_src = filled(bytes, 4), all_dst = filled(bytes, 5);

  void one_thread() const {
    std::memcpy(dst.get(), src.get(), bytes);
    benchmark::ClobberMemory();
  }
  void all_threads_copy() const {
    const std::size_t n = all_threads();
    strided::set_num_threads(n);
    strided_bench::memcpy_on_pool(all_dst.get(), all_src.get(), bytes, n);
    benchmark::ClobberMemory();
  }
};

/// Times `work` at `threads` against both references, rotating which of the three goes first.
template <class Work>
void measure(benchmark::State& state, std::size_t threads, std::size_t bytes, Work&& work) {
  const Reference ref{bytes};
  double t_work = 0, t_one = 0, t_all = 0;
  std::size_t turn = 0;
  for (auto _ : state) {
    double w = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto t0 = Clock::now();
      switch ((turn + k) % 3) {
        case 0:
          strided::set_num_threads(threads);
          work();
          benchmark::ClobberMemory();
          w = seconds(t0, Clock::now());
          t_work += w;
          break;
        case 1:
          ref.one_thread();
          t_one += seconds(t0, Clock::now());
          break;
        default:
          ref.all_threads_copy();
          t_all += seconds(t0, Clock::now());
          break;
      }
    }
    ++turn;
    state.SetIterationTime(w);
  }
  strided::set_num_threads(0);
  state.counters["x_memcpy"] = t_work / t_one;
  state.counters["x_memcpy_all"] = t_work / t_all;
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}

struct CopyCase {
  std::string name;
  std::vector<std::size_t> base;  // the row-major source
  std::vector<std::size_t> perm;  // destination axis k = source axis perm[k]
  std::size_t es;
};

// The copy_bench cases that materialise a view (permutes; narrow and broadcast below).
std::vector<CopyCase> copy_cases() {
  return {
      {"transpose_4096x4096_f32", {4096, 4096}, {1, 0}, 4},
      {"transpose_4104x4104_f32", {4104, 4104}, {1, 0}, 4},
      {"transpose_1024x1024_f32", {1024, 1024}, {1, 0}, 4},
      {"nchw_to_nhwc_32x64x56x56_f32", {32, 64, 56, 56}, {0, 2, 3, 1}, 4},
      {"nhwc_to_nchw_32x56x56x64_f32", {32, 56, 56, 64}, {0, 3, 1, 2}, 4},
      {"permute_rank22_of_2s_f32",
       std::vector<std::size_t>(22, 2),
       {21, 3, 17, 0, 9, 12, 5, 1, 20, 14, 7, 2, 19, 11, 4, 16, 8, 13, 6, 18, 10, 15},
       4},
      {"transpose_8192x8192_u8", {8192, 8192}, {1, 0}, 1},
      {"transpose_4096x4096_bf16", {4096, 4096}, {1, 0}, 2},
      {"transpose_4096x4096_f64", {4096, 4096}, {1, 0}, 8},
      {"batched_transpose_64x512x512_f32", {64, 512, 512}, {0, 2, 1}, 4},
  };
}

std::vector<std::ptrdiff_t> row_major_strides(const std::vector<std::size_t>& shape) {
  const strided::Strides s = strided::detail::row_major_strides(strided::Shape(shape)).value();
  return {s.begin(), s.end()};
}

/// A copy problem: shape and both stride lists, over owned buffers.
struct CopyProblem {
  std::vector<std::size_t> shape;
  std::vector<std::ptrdiff_t> src_strides, dst_strides;
  std::size_t es = 4;
  std::size_t src_bytes = 0, origin = 0;

  std::size_t bytes() const {
    std::size_t n = es;
    for (std::size_t e : shape) n *= e;
    return n;
  }
};

CopyProblem permuted(const CopyCase& c) {
  CopyProblem p;
  p.es = c.es;
  const auto base_strides = row_major_strides(c.base);
  for (std::size_t k = 0; k < c.perm.size(); ++k) {
    p.shape.push_back(c.base[c.perm[k]]);
    p.src_strides.push_back(base_strides[c.perm[k]]);
  }
  p.dst_strides = row_major_strides(p.shape);
  p.src_bytes = p.bytes();
  return p;
}

void bench_copy(benchmark::State& state, const CopyProblem& p, std::size_t threads) {
  const auto src = filled(p.src_bytes, 7);
  const auto dst = filled(p.bytes(), 1);
  const strided::detail::CopyArgs a{
      p.shape, src.get() + p.origin * p.es, p.src_strides, dst.get(), p.dst_strides, p.es};
  measure(state, threads, p.bytes(), [&] { strided::detail::copy_strided(a); });
}

template <class From, class To>
void bench_cast(benchmark::State& state, std::size_t n, std::size_t threads) {
  std::vector<From> src(n);
  for (std::size_t i = 0; i < n; ++i)
    src[i] = static_cast<From>(static_cast<float>(i % 1000) * 0.37f);
  auto dst = strided::detail::allocate_buffer<To>(n);
  std::fill_n(dst.get(), n, To{});
  measure(state, threads, n * std::max(sizeof(From), sizeof(To)),
          [&] { strided::detail::cast_contiguous_parallel(src.data(), dst.get(), n); });
}

template <class T>
void bench_stack(benchmark::State& state, std::vector<strided::Tensor<T>> samples,
                 std::size_t threads) {
  const std::size_t bytes = samples.size() * samples[0].numel() * sizeof(T);
  measure(state, threads, bytes, [&] {
    auto batch = strided::stack_samples(samples);
    benchmark::DoNotOptimize(batch);
  });
}

template <class T>
std::vector<strided::Tensor<T>> images(std::size_t count, const strided::Shape& shape,
                                       const strided::Shape& perm) {
  std::vector<strided::Tensor<T>> out;
  for (std::size_t i = 0; i < count; ++i) {
    auto t = strided::Tensor<T>::full(shape, static_cast<T>(i)).value();
    out.push_back(perm.empty() ? t : t.permute(perm).value());
  }
  return out;
}

void bench_small(benchmark::State& state, std::size_t threads) {
  const auto t = strided::Tensor<float>::full({32, 32}, 1.0f).value().transpose(0, 1).value();
  measure(state, threads, 32 * 32 * 4, [&] {
    auto c = t.contiguous();
    benchmark::DoNotOptimize(c);
  });
}

void bench_crossover(benchmark::State& state, std::size_t bytes, std::size_t threads) {
  const auto side = static_cast<std::size_t>(std::sqrt(static_cast<double>(bytes / 4)));
  const CopyProblem p = permuted({"", {side, side}, {1, 0}, 4});
  const auto src = filled(p.src_bytes, 7);
  const auto dst = filled(p.bytes(), 1);
  const strided::detail::CopyArgs a{p.shape,   src.get(),     p.src_strides,
                                    dst.get(), p.dst_strides, p.es};
  const strided::detail::CopyChunks split(a, threads * strided::detail::chunks_per_thread);
  measure(state, threads, p.bytes(), [&] {
    if (threads == 1) return strided::detail::copy_strided_serial(a);
    strided::detail::parallel_for(
        split.count(), [&](std::size_t c) { split.run(c, strided::detail::copy_strided_serial); });
  });
}

template <class Fn>
void add(const std::string& name, std::size_t threads, Fn&& fn) {
  const std::string full = name + "/threads:" + std::to_string(threads);
  benchmark::RegisterBenchmark(full.c_str(), [fn, threads](benchmark::State& s) { fn(s, threads); })
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(9)
      ->ReportAggregatesOnly(true)
      ->MinTime(0.1);
}

void register_all() {
  std::vector<std::size_t> counts{1, 2, all_threads()};
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  static std::vector<CopyProblem> problems;
  static std::vector<std::string> names;
  for (const CopyCase& c : copy_cases()) {
    problems.push_back(permuted(c));
    names.push_back(c.name);
  }
  CopyProblem narrow{{4096, 2048}, {4096, 1}, {2048, 1}, 4, 4096 * 4096 * 4, 1000};
  problems.push_back(narrow);
  names.emplace_back("narrow_cols_1000_3048_of_4096x4096_f32");
  CopyProblem broadcast{{4096, 4096}, {0, 1}, {4096, 1}, 4, 4096 * 4, 0};
  problems.push_back(broadcast);
  names.emplace_back("broadcast_1x4096_to_4096x4096_f32");
  for (std::size_t threads : counts) {
    for (std::size_t i = 0; i < problems.size(); ++i) {
      const CopyProblem* p = &problems[i];
      add("copy_to/" + names[i], threads,
          [p](benchmark::State& s, std::size_t t) { bench_copy(s, *p, t); });
    }
    constexpr std::size_t n = std::size_t{16} << 20;
    add("cast/f32_to_f16_16M", threads,
        [](benchmark::State& s, std::size_t t) { bench_cast<float, strided::f16>(s, n, t); });
    add("cast/f16_to_f32_16M", threads,
        [](benchmark::State& s, std::size_t t) { bench_cast<strided::f16, float>(s, n, t); });
    add("cast/f32_to_bf16_16M", threads,
        [](benchmark::State& s, std::size_t t) { bench_cast<float, strided::bf16>(s, n, t); });
    add("cast/u8_to_f32_16M", threads,
        [](benchmark::State& s, std::size_t t) { bench_cast<std::uint8_t, float>(s, n, t); });
    add("cast/f64_to_f32_16M", threads,
        [](benchmark::State& s, std::size_t t) { bench_cast<double, float>(s, n, t); });
    add("stack_samples/64x3x224x224_f32", threads, [](benchmark::State& s, std::size_t t) {
      bench_stack(s, images<float>(64, {3, 224, 224}, {}), t);
    });
    add("stack_samples/64_hwc_to_chw_224x224x3_u8", threads,
        [](benchmark::State& s, std::size_t t) {
          bench_stack(s, images<std::uint8_t>(64, {224, 224, 3}, {2, 0, 1}), t);
        });
    add("small/contiguous_transpose_32x32_f32", threads, bench_small);
    for (std::size_t kib : {32u, 64u, 128u, 256u, 512u, 1024u, 2048u}) {
      add("crossover/" + std::to_string(kib) + "KiB", threads,
          [kib](benchmark::State& s, std::size_t t) { bench_crossover(s, kib << 10, t); });
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("strided_all_threads", std::to_string(all_threads()));
  return strided_bench::run(argc, argv, "parallel_bench", register_all,
                            ", all threads = " + std::to_string(all_threads()));
}
