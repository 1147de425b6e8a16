// Cutting an n-dimensional index space into chunks of at most chunk_elements indices: a block
// of each axis, chunks enumerated row-major over the blocks. Chunks are disjoint and cover the
// space, so they can be computed in any order or concurrently (map / zip_with, strided/map.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>

#include "strided/shape.hpp"

namespace strided::detail {

/// Indices per chunk: a chunk's output and scratch blocks stay in L2.
inline constexpr std::size_t chunk_elements = std::size_t{32} << 10;
/// Edge a key axis gets before any other axis grows: a tile of 64 x 64 keeps a transposing
/// copy's source runs and the output's runs at least 64 elements long.
inline constexpr std::size_t tile_edge = 64;

struct ChunkGrid {
  std::size_t rank = 0;
  std::array<std::size_t, max_rank> block{};   // edge of a chunk along each axis
  std::array<std::size_t, max_rank> blocks{};  // chunks along each axis
  std::size_t count = 1;
};

namespace grid_impl {

// The block edge that cuts n into the same number of pieces as `edge`, with pieces as even as
// possible (no narrow last piece).
inline std::size_t even_edge(std::size_t n, std::size_t edge) noexcept {
  const std::size_t pieces = (n + edge - 1) / edge;
  return (n + pieces - 1) / pieces;
}

}  // namespace grid_impl

/// The grid of `shape` (no zero extents; rank 0 is one chunk). Each of `key_axes` first gets an
/// edge of up to tile_edge; then the key axes grow in their order, then the others from the
/// innermost outwards, until a chunk holds chunk_elements indices. Without key axes a chunk is
/// a range of rows of the inner axes.
inline ChunkGrid make_grid(const Shape& shape, std::span<const std::size_t> key_axes) noexcept {
  ChunkGrid g;
  g.rank = shape.size();
  std::size_t held = 1;
  for (std::size_t k = 0; k < g.rank; ++k) g.block[k] = 1;
  for (std::size_t k : key_axes) {
    const std::size_t edge = std::min(shape[k], tile_edge);
    if (g.block[k] != 1 || held * edge > chunk_elements) continue;
    g.block[k] = edge;
    held *= edge;
  }
  auto grow = [&](std::size_t k) {
    const std::size_t others = held / g.block[k];
    g.block[k] = std::min(shape[k], std::max(g.block[k], chunk_elements / others));
    held = others * g.block[k];
  };
  for (std::size_t k : key_axes) grow(k);
  for (std::size_t k = g.rank; k-- > 0;) grow(k);
  for (std::size_t k = 0; k < g.rank; ++k) {
    g.block[k] = grid_impl::even_edge(shape[k], g.block[k]);
    g.blocks[k] = (shape[k] + g.block[k] - 1) / g.block[k];
    g.count *= g.blocks[k];
  }
  return g;
}

/// Chunk `c`'s first index along each axis and its extent there.
inline void chunk_bounds(const ChunkGrid& g, const Shape& shape, std::size_t c, std::size_t* start,
                         std::size_t* extent) noexcept {
  for (std::size_t k = g.rank; k-- > 0;) {
    start[k] = (c % g.blocks[k]) * g.block[k];
    c /= g.blocks[k];
    extent[k] = std::min(g.block[k], shape[k] - start[k]);
  }
}

}  // namespace strided::detail
