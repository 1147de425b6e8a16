// The buffer cache (strided/buffer_cache.hpp): freed buffers of >= 2 MiB are reused by the next
// allocation of the same 2 MiB size class, within a byte limit, least recently freed evicted
// first; never one block for two live tensors; factories still write their values into recycled
// (dirty) blocks. Under ASan/MSan the cache is compiled out: those builds check that it stays off.
#include "strided/buffer_cache.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include "catch_shim.hpp"
#include "strided/batch.hpp"
#include "strided/detail/buffer.hpp"
#include "strided/tensor.hpp"

namespace {

using strided::Shape;
using strided::Tensor;

constexpr std::size_t MiB = std::size_t{1} << 20;

// Restores the limit a test found and empties the cache on both ends, so that tests do not see
// each other's blocks when Catch runs them in one process.
struct CacheScope {
  std::size_t saved = strided::buffer_cache_limit();
  explicit CacheScope(std::size_t limit) {
    strided::release_buffer_cache();
    strided::set_buffer_cache_limit(limit);
  }
  CacheScope(const CacheScope&) = delete;
  CacheScope& operator=(const CacheScope&) = delete;
  ~CacheScope() {
    strided::release_buffer_cache();
    strided::set_buffer_cache_limit(saved);
  }
};

// A float tensor of `bytes` bytes (a multiple of 4), filled with `value`.
Tensor<float> filled(std::size_t bytes, float value) {
  return Tensor<float>::full({bytes / sizeof(float)}, value).value();
}

bool all_equal(const Tensor<float>& t, float value) {
  const auto values = t.as_slice().value();
  return std::all_of(values.begin(), values.end(), [&](float v) { return v == value; });
}

}  // namespace

TEST_CASE("buffer cache: parsing STRIDED_BUFFER_CACHE_BYTES", "[buffer_cache]") {
  using strided::detail::parse_cache_bytes;
  std::size_t out = 7;
  CHECK(parse_cache_bytes("0", out));
  CHECK(out == 0);
  CHECK(parse_cache_bytes("12345", out));
  CHECK(out == 12345);
  CHECK(parse_cache_bytes("3K", out));
  CHECK(out == 3 * 1024);
  CHECK(parse_cache_bytes("256M", out));
  CHECK(out == 256 * MiB);
  CHECK(parse_cache_bytes("2g", out));
  CHECK(out == 2048 * MiB);
  out = 7;
  for (const char* bad :
       {"", "M", "-1", " 5", "5 ", "5MB", "1.5G", "99999999999999999999", "17179869184G"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_cache_bytes(bad, out));
    CHECK(out == 7);
  }
  CHECK_FALSE(parse_cache_bytes(nullptr, out));
}

#if defined(__unix__) || defined(__APPLE__)
// The starting limit comes from STRIDED_BUFFER_CACHE_BYTES when it parses (the process-wide
// cache reads it once, at its first use; this calls the function it uses directly).
TEST_CASE("buffer cache: the starting limit from the environment", "[buffer_cache]") {
  using strided::detail::initial_buffer_cache_limit;
  const std::size_t on = strided::buffer_cache_available ? 1 : 0;  // compiled out: always 0
  const std::size_t fallback = on * strided::detail::default_buffer_cache_limit();
  REQUIRE(::setenv("STRIDED_BUFFER_CACHE_BYTES", "96M", 1) == 0);
  CHECK(initial_buffer_cache_limit() == on * 96 * MiB);
  REQUIRE(::setenv("STRIDED_BUFFER_CACHE_BYTES", "0", 1) == 0);
  CHECK(initial_buffer_cache_limit() == 0);
  REQUIRE(::setenv("STRIDED_BUFFER_CACHE_BYTES", "lots", 1) == 0);
  CHECK(initial_buffer_cache_limit() == fallback);
  REQUIRE(::unsetenv("STRIDED_BUFFER_CACHE_BYTES") == 0);
  CHECK(initial_buffer_cache_limit() == fallback);
}
#endif

TEST_CASE("buffer cache: the default limit", "[buffer_cache]") {
  const std::size_t limit = strided::detail::default_buffer_cache_limit();
  CHECK(limit <= 512 * MiB);
  CHECK(limit > 0);
}

