// The threads layer's implementation (declared in parallel.hpp and parallel_for.hpp): a
// persistent worker pool, started lazily, that runs the chunks of one large copy, cast or batch
// on several cores; or the application's own executor. Included by parallel_for.hpp in
// header-only mode, compiled into libstrided otherwise.
//
// The engines never see threads: an entry point (copy_strided, the cast entry, fill_batch) asks
// chunk_count() how many pieces its bytes are worth and hands parallel_for() a function that does
// one piece serially. Small work (chunk_count() == 1) never touches the pool, so no thread exists
// until the first large copy. A parallel_for called from inside a chunk, or while another thread
// has the pool, runs inline: there is one job slot and nobody ever waits for it.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include "strided/detail/parallel/fork.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/parallel.hpp"

namespace strided::detail {

/// The most threads STRIDED_NUM_THREADS may ask for: a larger count is taken for a typo.
inline constexpr std::size_t max_env_thread_count = 65536;
static_assert(max_env_thread_count == 65536, "parse_env_thread_count's message names the limit");

/// What the text of STRIDED_NUM_THREADS asks for: `count` threads, or 0 with the reason it cannot
/// be used in `problem` (nullptr, with count 0, when the variable is unset).
struct EnvThreadCount {
  std::size_t count = 0;
  const char* problem = nullptr;
};

/// Reads STRIDED_NUM_THREADS's text: a positive decimal count up to max_env_thread_count, digits
/// only (libgomp rejects digits followed by letters in OMP_NUM_THREADS likewise, where PyTorch's
/// stoi reads the leading digits).
inline EnvThreadCount parse_env_thread_count(const char* text) noexcept {
  if (text == nullptr) return {};
  if (*text == '\0') return {0, "is empty"};
  std::size_t value = 0;
  const char* end = text;
  for (; *end >= '0' && *end <= '9'; ++end) {
    value = value * 10 + static_cast<std::size_t>(*end - '0');
    if (value > max_env_thread_count) return {0, "asks for more than 65536 threads"};
  }
  if (end == text || *end != '\0') return {0, "is not a positive decimal integer"};
  if (value == 0) return {0, "asks for 0 threads (1 turns the pool off)"};
  return {value, nullptr};
}

/// std::thread::hardware_concurrency(), or 1 when it is unknown.
inline std::size_t hardware_thread_count() noexcept {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

/// The default thread count: STRIDED_NUM_THREADS's (`env_text`) when it is valid, else the
/// hardware's. A set but invalid value is reported on `report_to` (an environment variable has
/// no caller to return an error to, and a silently ignored setting looks like a slow machine).
inline std::size_t default_thread_count(const char* env_text, std::FILE* report_to) noexcept {
  const EnvThreadCount env = parse_env_thread_count(env_text);
  if (env.count != 0) return env.count;
  const std::size_t hardware = hardware_thread_count();
  if (env.problem != nullptr && report_to != nullptr) {
    const bool cut = std::strlen(env_text) > 40;
    std::fprintf(report_to,
                 "strided: STRIDED_NUM_THREADS=\"%.40s%s\" %s; using the hardware thread count, "
                 "%zu\n",
                 env_text, cut ? "..." : "", env.problem, hardware);
  }
  return hardware;
}

/// True on pool workers and while a thread runs a chunk: a copy made there runs inline.
inline thread_local bool in_parallel_region = false;

class RegionGuard {
 public:
  RegionGuard() noexcept : saved_(in_parallel_region) { in_parallel_region = true; }
  ~RegionGuard() { in_parallel_region = saved_; }
  RegionGuard(const RegionGuard&) = delete;
  RegionGuard& operator=(const RegionGuard&) = delete;

 private:
  bool saved_;
};

/// How long a worker looks for the next job, and the publisher for its helpers to finish, before
/// sleeping on a condition variable. Waking a sleeping thread costs about as long as copying a
/// few hundred KiB, so two short chunks on two woken threads finish later than on one; copies in
/// a loop (a data loader, a benchmark) find a worker still looking.
inline constexpr std::chrono::microseconds pool_spin_time{250};

/// Calls done() until it returns true or pool_spin_time has passed; returns its last answer.
template <class Done>
bool spin_until(Done&& done) noexcept {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned i = 1;; ++i) {
    if (done()) return true;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > pool_spin_time) return done();
  }
}

