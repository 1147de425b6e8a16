// The reductions engine's entry points (strided/reduce.hpp's functions call them): the checks of
// the axes a user names, and one reduction of a strided view into a row-major buffer. The entry
// sees the view's bytes and Layout, never a Tensor; it is a template on the reduction and the
// element type only, so that a header-only program compiles just the reductions it calls and a
// compiled-mode one none (libstrided instantiates every pair, src/reduce.cpp). The definitions
// are in strided/detail/reduce-inl.hpp, which strided/reduce.hpp includes in header-only mode.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include <cstdint>

#include "strided/error.hpp"
#include "strided/layout.hpp"
#include "strided/result.hpp"
#include "strided/shape.hpp"

namespace strided::detail::reduce {

/// Which reduction: each fixes the per-element rule and the result type of strided/reduce.hpp.
enum class ReduceKind : std::uint8_t { sum, mean, min, max, argmin, argmax, var, std };

/// min / max / argmin / argmax have no identity: reducing an empty axis is an error.
constexpr bool needs_nonempty(ReduceKind k) noexcept {
  return k == ReduceKind::min || k == ReduceKind::max || k == ReduceKind::argmin ||
         k == ReduceKind::argmax;
}

/// One reduction of the axes set in `mask` of the view (`data`, `layout`).
struct ReduceArgs {
  const void* data = nullptr;      ///< the storage (element 0 of layout's offsets), of type T
  const Layout* layout = nullptr;  ///< the view read
  std::uint64_t mask = 0;          ///< the reduced axes, each < layout->rank()
  double correction = 1;           ///< var / std only: the count's correction
  void* out = nullptr;             ///< the result's elements, row-major, sized by the caller
  bool may_allocate = false;       ///< whether the engine may take heap scratch (not *_into)
};

/// Reduces as `args` says with reduction K of elements of type T (a built-in element type), on
/// the calling thread or on the pool; the result is bit-identical for any thread count.
template <ReduceKind K, class T>
void reduce_strided(const ReduceArgs& args);

/// The mask of the axes in `axes` (nullptr: every axis), each < rank and named once; with
/// `nonempty` (min, max, argmin, argmax: no identity), no reduced axis may have size 0.
STRIDED_FUNC Result<std::uint64_t> checked_mask(const char* op, const Shape& shape,
                                                const Shape* axes, bool nonempty);

/// The shape of the result: the kept axes, and the reduced ones as 1 with keepdim.
STRIDED_FUNC Shape reduced_shape(const Shape& shape, std::uint64_t mask, bool keepdim);

}  // namespace strided::detail::reduce