#if STRIDED_DETAIL_BUFFER_CACHE

namespace {
const void* address(const Tensor<float>& t) { return t.storage().get(); }
}  // namespace

TEST_CASE("buffer cache: a dropped large buffer is reused by the next of its size class",
          "[buffer_cache]") {
  const CacheScope scope(64 * MiB);
  const auto before = strided::buffer_cache_stats();
  const void* first = nullptr;
  {
    const Tensor<float> a = filled(3 * MiB, 1.0f);
    first = address(a);
    CHECK(reinterpret_cast<std::uintptr_t>(first) % strided::detail::huge_page_size == 0);
  }
  auto stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 1);
  CHECK(stats.cached_bytes == 4 * MiB);  // 3 MiB rounded up to the 2 MiB class
  // 3.5 MiB is in the same class (4 MiB): it gets the same block
  const Tensor<float> b = filled(3 * MiB + MiB / 2, 2.0f);
  CHECK(address(b) == first);
  CHECK(all_equal(b, 2.0f));
  stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 0);
  CHECK(stats.cached_bytes == 0);
  CHECK(stats.hits == before.hits + 1);
  CHECK(stats.misses == before.misses + 1);
}

TEST_CASE("buffer cache: a live tensor's block is never handed out again", "[buffer_cache]") {
  const CacheScope scope(64 * MiB);
  { const Tensor<float> a = filled(3 * MiB, 1.0f); }
  const Tensor<float> b = filled(3 * MiB, 2.0f);  // takes a's block
  Tensor<float> c = filled(3 * MiB, 3.0f);        // the cache is empty now: a fresh block
  CHECK(address(b) != address(c));
  CHECK(all_equal(b, 2.0f));
  CHECK(all_equal(c, 3.0f));
  // a view keeps the buffer alive: nothing goes back to the cache while it exists
  const void* kept = address(c);
  Tensor<float> view = c.narrow(0, 1, 10).value();
  c = Tensor<float>::scalar(0.0f);  // drops c's reference; the view still holds the buffer
  CHECK(strided::buffer_cache_stats().cached_blocks == 0);
  const Tensor<float> d = filled(3 * MiB, 4.0f);
  CHECK(address(d) != kept);
  CHECK(view.storage().get() == kept);
  CHECK(all_equal(view.contiguous(), 3.0f));
}

TEST_CASE("buffer cache: other size classes and small buffers are not reused", "[buffer_cache]") {
  const CacheScope scope(64 * MiB);
  { const Tensor<float> a = filled(3 * MiB, 1.0f); }  // class 4 MiB
  const auto before = strided::buffer_cache_stats();
  {
    const Tensor<float> b = filled(5 * MiB, 2.0f);  // class 6 MiB: a miss, the 4 MiB block stays
    CHECK(all_equal(b, 2.0f));
  }
  auto stats = strided::buffer_cache_stats();
  CHECK(stats.misses == before.misses + 1);
  CHECK(stats.cached_blocks == 2);
  CHECK(stats.cached_bytes == 10 * MiB);
  { const Tensor<float> small = filled(MiB, 3.0f); }  // below 2 MiB: plain operator new/delete
  stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 2);
  CHECK(stats.misses == before.misses + 1);
}

TEST_CASE("buffer cache: the byte limit holds, least recently freed evicted first",
          "[buffer_cache]") {
  const CacheScope scope(8 * MiB);
  std::vector<std::optional<Tensor<float>>> live;
  for (int i = 0; i < 5; ++i) live.emplace_back(filled(3 * MiB, static_cast<float>(i)));
  std::vector<const void*> addresses;
  for (const auto& t : live) addresses.push_back(address(*t));
  // Frees 0, 1, 2, 3, 4 in that order (vector::clear's order differs between standard
  // libraries): only the last two 4 MiB blocks fit.
  for (auto& t : live) t.reset();
  auto stats = strided::buffer_cache_stats();
  CHECK(stats.cached_bytes == 8 * MiB);
  CHECK(stats.cached_blocks == 2);
  // the most recently freed block comes back first
  const Tensor<float> x = filled(3 * MiB, 9.0f);
  const Tensor<float> y = filled(3 * MiB, 9.0f);
  CHECK(address(x) == addresses[4]);
  CHECK(address(y) == addresses[3]);
  // a block larger than the whole limit is freed, not cached
  { const Tensor<float> big = filled(10 * MiB, 1.0f); }
  CHECK(strided::buffer_cache_stats().cached_blocks == 0);
  // lowering the limit frees what no longer fits
  strided::set_buffer_cache_limit(64 * MiB);
  { const Tensor<float> a = filled(3 * MiB, 1.0f), b = filled(5 * MiB, 1.0f); }
  CHECK(strided::buffer_cache_stats().cached_bytes == 10 * MiB);
  strided::set_buffer_cache_limit(7 * MiB);
  stats = strided::buffer_cache_stats();
  CHECK(stats.cached_bytes <= 7 * MiB);
  CHECK(stats.cached_blocks == 1);
  CHECK(stats.limit_bytes == 7 * MiB);
}

