// Two builds of the library, one process: casts, map and zip_with over a rows x cols f32 matrix,
// timed with each build in turn beside a one-thread memcpy of the larger of the input and output
// bytes (the rule of docs/performance.md: widening against the output, narrowing against the
// input). The same alternation as ab_compare.cpp, for the element-wise engines. Usage
// (bench/ab/ab_ops.sh builds it from two trees):
//
//   ab_ops <rows> <cols> <threads> [calls]
//
// Kinds: 0 cast f32->f16, 1 cast of the transpose f32->bf16, 2 cast f32->f64, 3 map 2x+1,
// 4 map of the transpose, 5 zip_with(a + b) of the matrix and its transpose (square only).
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "ab_library.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F>
void measure(std::vector<double>& into, F&& run) {
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  run();
  const auto start = Clock::now();
  run();
  into.push_back(std::chrono::duration<double>(Clock::now() - start).count());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s <rows> <cols> <threads> [calls]\n", argv[0]);
    return 2;
  }
  const std::size_t rows = std::strtoull(argv[1], nullptr, 10);
  const std::size_t cols = std::strtoull(argv[2], nullptr, 10);
  const std::size_t threads = std::strtoull(argv[3], nullptr, 10);
  const int calls = argc > 4 ? std::atoi(argv[4]) : 15;
  if (rows == 0 || cols == 0 || threads == 0 || calls < 1) return 2;
  std::vector<float> src(rows * cols);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>(i % 1021) * 0.25f;
  const std::size_t out_bytes[] = {2, 2, 8, 4, 4, 4};
  const char* names[] = {"cast f32->f16", "cast f32->bf16 of the transpose", "cast f32->f64",
                         "map 2x+1",      "map 2x+1 of the transpose",       "zip_with a+b, a^T"};
  for (int kind = 0; kind < 6; ++kind) {
    if (kind == 5 && rows != cols) break;
    const std::size_t bytes = rows * cols * std::max<std::size_t>(4, out_bytes[kind]);
    std::vector<std::byte> ms(bytes, std::byte{1}), md(bytes);
    const strided_ab::Op op{kind, src.data(), rows, cols, threads};
    std::vector<double> t_memcpy, t_base, t_new;
    double check_base = 0, check_new = 0;
    for (int call = 0; call < calls; ++call) {
      measure(t_memcpy, [&] { std::memcpy(md.data(), ms.data(), bytes); });
      const auto base = [&] { measure(t_base, [&] { check_base = strided_ab_op_base(&op); }); };
      const auto next = [&] { measure(t_new, [&] { check_new = strided_ab_op_new(&op); }); };
      if (call % 2 == 0)
        base(), next();
      else
        next(), base();
    }
    const double m = median(t_memcpy);
    std::printf("%zux%zu %s, %zu threads, %d calls: base %.2f  new %.2f  (x memcpy)%s\n", rows,
                cols, names[kind], threads, calls, median(t_base) / m, median(t_new) / m,
                check_base == check_new ? "" : "  RESULTS DIFFER");
  }
}
