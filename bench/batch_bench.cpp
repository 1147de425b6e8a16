// Batching speed as a ratio to memcpy of the same bytes, measured in the same process and
// interleaved (docs/performance.md): every iteration times the batching call, then a memcpy of the
// output bytes from the same samples into a preallocated buffer ("x_memcpy"), then the same
// memcpy into a fresh buffer from the library's allocator, allocation and first touch included
// ("x_fresh": what the batching call itself has to pay, since its result is always fresh).
//
//   stack_samples 64 x [3, 224, 224] f32          (output 38.5 MB)
//   concat_batches 8 x [64, 3, 224, 224] f32      (output 308 MB)
//   stack along axis 1, and of transposed (NHWC-viewed) samples, for information;
//   the kernels alone (no allocation), to separate the copy from the fresh pages;
//   stack and concat with the buffer cache off ("_uncached"): what the first batch of a size costs.
//
// Each case makes one untimed call before timing, as the memcpy's preallocated buffer is touched
// before timing: the loop then measures a data loader's steady state, where the previous batch's
// buffer comes back from the buffer cache (strided/buffer_cache.hpp). The fresh reference draws
// from the same allocator, so x_fresh compares like with like in both modes.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "strided/batch.hpp"
#include "strided/buffer_cache.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/detail/simd/isa.hpp"

namespace {

using strided::Shape;
using strided::Tensor;
using Clock = std::chrono::steady_clock;

std::vector<Tensor<float>> make_samples(std::size_t count, const Shape& shape) {
  std::vector<Tensor<float>> samples;
  for (std::size_t i = 0; i < count; ++i)
    samples.push_back(Tensor<float>::full(shape, static_cast<float>(i) + 0.5f).value());
  return samples;
}

// The reference: memcpy of every sample's bytes, back to back, into `dst`.
void copy_all(const std::vector<Tensor<float>>& samples, float* dst) {
  for (const auto& s : samples) {
    const auto values = s.as_slice().value();
    std::memcpy(dst, values.data(), values.size_bytes());
    dst += values.size();
  }
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs `op` (returns a batch) interleaved with both memcpy references; reports the ratios.
template <class Op>
void run_interleaved(benchmark::State& state, const std::vector<Tensor<float>>& samples,
                     std::size_t out_elems, Op op) {
  const auto pre = strided::detail::allocate_buffer<float>(out_elems);
  copy_all(samples, pre.get());  // first touch outside the timing
  {
    auto warm = op();  // likewise for the call: its buffer goes to the cache, if it is on
    benchmark::DoNotOptimize(warm);
  }
  double t_op = 0, t_pre = 0, t_fresh = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    {
      auto batch = op();
      benchmark::DoNotOptimize(batch);
      if (!batch) state.SkipWithError("batching failed");
    }  // the result is released inside the timing, as the fresh reference's buffer is
    const double op_s = seconds_since(start);
    t_op += op_s;
    state.SetIterationTime(op_s);

    start = Clock::now();
    copy_all(samples, pre.get());
    benchmark::ClobberMemory();
    t_pre += seconds_since(start);

    start = Clock::now();
    {
      auto fresh = strided::detail::allocate_buffer<float>(out_elems);
      copy_all(samples, fresh.get());
      benchmark::DoNotOptimize(fresh.get());
      benchmark::ClobberMemory();
    }
    t_fresh += seconds_since(start);
  }
  state.counters["x_memcpy"] = t_op / t_pre;
  state.counters["x_fresh"] = t_op / t_fresh;
  state.counters["memcpy_GBps"] = static_cast<double>(state.iterations()) *
                                  static_cast<double>(out_elems * sizeof(float)) / t_pre / 1e9;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                          static_cast<std::int64_t>(out_elems * sizeof(float)));
  state.SetLabel(std::string("isa=") +
                 std::string(strided::detail::isa_name(strided::detail::active_isa())) +
                 " cache_MiB=" + std::to_string(strided::buffer_cache_limit() >> 20));
}

void BM_stack_samples_64x3x224x224(benchmark::State& state) {
  const auto samples = make_samples(64, {3, 224, 224});
  run_interleaved(state, samples, 64 * 3 * 224 * 224,
                  [&] { return strided::stack_samples(samples); });
}

void BM_concat_batches_8x64x3x224x224(benchmark::State& state) {
  const auto parts = make_samples(8, {64, 3, 224, 224});
  run_interleaved(state, parts, std::size_t{8} * 64 * 3 * 224 * 224,
                  [&] { return strided::concat_batches(parts); });
}

