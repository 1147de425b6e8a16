// The one point where std::bad_alloc becomes an error: Result functions never throw, yet a
// shape of more than 8 axes, a vector of views and an error's context live on the heap.
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
/// `on_bad_alloc()`. Result functions never throw (docs/errors.md), yet a shape of more than 8
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

// Out of line and cold: inlined, the relabelling makes every view op's guard too large to be
// inlined itself, and a view op costs a few nanoseconds (docs/views.md).
template <class R>
[[gnu::cold, gnu::noinline]] constexpr void label_error(R& out, const char* op) {
  // The error is relabelled where it lies: a copy could throw std::bad_alloc (shapes of more
  // than 8 axes), and assigning a new Result made GCC see the value's move as maybe-uninitialized.
  auto&& error = std::move(out).error();
  error = std::move(error).in(op);
}

/// guard_allocations for a Result whose error is ShapeError, which also labels: every error out
/// of `body` is reported as `op`'s, the exhausted memory (allocation_failed) and the error of a
/// step it calls (reshape inside flatten) alike, so a public function names its operation once.
template <class F>
constexpr auto guard_allocations(const char* op, F&& body) -> decltype(body()) {
  auto out =
      guard_allocations(std::forward<F>(body), [op] { return ShapeError::out_of_memory(op); });
  if (!out) [[unlikely]]
    label_error(out, op);
  return out;
}

/// guard_allocations(op, body) out of line and cold: the general path of an op whose common case
/// runs inline before it without allocating, so that the guard's try block does not keep GCC
/// from inlining that common case.
template <class F>
[[gnu::cold, gnu::noinline]] constexpr auto guard_allocations_cold(const char* op, F&& body)
    -> decltype(body()) {
  return guard_allocations(op, std::forward<F>(body));
}

}  // namespace detail

}  // namespace strided
