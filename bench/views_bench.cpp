// View operations: nanoseconds and heap allocations per op, beside a std::shared_ptr copy (the
// floor: every view copies the buffer handle). Allocations are counted by replacing the global
// operator new in this binary (docs/performance.md).
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <new>
#include <strided/tensor.hpp>

#if defined(__GNUC__) && !defined(__clang__)
// GCC pairs the replaced operators below with the library's inlined ones and warns wrongly.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace {
std::atomic<std::size_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {
using strided::Shape;
using strided::Tensor;

Tensor<float> make(std::size_t rank) {
  Shape shape(rank, 2);
  shape[0] = 8;
  return Tensor<float>::zeros(shape).value();
}

// Runs `op` in the benchmark loop and reports allocations per op.
template <class Op>
void run(benchmark::State& state, Op op) {
  const std::size_t before = allocations.load();
  for (auto _ : state) benchmark::DoNotOptimize(op());
  const std::size_t after = allocations.load();
  state.counters["allocs_per_op"] =
      static_cast<double>(after - before) / static_cast<double>(state.iterations());
}

void BM_shared_ptr_copy(benchmark::State& state) {
  auto p = std::make_shared<float>(1.0f);
  run(state, [&] { return std::shared_ptr<float>(p); });
}

void BM_transpose(benchmark::State& state) {
  const auto t = make(static_cast<std::size_t>(state.range(0)));
  run(state, [&] { return t.transpose(0, 1); });
}

void BM_permute(benchmark::State& state) {
  const auto rank = static_cast<std::size_t>(state.range(0));
  const auto t = make(rank);
  Shape perm(rank, 0);
  for (std::size_t k = 0; k < rank; ++k) perm[k] = rank - 1 - k;
  run(state, [&] { return t.permute(perm); });
}

void BM_narrow(benchmark::State& state) {
  const auto t = make(static_cast<std::size_t>(state.range(0)));
  run(state, [&] { return t.narrow(0, 2, 4); });
}

void BM_reshape(benchmark::State& state) {
  const auto rank = static_cast<std::size_t>(state.range(0));
  const auto t = make(rank);
  Shape target = t.shape();
  target[0] = 4;
  target[1] *= 2;
  run(state, [&] { return t.reshape(target); });
}

void BM_broadcast_to(benchmark::State& state) {
  const auto rank = static_cast<std::size_t>(state.range(0));
  const auto t = make(rank);
  const auto base = t.narrow(0, 0, 1).value();  // leading axis of size 1 to broadcast
  Shape grown = base.shape();
  grown[0] = 8;
  run(state, [&] { return base.broadcast_to(grown); });
}

// Rank-raising broadcast: make(rank) to `added` new leading axes of size 3 (NumPy's rule for a
// target of higher rank), the case that cannot reuse the source's axes in place.
void BM_broadcast_to_lead(benchmark::State& state) {
  const auto rank = static_cast<std::size_t>(state.range(0));
  const auto added = static_cast<std::size_t>(state.range(1));
  const auto t = make(rank);
  Shape grown(added, 3);
  for (std::size_t size : t.shape()) grown.push_back(size);
  run(state, [&] { return t.broadcast_to(grown); });
}

void BM_is_contiguous(benchmark::State& state) {
  const auto t = make(static_cast<std::size_t>(state.range(0))).transpose(0, 1).value();
  run(state, [&] { return t.is_contiguous(); });
}

void BM_get(benchmark::State& state) {
  const auto rank = static_cast<std::size_t>(state.range(0));
  const auto t = make(rank);
  const Shape index(rank, 1);
  run(state, [&] { return t.get(index); });
}

void ranks(benchmark::internal::Benchmark* b) { b->Arg(4)->Arg(6)->Arg(8); }

// An extended view op on make(rank), with no setup outside the loop.
#define STRIDED_VIEW_BENCH(name, expr)                             \
  void BM_##name(benchmark::State& state) {                        \
    const auto t = make(static_cast<std::size_t>(state.range(0))); \
    run(state, [&] { return expr; });                              \
  }                                                                \
  BENCHMARK(BM_##name)->Apply(ranks)

STRIDED_VIEW_BENCH(slice_step2, t.slice(0, 1, strided::slice_end, 2));
STRIDED_VIEW_BENCH(flip, t.flip(1));
STRIDED_VIEW_BENCH(select, t.select(1, 1));
STRIDED_VIEW_BENCH(squeeze_all, t.squeeze());
STRIDED_VIEW_BENCH(unsqueeze, t.unsqueeze(1));
STRIDED_VIEW_BENCH(unsqueeze_front, t.unsqueeze(0));
STRIDED_VIEW_BENCH(unflatten, t.unflatten(0, {2, strided::infer}));
STRIDED_VIEW_BENCH(flatten, t.flatten(1, 2));
STRIDED_VIEW_BENCH(movedim, t.movedim(0, t.rank() - 1));
STRIDED_VIEW_BENCH(diagonal, t.diagonal(0, 1, 2));
}  // namespace

BENCHMARK(BM_shared_ptr_copy);
BENCHMARK(BM_transpose)->Apply(ranks);
BENCHMARK(BM_permute)->Apply(ranks);
BENCHMARK(BM_narrow)->Apply(ranks);
BENCHMARK(BM_reshape)->Apply(ranks);
BENCHMARK(BM_broadcast_to)->Apply(ranks);
BENCHMARK(BM_broadcast_to_lead)->Args({4, 1})->Args({4, 2})->Args({5, 1})->Args({7, 1});
BENCHMARK(BM_is_contiguous)->Apply(ranks);
BENCHMARK(BM_get)->Apply(ranks);
BENCHMARK_MAIN();
