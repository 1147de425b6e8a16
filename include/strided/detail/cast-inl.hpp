// The cast engine's fast paths (declared in cast.hpp): the SIMD kernels of the active ISA level
// and the split over the pool. Included by cast.hpp in header-only mode; libstrided instantiates
// every built-in pair otherwise.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "strided/detail/cast.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/detail/simd/cast_avx2.hpp"
#include "strided/detail/simd/cast_avx512.hpp"
#include "strided/detail/simd/cast_neon.hpp"
#include "strided/detail/simd/isa.hpp"

namespace strided::detail {

template <class From, class To>
requires is_castable_v<From, To>
void cast_contiguous(const From* src, To* dst, std::size_t n,
                     [[maybe_unused]] std::size_t whole_n) noexcept {  // unused scalar-only
  if (n == 0) return;
  if constexpr (std::is_same_v<From, To>) {
    std::memcpy(static_cast<void*>(dst), src, n * sizeof(From));
  } else {
#if STRIDED_X86
    if constexpr (requires { cast_avx2::run(src, dst, n); }) {
      const Isa isa = active_isa();
      if constexpr (requires { cast_avx512::run(src, dst, n); }) {
        if (isa == Isa::avx512) return cast_avx512::run(src, dst, n, whole_n);
      }
      if (isa != Isa::scalar) return cast_avx2::run(src, dst, n, whole_n);
    }
#endif
#if STRIDED_NEON
    if constexpr (requires { cast_neon::run(src, dst, n); }) {
      if (active_isa() == Isa::neon) return cast_neon::run(src, dst, n, whole_n);
    }
#endif
    cast_impl::scalar_loop(src, dst, n);
  }
}

// Chunks start at multiples of cache_line_bytes elements, so a line-aligned destination is
// written in whole lines per thread.
template <class From, class To>
requires is_castable_v<From, To>
void cast_contiguous_parallel(const From* src, To* dst, std::size_t n) {
  const std::size_t chunks = chunk_count(n * std::max(sizeof(From), sizeof(To)));
  if (chunks < 2) return cast_contiguous(src, dst, n);
  constexpr std::size_t step = cache_line_bytes;
  const std::size_t blocks = n / step + (n % step != 0 ? 1 : 0);
  parallel_for(chunks, [&](std::size_t c) {
    const std::size_t first = std::min(split_point(blocks, chunks, c) * step, n);
    const std::size_t last = std::min(split_point(blocks, chunks, c + 1) * step, n);
    cast_contiguous(src + first, dst + first, last - first, n);
  });
}

}  // namespace strided::detail