// The same two with the buffer cache off: every batch gets fresh pages (zeroed by the kernel).
template <class Bench>
void uncached(benchmark::State& state, Bench bench) {
  const std::size_t limit = strided::buffer_cache_limit();
  strided::set_buffer_cache_limit(0);
  bench(state);
  strided::set_buffer_cache_limit(limit);
}

void BM_stack_samples_uncached_64x3x224x224(benchmark::State& state) {
  uncached(state, BM_stack_samples_64x3x224x224);
}

void BM_concat_batches_uncached_8x64x3x224x224(benchmark::State& state) {
  uncached(state, BM_concat_batches_8x64x3x224x224);
}

// Along axis 1 every sample lands in 3 runs of 224 x 224 (rows of 196 KiB): still row memcpys.
void BM_stack_axis1_64x3x224x224(benchmark::State& state) {
  const auto samples = make_samples(64, {3, 224, 224});
  run_interleaved(state, samples, 64 * 3 * 224 * 224, [&] { return strided::stack(samples, 1); });
}

// Samples that are NHWC views of CHW buffers: each copy is a transpose (the reference is still a
// plain memcpy of the same bytes, so this ratio includes the transpose's cost).
void BM_stack_nhwc_views_64x224x224x3(benchmark::State& state) {
  const auto samples = make_samples(64, {3, 224, 224});
  std::vector<Tensor<float>> views;
  for (const auto& s : samples) views.push_back(s.permute({1, 2, 0}).value());
  // the references copy the underlying contiguous samples: the same bytes
  run_interleaved(state, samples, 64 * 3 * 224 * 224,
                  [&] { return strided::stack_samples(views); });
}

// The batching kernel alone (detail::fill_batch), into a buffer allocated once: the call minus
// its fresh allocation. x_memcpy here is the copy engine's ratio on these shapes.
template <strided::detail::BatchMode Mode>
void kernel_only(benchmark::State& state, std::size_t count, const Shape& shape) {
  const auto samples = make_samples(count, shape);
  const strided::detail::BatchOp op{"kernel", Mode, 0};
  auto get = [&](std::size_t i) -> const Tensor<float>& { return samples[i]; };
  const auto parts = strided::detail::batch_parts<float>(count, get);
  const auto layout = strided::detail::batch_layout(op, parts).value();
  const auto out = strided::detail::allocate_buffer<float>(layout.numel());
  auto* bytes = reinterpret_cast<std::byte*>(out.get());
  strided::detail::fill_batch(op, parts, layout, bytes, sizeof(float));  // first touch
  run_interleaved(state, samples, layout.numel(), [&] {
    strided::detail::fill_batch(op, parts, layout, bytes, sizeof(float));
    benchmark::ClobberMemory();
    return true;
  });
}

void BM_stack_kernel_only_64x3x224x224(benchmark::State& state) {
  kernel_only<strided::detail::BatchMode::stack>(state, 64, {3, 224, 224});
}

void BM_concat_kernel_only_8x64x3x224x224(benchmark::State& state) {
  kernel_only<strided::detail::BatchMode::concat>(state, 8, {64, 3, 224, 224});
}

// Every case: manual time (the op alone, its memcpy references timed beside it), 9 repetitions.
void timed_like_memcpy(benchmark::internal::Benchmark* b) {
  b->UseManualTime()->Unit(benchmark::kMillisecond)->Repetitions(9)->ReportAggregatesOnly(true);
}

}  // namespace

BENCHMARK(BM_stack_samples_64x3x224x224)->Apply(timed_like_memcpy);
BENCHMARK(BM_concat_batches_8x64x3x224x224)->Apply(timed_like_memcpy);
BENCHMARK(BM_stack_samples_uncached_64x3x224x224)->Apply(timed_like_memcpy);
BENCHMARK(BM_concat_batches_uncached_8x64x3x224x224)->Apply(timed_like_memcpy);
BENCHMARK(BM_stack_axis1_64x3x224x224)->Apply(timed_like_memcpy);
BENCHMARK(BM_stack_nhwc_views_64x224x224x3)->Apply(timed_like_memcpy);

BENCHMARK(BM_stack_kernel_only_64x3x224x224)->Apply(timed_like_memcpy);
BENCHMARK(BM_concat_kernel_only_8x64x3x224x224)->Apply(timed_like_memcpy);

int main(int argc, char** argv) {
  return strided_bench::run(argc, argv, "batch_bench", [] {});
}
