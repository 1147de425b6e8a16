// Compiled to assembly by check.cmake, never linked: the functions below instantiate every
// transpose micro-kernel (through the dispatch table), a prefetch, the few-rows band and the row
// loop of map / zip_with, so that the check can read the code the compiler made of them at the
// user's optimisation level.
#include <cstddef>

#include "strided/detail/copy/stream.hpp"
#include "strided/detail/copy/transpose.hpp"
#include "strided/detail/simd/transpose_dispatch.hpp"
#include "strided/detail/zip.hpp"

namespace strided_codegen {

strided::detail::simd::TileKernel kernel_for(std::size_t es, std::size_t max_i,
                                             std::size_t max_j) noexcept {
  return strided::detail::simd::tile_kernel(es, max_i, max_j);
}

void prefetch_two_lines(const std::byte* p, std::ptrdiff_t ahead) noexcept {
  strided::detail::copy_impl::prefetch_lines<2>(p, ahead);
}

void few_rows_band(const std::byte* s, const std::ptrdiff_t* src_j, std::byte* d,
                   const std::ptrdiff_t* dst_i, std::size_t i1, std::size_t j1, std::size_t es,
                   strided::detail::simd::TileKernel k) {
  strided::detail::copy_impl::transpose_few_rows(s, src_j, d, dst_i, 0, i1, 0, j1, es, k);
}

void map_row_add(float* out, std::size_t n, const float* a, const float* b) {
  auto add = [](float x, float y) { return x + y; };
  strided::detail::zip::dense_row<0u>(add, out, n, a, b);
}

}  // namespace strided_codegen
