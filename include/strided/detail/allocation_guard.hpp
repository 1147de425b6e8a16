// The one point where std::bad_alloc becomes an error: Result functions never throw, yet a
// shape of more than 6 axes, a vector of views and an error's context live on the heap.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <new>
#include <utility>

#include "strided/error.hpp"

namespace strided {

namespace detail {

/// Runs `body` (returning a Result) and turns a std::bad_alloc it throws into the error
/// `on_bad_alloc()`. Result functions never throw (design §3), yet a shape of more than 6
/// axes, the vector of split/chunk/unbind and the context of an error live on the heap: every
/// public Result function that can touch such memory runs its body through this, the one place
/// where the exception becomes an error. Without exceptions, operator new itself terminates.
template <class F, class G>
constexpr auto guard_allocations(F&& body, G&& on_bad_alloc) -> decltype(body()) {
#if defined(__cpp_exceptions)
  try {
    return std::forward<F>(body)();
  } catch (const std::bad_alloc&) {
    return std::forward<G>(on_bad_alloc)();
  }
#else
  (void)on_bad_alloc;
  return std::forward<F>(body)();
#endif
}

/// guard_allocations for a Result whose error is ShapeError: allocation_failed in `op`.
template <class F>
constexpr auto guard_allocations(const char* op, F&& body) -> decltype(body()) {
  return guard_allocations(std::forward<F>(body), [op] { return ShapeError::out_of_memory(op); });
}

}  // namespace detail

}  // namespace strided
