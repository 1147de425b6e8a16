// Thread-safety stress test (run under TSan in CI): 8 threads share a pool of tensors and, for a
// fixed number of iterations each, copy, view, materialise, cast, print and drop them, replacing
// pool entries with their own views so that buffers are shared and released across threads.
// Every result is checked against values computed before the threads start.
#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch_shim.hpp"
#include "strided/batch.hpp"
#include "strided/tensor.hpp"

namespace {

using strided::Shape;
using strided::Tensor;

constexpr int kThreads = 8;
constexpr int kIterations = 2000;
constexpr std::size_t kPool = 16;

/// A pool slot: a tensor and the row-major values it must hold. Slots are swapped under a mutex
/// (the tensor object is not atomic); the tensors themselves are read without any lock.
struct Slot {
  std::mutex m;
  Tensor<std::int32_t> t = Tensor<std::int32_t>::scalar(0);
  std::vector<std::int32_t> values{0};
};

std::vector<std::int32_t> reference(const Tensor<std::int32_t>& t) {
  std::vector<std::int32_t> out;
  Shape idx(t.rank(), 0);
  for (std::size_t n = 0; n < t.numel(); ++n) {
    out.push_back(*t.get(idx));
    for (std::size_t k = t.rank(); k-- > 0;) {
      if (++idx[k] < t.shape()[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("stress: 8 threads share, view, materialise, cast, print and drop tensors", "[stress]") {
  std::array<Slot, kPool> pool;
  for (std::size_t i = 0; i < kPool; ++i) {
    std::vector<std::int32_t> v(24 * (i + 1));
    for (std::size_t j = 0; j < v.size(); ++j) v[j] = static_cast<std::int32_t>(j * 7 + i);
    pool[i].values = v;
    pool[i].t = Tensor<std::int32_t>::from_vector(std::move(v), {4, 6 * (i + 1)}).value();
  }
  std::atomic<long> checks{0}, failures{0};

  auto worker = [&](int id) {
    std::mt19937 rng(static_cast<unsigned>(id) * 7919u + 1u);
    auto expect = [&](bool ok) {
      checks.fetch_add(1, std::memory_order_relaxed);
      if (!ok) failures.fetch_add(1, std::memory_order_relaxed);
    };
    for (int it = 0; it < kIterations; ++it) {
      Slot& slot = pool[rng() % kPool];
      Tensor<std::int32_t> t = Tensor<std::int32_t>::scalar(0);
      std::vector<std::int32_t> want;
      {
        std::lock_guard<std::mutex> lock(slot.m);
        t = slot.t;  // a copy: shares the buffer with the pool and with other threads
        want = slot.values;
      }
      expect(t.to_vector() == want);
      const Tensor<std::int32_t> dense = t.contiguous();
      expect(dense.to_vector() == want);
      const auto cast = t.cast<double>();
      expect(cast.has_value() && cast->numel() == want.size() &&
             std::equal(want.begin(), want.end(), cast->as_slice().value().begin(),
                        [](std::int32_t w, double c) { return c == static_cast<double>(w); }));
      expect(strided::to_string(t) == strided::to_string(dense));
      expect(strided::equal(t, dense));

      // A new view of the shared buffer, checked, then published back to the pool (the old
      // tensor is dropped by whichever thread releases the last reference).
      Tensor<std::int32_t> view = t;
      switch (rng() % 5) {
        case 0:
          if (t.rank() >= 2) view = t.transpose(0, t.rank() - 1).value();
          break;
        case 1:
          if (t.rank() >= 1) view = t.flip(0).value();
          break;
        case 2:
          if (t.rank() >= 1 && t.shape()[0] > 1) view = t.narrow(0, 1, t.shape()[0] - 1).value();
          break;
        case 3:
          view = t.unsqueeze(0).value();
          break;
        default:
          view = dense.reshape({strided::infer}).value();
          break;
      }
      std::vector<std::int32_t> view_values = reference(view);
      expect(view.to_vector() == view_values);
      if (view.rank() <= 6 && view.numel() > 0) {
        {
          std::lock_guard<std::mutex> lock(slot.m);
          slot.t = view;
          slot.values = view_values;
        }
      }
      // Batching several shared tensors.
      const std::vector<Tensor<std::int32_t>> parts{t, t};
      const auto batch = strided::stack_samples(parts);
      expect(batch.has_value() && batch->numel() == 2 * t.numel());
    }
  };

  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i);
  for (std::thread& th : threads) th.join();
  INFO(checks.load() << " checks");
  CHECK(checks.load() == long{kThreads} * kIterations * 7);
  CHECK(failures.load() == 0);
}
