// Picks the transpose micro-kernel for an element size at the active ISA level.
#pragma once

#include <cstddef>

#include "strided/detail/simd/isa.hpp"
#include "strided/detail/simd/transpose_scalar.hpp"

namespace strided::detail::simd {

inline TileKernel tile_kernel(std::size_t es) noexcept { return scalar_tile_kernel(es); }

}  // namespace strided::detail::simd