/// One job slot and the threads that serve it. Only the thread that won `busy_` touches threads_
/// and publishes a job; workers join a job under mutex_ and the publisher waits, under mutex_,
/// until every worker that joined has left before it retires the job. The counters are atomic
/// only so that both sides can look at them while spinning; they change under mutex_.
class Pool {
 public:
  Pool() = default;
  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  /// Runs chunks [0, count) on the caller and up to `helpers` workers. False (nothing run) when
  /// another thread has the pool.
  bool try_run(std::size_t count, std::size_t helpers, ChunkRunner run) {
    if (busy_.exchange(true, std::memory_order_acquire)) return false;
    helpers = std::min(helpers, start_workers(helpers));
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      run_ = &run;
      count_ = count;
      helpers_ = helpers;
      next_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_release);
    }
    wake_.notify_all();
    {
      const RegionGuard region;
      claim_chunks(run, count);
    }
    spin_until([&] { return in_job_.load(std::memory_order_acquire) == 0; });
    {
      std::unique_lock<std::mutex> lock(mutex_);
      left_.wait(lock, [&] { return in_job_.load(std::memory_order_relaxed) == 0; });
      run_ = nullptr;
    }
    busy_.store(false, std::memory_order_release);
    return true;
  }

  std::size_t started_workers() const noexcept { return started_.load(std::memory_order_acquire); }

 private:
  void claim_chunks(const ChunkRunner& run, std::size_t count) {
    for (std::size_t i = next_.fetch_add(1, std::memory_order_relaxed); i < count;
         i = next_.fetch_add(1, std::memory_order_relaxed))
      run(i);
  }

  // Starts workers up to `wanted`; returns how many exist (fewer when the system refuses).
  std::size_t start_workers(std::size_t wanted) {
    while (threads_.size() < wanted) {
      const std::size_t index = threads_.size();
#if defined(__cpp_exceptions)
      try {
        threads_.emplace_back([this, index] { serve(index); });
      } catch (...) {
        break;
      }
#else
      threads_.emplace_back([this, index] { serve(index); });
#endif
      started_.store(threads_.size(), std::memory_order_release);
    }
    return threads_.size();
  }

  void serve(std::size_t index) {
    in_parallel_region = true;
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      lock.unlock();
      spin_until([&] { return generation_.load(std::memory_order_acquire) != seen; });
      lock.lock();
      wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
      seen = generation_.load(std::memory_order_relaxed);
      if (run_ == nullptr || index >= helpers_) continue;
      in_job_.fetch_add(1, std::memory_order_relaxed);
      const ChunkRunner* run = run_;
      const std::size_t count = count_;
      lock.unlock();
      claim_chunks(*run, count);
      lock.lock();
      if (in_job_.fetch_sub(1, std::memory_order_release) == 1) left_.notify_one();
    }
  }

  std::atomic<bool> busy_{false};
  std::vector<std::thread> threads_;  // never joined: the pool lives until the process ends
  std::atomic<std::size_t> started_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable left_;
  std::atomic<std::uint64_t> generation_{0};
  const ChunkRunner* run_ = nullptr;
  std::size_t count_ = 0;
  std::size_t helpers_ = 0;
  std::atomic<std::size_t> in_job_{0};
  std::atomic<std::size_t> next_{0};
};

/// The process-wide settings and pool. Never destroyed: workers blocked in the pool at exit, and
/// copies made during static destruction, still find it alive.
class ParallelState {
 public:
  /// The settings of a process whose STRIDED_NUM_THREADS is `env_text` (nullptr: unset); an
  /// invalid value is reported on `report_to`. The process's own state reads the variable once,
  /// at the library's first parallel use: getenv is not safe against a setenv on another thread,
  /// and a bad value is reported once, not at every set_num_threads(0).
  ParallelState(const char* env_text, std::FILE* report_to) noexcept
      : default_threads_(default_thread_count(env_text, report_to)), threads_(default_threads_) {}

  std::size_t threads() const noexcept { return threads_.load(std::memory_order_relaxed); }
  /// n threads; 0: the default this state started with.
  void set_threads(std::size_t n) noexcept {
    threads_.store(n == 0 ? default_threads_ : n, std::memory_order_relaxed);
  }

