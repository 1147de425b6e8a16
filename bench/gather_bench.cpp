// Gather (index_select_into) of a batch from a dataset tensor [N, row] by random sample indices,
// as a ratio to memcpy of the output bytes measured interleaved in the same process, at one and
// at all threads (docs: docs/operations.md, "Speed").
//
//   gather/<row>B_rows/<out>/threads:N   index_select_into(dataset, 0, indices, out): rows of
//                                        <row> bytes taken in random order (with repeats) from a
//                                        128 MiB dataset into a preallocated <out> destination;
//   gather_floor/<row>B_rows/<out>/threads:1   the same rows moved by a plain loop of one memcpy
//   per
//                                        row: the least any gather of these rows does, so
//                                        gather's x_memcpy over the floor's is the library's own
//                                        cost, the rest is the random reads';
//   x_memcpy     = time / (memcpy of the output bytes on one thread)
//   x_memcpy_all = time / (the same bytes cut into one share per thread, copied on the pool)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench_main.hpp"
#include "memcpy_on_pool.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/gather.hpp"
#include "strided/parallel.hpp"
#include "strided/tensor.hpp"

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t dataset_bytes = std::size_t{128} << 20;

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

/// Times `work` at `threads` against memcpy of `bytes` on one thread and on all threads,
/// rotating which of the three goes first.
template <class Work>
void measure(benchmark::State& state, std::size_t threads, std::size_t bytes, Work&& work) {
  const auto src = filled(bytes, 2), dst = filled(bytes, 3);
  const auto all_src = filled(bytes, 4), all_dst = filled(bytes, 5);
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
          std::memcpy(dst.get(), src.get(), bytes);
          benchmark::ClobberMemory();
          t_one += seconds(t0, Clock::now());
          break;
        default:
          strided::set_num_threads(all_threads());
          strided_bench::memcpy_on_pool(all_dst.get(), all_src.get(), bytes, all_threads());
          benchmark::ClobberMemory();
          t_all += seconds(t0, Clock::now());
          break;
      }
    }
    ++turn;
    state.SetIterationTime(w);
  }
  strided::set_num_threads(1);
  state.counters["x_memcpy"] = t_work / t_one;
  state.counters["x_memcpy_all"] = t_work / t_all;
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(bytes));
}

/// A dataset of rows of `row` bytes (as f32), a batch of `out` bytes of random rows.
/// With `plain`, the rows are moved by the floor loop instead of index_select_into.
void bench_gather(benchmark::State& state, std::size_t row, std::size_t out, std::size_t threads,
                  bool plain) {
  const std::size_t cols = row / sizeof(float), n = dataset_bytes / row, k = out / row;
  // The library's own buffer (64-byte aligned, huge pages advised), as a loaded dataset has.
  auto values = strided::detail::allocate_buffer<float>(n * cols);
  for (std::size_t i = 0; i < n * cols; ++i) values.get()[i] = static_cast<float>(i % 4093);
  const auto dataset =
      strided::Tensor<float>::from_shared(std::move(values), n * cols,
                                          strided::Layout::contiguous({n, cols}).value())
          .value();
  std::mt19937_64 rng(46);
  std::vector<std::int64_t> indices(k);
  for (auto& i : indices) i = static_cast<std::int64_t>(rng() % n);
  auto dst = strided::detail::allocate_buffer<float>(k * cols);
  std::memset(dst.get(), 0, k * row);
  const std::span<float> batch(dst.get(), k * cols);
  const float* rows = dataset.as_slice().value().data();
  measure(state, threads, k * row, [&] {
    if (plain) {
      for (std::size_t i = 0; i != k; ++i)
        std::memcpy(batch.data() + i * cols, rows + static_cast<std::size_t>(indices[i]) * cols,
                    row);
    } else if (!strided::index_select_into(dataset, 0, indices, batch)) {
      state.SkipWithError("gather");
    }
  });
}

void add(const std::string& name, std::size_t row, std::size_t out, std::size_t threads,
         bool plain) {
  benchmark::RegisterBenchmark(name.c_str(), bench_gather, row, out, threads, plain)
      ->UseManualTime()
      ->Unit(benchmark::kMicrosecond)
      ->Repetitions(9)
      ->ReportAggregatesOnly(true);
}

void register_all() {
  const std::size_t all = all_threads();
  struct Case {
    std::size_t row, out;
    const char* out_name;
  };
  for (const Case c : {Case{4096, std::size_t{64} << 20, "64MiB"}, Case{4096, 1 << 20, "1MiB"},
                       Case{64, std::size_t{64} << 20, "64MiB"}, Case{64, 1 << 20, "1MiB"}}) {
    for (std::size_t threads : {std::size_t{1}, all}) {
      const std::string name = "gather/" + std::to_string(c.row) + "B_rows/" + c.out_name +
                               "/threads:" + std::to_string(threads);
      add(name, c.row, c.out, threads, false);
      if (all == 1) break;
    }
    add("gather_floor/" + std::to_string(c.row) + "B_rows/" + c.out_name + "/threads:1", c.row,
        c.out, 1, true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return strided_bench::run(argc, argv, "gather_bench", register_all,
                            ", " + std::to_string(all_threads()) + " threads at most");
}