TEST_CASE("buffer cache: at most max_blocks blocks", "[buffer_cache]") {
  constexpr std::size_t max = strided::detail::BufferCache::max_blocks;
  const CacheScope scope(4096 * MiB);
  std::vector<Tensor<float>> live;
  for (std::size_t i = 0; i < max + 3; ++i) live.push_back(filled(2 * MiB, 1.0f));
  live.clear();
  const auto stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == max);
  CHECK(stats.cached_bytes == max * 2 * MiB);
}

TEST_CASE("buffer cache: limit 0 disables it; release empties it", "[buffer_cache]") {
  const CacheScope scope(64 * MiB);
  { const Tensor<float> a = filled(3 * MiB, 1.0f), b = filled(5 * MiB, 1.0f); }
  CHECK(strided::buffer_cache_stats().cached_blocks == 2);
  strided::release_buffer_cache();
  auto stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 0);
  CHECK(stats.cached_bytes == 0);
  CHECK(stats.limit_bytes == 64 * MiB);  // release keeps the limit

  { const Tensor<float> a = filled(3 * MiB, 1.0f); }
  CHECK(strided::buffer_cache_stats().cached_blocks == 1);
  strided::set_buffer_cache_limit(0);  // frees what is held
  stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 0);
  CHECK(stats.limit_bytes == 0);
  const auto before = strided::buffer_cache_stats();
  {
    const Tensor<float> a = filled(3 * MiB, 1.0f);
    CHECK(all_equal(a, 1.0f));
  }
  stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 0);
  CHECK(stats.hits == before.hits);
  CHECK(stats.misses == before.misses);  // disabled: not even asked
}

TEST_CASE("buffer cache: factories write their values into a recycled dirty block",
          "[buffer_cache]") {
  const CacheScope scope(64 * MiB);
  constexpr std::size_t n = 3 * MiB / sizeof(float);
  const void* block = nullptr;
  auto dirty = [&] {
    const Tensor<float> t = filled(3 * MiB, -7.25f);
    block = address(t);
  };
  dirty();
  const Tensor<float> z = Tensor<float>::zeros({n}).value();
  CHECK(address(z) == block);
  CHECK(all_equal(z, 0.0f));
  dirty();
  const Tensor<float> o = Tensor<float>::ones({n / 4, 4}).value();
  CHECK(address(o) == block);
  CHECK(all_equal(o, 1.0f));

  // from_slice, contiguous(), cast and stack_samples overwrite every byte too
  dirty();
  std::vector<float> src(n);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i % 1000);
  const Tensor<float> s = Tensor<float>::from_slice(src, {n}).value();
  CHECK(address(s) == block);
  CHECK(s.to_vector() == src);

  const Tensor<float> square = Tensor<float>::from_slice(src, {n / 1024, 1024}).value();
  dirty();
  const Tensor<float> t = square.transpose(0, 1).value().contiguous();
  CHECK(address(t) == block);
  CHECK(*t.get({3, 5}) == src[5 * 1024 + 3]);

  dirty();
  const Tensor<std::int32_t> ints = s.cast<std::int32_t>().value();
  CHECK(ints.storage().get() == block);
  CHECK(*ints.get({n - 1}) == static_cast<std::int32_t>((n - 1) % 1000));

  dirty();
  std::vector<Tensor<float>> samples;
  for (int i = 0; i < 4; ++i) samples.push_back(Tensor<float>::full({n / 4}, 0.5f).value());
  const Tensor<float> stacked = strided::stack_samples(samples).value();
  CHECK(address(stacked) == block);
  CHECK(all_equal(stacked, 0.5f));
}

