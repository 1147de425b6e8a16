// Inserted by line_copy_kernels.sh into a scratch copy of simd/transpose_dispatch.hpp, ahead of
// tile_kernel (renamed tile_kernel_transposing there): every whole-line micro-kernel (a W x W
// tile whose rows are one 64-byte line each side) is replaced by one that copies source row r's
// line to destination row r's line without transposing. Same loads, same stores, same walk, no
// shuffles: what a transpose's memory traffic costs with kernels that cost nothing.
#include <immintrin.h>

inline TileKernel tile_kernel_transposing(std::size_t es, std::size_t max_i,
                                          std::size_t max_j) noexcept;

/// Each line in two 32-byte halves, stored as the avx2 kernels store them (store_half_line).
template <std::size_t W, bool Stream>
[[gnu::target(STRIDED_AVX2_FEATURES)]] void copy_lines_tile(const std::byte* src,
                                                            const std::ptrdiff_t* src_rows,
                                                            std::byte* dst,
                                                            const std::ptrdiff_t* dst_rows,
                                                            std::size_t) {
  for (std::size_t r = 0; r < W; ++r) {
    const auto* in = reinterpret_cast<const __m256i*>(src + src_rows[r]);
    store_half_line<Stream>(dst + dst_rows[r], _mm256_loadu_si256(in));
    store_half_line<Stream>(dst + dst_rows[r] + 32, _mm256_loadu_si256(in + 1));
  }
}

/// One 64-byte register per line, for the avx512 level (store_row, as its kernels store).
template <std::size_t W, bool Stream>
[[gnu::target(STRIDED_AVX512_FEATURES)]] void copy_lines_tile_zmm(const std::byte* src,
                                                                  const std::ptrdiff_t* src_rows,
                                                                  std::byte* dst,
                                                                  const std::ptrdiff_t* dst_rows,
                                                                  std::size_t) {
  for (std::size_t r = 0; r < W; ++r)
    store_row(dst + dst_rows[r], _mm512_loadu_si512(src + src_rows[r]), Stream);
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
