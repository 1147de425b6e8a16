// The all-thread reference of parallel_bench and bench/ab/ab_compare: memcpy of `bytes` cut into
// one share per part, copied on the library's pool.
#pragma once

#include <cstddef>
#include <cstring>

#include "strided/detail/parallel/parallel_for.hpp"

namespace strided_bench {
// Internal linkage: bench/ab/ab_library.cpp compiles this twice in one program, each time against
// a different build of the library (its `strided` renamed), and the two must not be merged.
namespace {

inline void memcpy_on_pool(std::byte* dst, const std::byte* src, std::size_t bytes,
                           std::size_t parts) {
  strided::detail::parallel_for(parts, [&](std::size_t part) {
    const std::size_t first = strided::detail::split_point(bytes, parts, part);
    const std::size_t last = strided::detail::split_point(bytes, parts, part + 1);
    std::memcpy(dst + first, src + first, last - first);
  });
}

}  // namespace
}  // namespace strided_bench
