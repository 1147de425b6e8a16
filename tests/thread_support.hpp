// A thread count for the length of a scope: tests that need one thread (or several) set it and
// get the caller's count back however they end.
#pragma once

#include <cstddef>

#include "strided/parallel.hpp"

namespace strided_test {

class ScopedThreadCount {
 public:
  explicit ScopedThreadCount(std::size_t n) noexcept { strided::set_num_threads(n); }
  ~ScopedThreadCount() { strided::set_num_threads(before_); }
  ScopedThreadCount(const ScopedThreadCount&) = delete;
  ScopedThreadCount& operator=(const ScopedThreadCount&) = delete;

 private:
  std::size_t before_ = strided::num_threads();
};

}  // namespace strided_test
