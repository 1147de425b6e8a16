// Inserted by line_copy_kernels.sh into a scratch copy of simd/transpose_dispatch.hpp, ahead of
// tile_kernel (renamed tile_kernel_transposing there): every whole-line micro-kernel (a W x W
// tile whose rows are one 64-byte line each side) is replaced by one that copies source row r's
// line to destination row r's line without transposing. Same loads, same stores, same walk, no
// shuffles: what a transpose's memory traffic costs with kernels that cost nothing.
#include <immintrin.h>

inline TileKernel tile_kernel_transposing(std::size_t es, std::size_t max_i,
                                          std::size_t max_j) noexcept;

template <std::size_t W, bool Stream>
[[gnu::target("avx2")]] void copy_lines_tile(const std::byte* src, const std::ptrdiff_t* src_rows,
                                             std::byte* dst, const std::ptrdiff_t* dst_rows,
                                             std::size_t) {
  for (std::size_t r = 0; r < W; ++r) {
    const std::byte* in = src + src_rows[r];
    auto* out = reinterpret_cast<__m256i*>(dst + dst_rows[r]);
    const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + 32));
    if constexpr (Stream) {
      _mm256_stream_si256(out, lo);
      _mm256_stream_si256(out + 1, hi);
    } else {
      _mm256_storeu_si256(out, lo);
      _mm256_storeu_si256(out + 1, hi);
    }
  }
}

/// The same with one 64-byte register per line, for the avx512 level (whose kernels store so).
template <std::size_t W, bool Stream>
[[gnu::target("avx512f")]] void copy_lines_tile_zmm(const std::byte* src,
                                                    const std::ptrdiff_t* src_rows, std::byte* dst,
                                                    const std::ptrdiff_t* dst_rows, std::size_t) {
  for (std::size_t r = 0; r < W; ++r) {
    const __m512i v = _mm512_loadu_si512(src + src_rows[r]);
    if constexpr (Stream)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(dst + dst_rows[r]), v);
    else
      _mm512_storeu_si512(dst + dst_rows[r], v);
  }
}

template <std::size_t W>
TileKernel copy_lines_kernel(const TileKernel& k) noexcept {
  const bool zmm = active_isa() == Isa::avx512;
  const TileFn plain = zmm ? &copy_lines_tile_zmm<W, false> : &copy_lines_tile<W, false>;
  const TileFn stream = zmm ? &copy_lines_tile_zmm<W, true> : &copy_lines_tile<W, true>;
  return {plain,
          W,
          W,
          k.stream != nullptr ? stream : nullptr,
          k.buffered != nullptr ? plain : nullptr,
          k.buffered_stream != nullptr ? stream : nullptr};
}

inline TileKernel tile_kernel(std::size_t es, std::size_t max_i, std::size_t max_j) noexcept {
  const TileKernel k = tile_kernel_transposing(es, max_i, max_j);
  if (k.wi != k.wj || k.wj * es != 64) return k;  // not a whole-line kernel: kept
  switch (k.wi) {
    case 64:
      return copy_lines_kernel<64>(k);
    case 32:
      return copy_lines_kernel<32>(k);
    case 16:
      return copy_lines_kernel<16>(k);
    default:
      return copy_lines_kernel<8>(k);
  }
}