// The loop of docs/batches.md ("Reusing batch buffers"): from the second step on, each batch gets
// the buffer of the one before it.
TEST_CASE("buffer cache: a data-loader loop reuses the previous batch's buffer", "[buffer_cache]") {
  const CacheScope scope(strided::buffer_cache_limit());
  std::vector<Tensor<float>> samples;
  for (int i = 0; i < 64; ++i) samples.push_back(Tensor<float>::full({3, 64, 64}, 1.0f).value());
  const auto before = strided::buffer_cache_stats();
  std::vector<const void*> buffers;
  double total = 0;
  strided::set_buffer_cache_limit(std::size_t{256} << 20);  // or STRIDED_BUFFER_CACHE_BYTES=256M
  for (int step = 0; step < 4; ++step) {
    auto batch = strided::stack_samples(samples);  // [64, 3, 64, 64] f32: 3 MiB
    if (!batch) break;
    total += static_cast<double>(*batch->get({0, 0, 0, 0}));  // ... train on *batch ...
    buffers.push_back(batch->storage().get());
  }  // each step's batch dies here, and its buffer waits in the cache for the next step
  strided::release_buffer_cache();  // e.g. before a phase that needs the memory elsewhere
  CHECK(total == 4.0);
  REQUIRE(buffers.size() == 4);
  CHECK(buffers[1] == buffers[0]);
  CHECK(buffers[3] == buffers[0]);
  const auto after = strided::buffer_cache_stats();
  CHECK(after.hits == before.hits + 3);
  CHECK(after.cached_blocks == 0);
}

TEST_CASE("buffer cache: threads allocating and dropping concurrently", "[buffer_cache]") {
  const CacheScope scope(24 * MiB);  // smaller than what the threads hold: constant eviction
  constexpr int threads = 8;
  constexpr int iterations = 150;
  std::atomic<long> wrong{0};
  std::vector<std::thread> pool;
  for (int id = 0; id < threads; ++id) {
    pool.emplace_back([id, &wrong] {
      std::vector<Tensor<float>> held;
      std::vector<float> values;
      for (int i = 0; i < iterations; ++i) {
        // two size classes, 4 and 6 MiB; each thread keeps two tensors alive at a time
        const std::size_t bytes = (i + id) % 3 == 0 ? 5 * MiB : 3 * MiB;
        const float value = static_cast<float>(id * 100000 + i);
        held.push_back(Tensor<float>::full({bytes / sizeof(float)}, value).value());
        values.push_back(value);
        if (held.size() > 2) {
          held.erase(held.begin());
          values.erase(values.begin());
        }
        std::this_thread::yield();
        // a block handed to two live tensors would show another tensor's values here
        for (std::size_t k = 0; k < held.size(); ++k) {
          const auto v = held[k].as_slice().value();
          if (v.front() != values[k] || v[v.size() / 2] != values[k] || v.back() != values[k])
            ++wrong;
        }
      }
    });
  }
  for (auto& t : pool) t.join();
  CHECK(wrong == 0);
  const auto stats = strided::buffer_cache_stats();
  CHECK(stats.cached_bytes <= 24 * MiB);
  CHECK(stats.hits > 0);
}

#else  // the cache is compiled out (sanitizers or STRIDED_NO_BUFFER_CACHE)

TEST_CASE("buffer cache: compiled out, it stays disabled", "[buffer_cache]") {
  STATIC_REQUIRE(!strided::buffer_cache_available);
  strided::set_buffer_cache_limit(64 * MiB);
  CHECK(strided::buffer_cache_limit() == 0);
  { const Tensor<float> a = filled(3 * MiB, 1.0f); }
  const auto stats = strided::buffer_cache_stats();
  CHECK(stats.cached_blocks == 0);
  CHECK(stats.hits == 0);
  const Tensor<float> z = Tensor<float>::zeros({3 * MiB / sizeof(float)}).value();
  CHECK(all_equal(z, 0.0f));
}

#endif
