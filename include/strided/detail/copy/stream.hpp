// Non-temporal (streaming) stores for copies whose destination is far larger than the caches.
//
// A normal store first reads the destination line (read-for-ownership), so a copy moves three
// bytes over the memory bus per byte copied; glibc's memcpy switches to streaming stores for
// large sizes and moves two. The copy and cast kernels do the same above `stream_threshold` bytes
// of destination, so that they race memcpy on equal terms. Streaming stores need aligned addresses:
// a head and tail are copied normally.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/simd/isa.hpp"

#if STRIDED_X86
#include <immintrin.h>
#endif

namespace strided::detail::copy_impl {

/// A cache line, in bytes: what a streaming store must fill whole to bypass the caches.
inline constexpr std::size_t line = 64;

/// Destination size from which the copy and cast kernels stream. Below it the destination is likely
/// to be read again soon (and fits in the 32 MiB L3 of the machines measured), so it should stay
/// cached.
inline constexpr std::size_t default_stream_threshold = std::size_t{16} << 20;

namespace stream_impl {
inline std::atomic<std::size_t> threshold{default_stream_threshold};
}

/// The current threshold (bytes of destination).
inline std::size_t stream_threshold() noexcept {
  return stream_impl::threshold.load(std::memory_order_relaxed);
}

/// Lowers or raises the threshold for its lifetime: tests use it to run the streaming paths on
/// small copies, benchmarks to measure where streaming starts to pay.
class ScopedStreamThreshold {
 public:
  explicit ScopedStreamThreshold(std::size_t bytes) noexcept
      : previous_(stream_impl::threshold.exchange(bytes)) {}
  ~ScopedStreamThreshold() { stream_impl::threshold.store(previous_); }
  ScopedStreamThreshold(const ScopedStreamThreshold&) = delete;
  ScopedStreamThreshold& operator=(const ScopedStreamThreshold&) = delete;

 private:
  std::size_t previous_;
};

/// Whether streaming stores are available at the active level (the scalar level never streams,
/// so that it stays the plain twin the SIMD paths are tested against).
inline bool can_stream() noexcept {
#if STRIDED_X86
  return active_isa() != Isa::scalar;
#else
  return false;
#endif
}

/// Whether a copy that writes `dst_bytes` in all (the whole copy, when planning a piece of it)
/// uses streaming stores: the one rule for the copy kernels and the chunking that must agree
/// with them.
inline bool streams_copy_of(std::size_t dst_bytes) noexcept {
  return dst_bytes >= stream_threshold() && can_stream();
}

/// Prefetches `Lines` cache lines at `p + ahead` (0: none). The address is formed as an integer:
/// it may lie outside any object (past the last row), which a prefetch tolerates and pointer
/// arithmetic would not. Always inlined: GCC at -O2 (not -O1 or -O3) keeps it out of line, deems a
/// function of prefetches alone free of effects and deletes every call to it.
template <int Lines>
[[gnu::always_inline]] inline void prefetch_lines(const std::byte* p,
                                                  std::ptrdiff_t ahead) noexcept {
  if (ahead == 0) return;
  const std::uintptr_t at =
      reinterpret_cast<std::uintptr_t>(p) + static_cast<std::uintptr_t>(ahead);
#if STRIDED_X86
  for (int k = 0; k < Lines; ++k)
    _mm_prefetch(reinterpret_cast<const char*>(at + static_cast<std::uintptr_t>(64 * k)),
                 _MM_HINT_T0);
#else
  static_cast<void>(at);
#endif
}

/// Prefetches the line at `p` into L2 (x86; elsewhere unmeasured, so nothing). Always inlined, for
/// the reason prefetch_lines gives.
[[gnu::always_inline]] inline void prefetch_to_l2(const std::byte* p) noexcept {
#if STRIDED_X86
  _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T1);
#else
  static_cast<void>(p);
#endif
}

#if STRIDED_X86
// The streaming store of each level's register.
[[gnu::target(STRIDED_AVX2_FEATURES), gnu::always_inline]] inline void stream(std::byte* p,
                                                                              __m256i v) {
  _mm256_stream_si256(reinterpret_cast<__m256i*>(p), v);
}
[[gnu::target(STRIDED_AVX512_FEATURES), gnu::always_inline]] inline void stream(std::byte* p,
                                                                                __m512i v) {
  _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
}

namespace stream_avx2 {
#define STRIDED_STREAM_TARGET [[gnu::target(STRIDED_AVX2_FEATURES)]]
inline constexpr std::size_t vector_bytes = 32;
#include "strided/detail/copy/stream_loops.inl"
}  // namespace stream_avx2

namespace stream_avx512 {
#define STRIDED_STREAM_TARGET [[gnu::target(STRIDED_AVX512_FEATURES)]]
inline constexpr std::size_t vector_bytes = 64;
#include "strided/detail/copy/stream_loops.inl"
}  // namespace stream_avx512
#endif

/// One 64-byte line from a 64-byte aligned `s` to a 64-byte aligned `d`, bypassing the caches
/// when can_stream() (else a plain copy).
inline void stream_line(std::byte* d, const std::byte* s) noexcept {
#if STRIDED_X86
  if (active_isa() == Isa::avx512) return stream_avx512::stream_line(d, s);
  if (active_isa() == Isa::avx2) return stream_avx2::stream_line(d, s);
#endif
  std::memcpy(d, s, 64);
}

/// The rows of a realigned transpose's register tile (see stream_realigned_rows in
/// stream_loops.inl), with streaming stores when can_stream(), else plain ones.
inline void stream_realigned_rows(std::byte* d, const std::ptrdiff_t* dst_rows, std::size_t w,
                                  std::byte* rows, bool first, bool last) noexcept {
#if STRIDED_X86
  if (active_isa() == Isa::avx512)
    return stream_avx512::stream_realigned_rows(d, dst_rows, w, rows, first, last);
  if (active_isa() == Isa::avx2)
    return stream_avx2::stream_realigned_rows(d, dst_rows, w, rows, first, last);
#endif
  static_cast<void>(first);
  static_cast<void>(last);
  for (std::size_t c = 0; c < w; ++c) std::memcpy(d + dst_rows[c], rows + 128 * c + 64, 64);
}

/// memcpy with streaming stores (when can_stream()); call stream_fence() after the last one.
/// `ahead` (bytes, 0 for none) is where the next row to be copied starts relative to `s`: its
/// lines are prefetched at the offset being copied now. Rows of a narrow view skip part of each
/// source row, which stops the hardware prefetchers at every row end. One row ahead is enough to
/// hide that; further ahead, the lines may be evicted before they are used.
inline void stream_copy(std::byte* d, const std::byte* s, std::size_t n,
                        std::ptrdiff_t ahead = 0) noexcept {
#if STRIDED_X86
  if (active_isa() == Isa::avx512) return stream_avx512::stream_copy(d, s, n, ahead);
  if (active_isa() == Isa::avx2) return stream_avx2::stream_copy(d, s, n, ahead);
#endif
  static_cast<void>(ahead);
  std::memcpy(d, s, n);
}

/// Orders streaming stores before later stores (they are weakly ordered): the copied data must be
/// visible to whoever the caller hands the destination to, e.g. another thread.
inline void stream_fence() noexcept {
#if STRIDED_X86
  _mm_sfence();
#endif
}

}  // namespace strided::detail::copy_impl