  std::shared_ptr<const ParallelExecutor> executor() const {
    if (!has_executor_.load(std::memory_order_acquire)) return nullptr;
    const std::lock_guard<std::mutex> lock(executor_mutex_);
    return executor_;
  }
  void set_executor(ParallelExecutor executor) {
    auto made = executor ? std::make_shared<const ParallelExecutor>(std::move(executor)) : nullptr;
    const std::lock_guard<std::mutex> lock(executor_mutex_);
    executor_ = std::move(made);
    has_executor_.store(executor_ != nullptr, std::memory_order_release);
  }

  /// The pool, made on first use.
  Pool& pool() {
    Pool* p = pool_.load(std::memory_order_acquire);
    if (p != nullptr) return *p;
    auto* made = new Pool();
    if (pool_.compare_exchange_strong(p, made, std::memory_order_acq_rel)) return *made;
    delete made;
    return *p;
  }
  Pool* pool_if_started() const noexcept { return pool_.load(std::memory_order_acquire); }

  // Fork: the child has only the forking thread, so the parent's workers are gone. It gets a
  // fresh pool on its next large copy; the old one is abandoned (its mutex may be held by a thread
  // that no longer exists, and its threads cannot be joined). The executor's lock is taken around
  // fork so that the child never inherits it held.
  void before_fork() noexcept { executor_mutex_.lock(); }
  void after_fork_in_parent() noexcept { executor_mutex_.unlock(); }
  void after_fork_in_child() noexcept {
    executor_mutex_.unlock();
    pool_.store(nullptr, std::memory_order_release);
  }

 private:
  const std::size_t default_threads_;
  std::atomic<std::size_t> threads_;
  std::atomic<Pool*> pool_{nullptr};
  std::atomic<bool> has_executor_{false};
  mutable std::mutex executor_mutex_;
  std::shared_ptr<const ParallelExecutor> executor_;
};

inline ParallelState& parallel_state() noexcept {
  alignas(ParallelState) static unsigned char storage[sizeof(ParallelState)];
  static ParallelState* const state = [] {
    auto* made = ::new (static_cast<void*>(storage))
        ParallelState(std::getenv("STRIDED_NUM_THREADS"), stderr);
    register_fork_handlers([] { parallel_state().before_fork(); },
                           [] { parallel_state().after_fork_in_parent(); },
                           [] { parallel_state().after_fork_in_child(); });
    return made;
  }();
  return *state;
}

STRIDED_FUNC std::size_t pool_worker_count() noexcept {
  const Pool* p = parallel_state().pool_if_started();
  return p == nullptr ? 0 : p->started_workers();
}

STRIDED_FUNC std::size_t chunk_count(std::size_t bytes) noexcept {
  if (bytes < parallel_threshold_bytes || in_parallel_region) return 1;
  const std::size_t threads = parallel_state().threads();
  if (threads <= 1) return 1;
  const std::size_t most =
      threads > SIZE_MAX / chunks_per_thread ? SIZE_MAX : threads * chunks_per_thread;
  return std::clamp<std::size_t>(bytes / min_chunk_bytes, 2, most);
}

STRIDED_FUNC void run_chunks(std::size_t chunks, ChunkRunner run) {
  auto serial = [&] {
    for (std::size_t i = 0; i < chunks; ++i) run(i);
  };
  if (chunks < 2 || in_parallel_region) return serial();
  ParallelState& state = parallel_state();
  if (const auto executor = state.executor()) {
    auto in_region = [&](std::size_t i) {
      const RegionGuard region;
      run(i);
    };
    return (*executor)(chunks, ChunkRunner(in_region));
  }
  const std::size_t threads = state.threads();
  if (threads <= 1) return serial();
  if (!state.pool().try_run(chunks, std::min(threads, chunks) - 1, run)) serial();
}

}  // namespace strided::detail

namespace strided {

STRIDED_FUNC void set_num_threads(std::size_t n) noexcept {
  detail::parallel_state().set_threads(n);
}

STRIDED_FUNC std::size_t num_threads() noexcept { return detail::parallel_state().threads(); }

STRIDED_FUNC void set_parallel_executor(ParallelExecutor executor) {
  detail::parallel_state().set_executor(std::move(executor));
}

}  // namespace strided
