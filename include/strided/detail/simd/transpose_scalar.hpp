// Transpose micro-kernels: the interface shared by every ISA level, and the portable scalar twin
// that the SIMD kernels are tested against.
//
// A micro-kernel transposes one WJ x WI tile (square, W x W, except where noted). Source row r
// (r < WJ) holds WI contiguous elements at `src + src_rows[r]`; they go to column r of the
// destination, whose row c (c < WI) holds WJ contiguous elements at `dst + dst_rows[c]`. Row
// offsets come from tables rather than one leading dimension so that a "row" may step over several
// merged axes (high-rank permutes). Pointers may be misaligned: kernels use unaligned loads and
// stores only.
#pragma once

#include <cstddef>
#include <cstring>

#include "strided/detail/simd/isa.hpp"

namespace strided::detail::simd {

using TileFn = void (*)(const std::byte* src, const std::ptrdiff_t* src_rows, std::byte* dst,
                        const std::ptrdiff_t* dst_rows, std::size_t elem_size);

struct TileKernel {
  TileFn fn = nullptr;
  std::size_t wi = 0;       // destination rows per tile (elements along a source row)
  std::size_t wj = 0;       // source rows per tile (elements along a destination row)
  TileFn stream = nullptr;  // same kernel with non-temporal stores (rows aligned to wj * size)
  /// The same tile (plain and streaming) reading each source row whole, once (avx2: into an L1
  /// buffer first; avx512 u8: into registers), for kernels that otherwise read a row in 16-byte
  /// pieces, one pass over the rows per piece: when the tile's rows share an L1 set
  /// (power-of-two strides), every pass fetches the rows' lines again. Null for kernels that read
  /// each row once.
  TileFn buffered = nullptr;
  TileFn buffered_stream = nullptr;
};

template <std::size_t ES, std::size_t W>
void transpose_tile_scalar(const std::byte* src, const std::ptrdiff_t* src_rows, std::byte* dst,
                           const std::ptrdiff_t* dst_rows, std::size_t /*elem_size*/) {
  for (std::size_t c = 0; c < W; ++c) {
    std::byte* out = dst + dst_rows[c];
    STRIDED_UNROLLED
    for (std::size_t r = 0; r < W; ++r) std::memcpy(out + r * ES, src + src_rows[r] + c * ES, ES);
  }
}

/// Any element size (3, 12, 32, ...): one memcpy per element, still cache-blocked by the caller.
template <std::size_t W>
void transpose_tile_generic(const std::byte* src, const std::ptrdiff_t* src_rows, std::byte* dst,
                            const std::ptrdiff_t* dst_rows, std::size_t es) {
  for (std::size_t c = 0; c < W; ++c) {
    std::byte* out = dst + dst_rows[c];
    for (std::size_t r = 0; r < W; ++r) std::memcpy(out + r * es, src + src_rows[r] + c * es, es);
  }
}

template <std::size_t ES>
TileKernel scalar_sized(std::size_t max_w) noexcept {
  if (max_w >= 16 && ES <= 2) return {&transpose_tile_scalar<ES, 16>, 16, 16};
  if (max_w >= 8) return {&transpose_tile_scalar<ES, 8>, 8, 8};
  if (max_w >= 4) return {&transpose_tile_scalar<ES, 4>, 4, 4};
  return {&transpose_tile_scalar<ES, 2>, 2, 2};
}

/// The scalar kernel for an element size, with a tile edge of at most max_w (>= 2) elements.
inline TileKernel scalar_tile_kernel(std::size_t es, std::size_t max_w) noexcept {
  switch (es) {
    case 1:
      return scalar_sized<1>(max_w);
    case 2:
      return scalar_sized<2>(max_w);
    case 4:
      return scalar_sized<4>(max_w);
    case 8:
      return scalar_sized<8>(max_w);
    case 16:
      return max_w >= 4 ? TileKernel{&transpose_tile_scalar<16, 4>, 4, 4}
                        : TileKernel{&transpose_tile_scalar<16, 2>, 2, 2};
    default:
      return max_w >= 4 ? TileKernel{&transpose_tile_generic<4>, 4, 4}
                        : TileKernel{&transpose_tile_generic<2>, 2, 2};
  }
}

}  // namespace strided::detail::simd
