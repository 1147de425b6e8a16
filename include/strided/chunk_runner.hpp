// ChunkRunner: how the library hands one parallel job to a thread pool (its own, or the
// application's executor of parallel.hpp).
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstddef>

namespace strided {

/// A borrowed reference to the function that runs the chunks of one parallel job: `run(i)` runs
/// chunk i. Cheap to copy; valid until the executor it was passed to returns.
class ChunkRunner {
 public:
  /// Refers to `f`, which must outlive the runner.
  template <class F>
  explicit ChunkRunner(F& f) noexcept
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* object, std::size_t i) { (*static_cast<F*>(object))(i); }) {}

  /// Runs chunk `i`.
  void operator()(std::size_t i) const { call_(object_, i); }

 private:
  void* object_;
  void (*call_)(void*, std::size_t);
};

}  // namespace strided
