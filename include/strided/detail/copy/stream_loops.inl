// The streaming copy loops of one x86 level, written once for AVX2 and AVX-512.
//
// Included inside stream.hpp's namespaces stream_avx2 and stream_avx512 (per-target re-inclusion,
// as simd/cast_driver.inl: a function's target attribute cannot depend on a template parameter).
// The including file defines:
//   STRIDED_STREAM_TARGET  the level's target attribute;
//   vector_bytes           the width of the level's registers, whose stream(std::byte*, register)
//                          store stream.hpp defines.
// This file undefines the macro.
//
// No include guard and no #pragma once: it is meant to be included once per ISA namespace.

/// A register of the level. May alias any type, as __m256i and __m512i do: it reads and writes
/// buffers of every element type.
using Vector [[gnu::vector_size(vector_bytes), gnu::may_alias]] = long long;

/// A register loaded from any address (as the loadu intrinsics do it).
STRIDED_STREAM_TARGET [[gnu::always_inline]] inline Vector load_unaligned(const std::byte* p) {
  using Unaligned [[gnu::aligned(1), gnu::may_alias]] = Vector;
  return *reinterpret_cast<const Unaligned*>(p);
}

/// memcpy with streaming stores: a plain head up to a line boundary of `d`, four registers per
/// iteration (prefetching `ahead`, see copy_impl::stream_copy), a line per iteration, then a plain
/// tail. Only whole lines stream: a line written partly by plain stores and partly streamed is
/// evicted and merged in memory. AVX2 registers are half a line, so the head runs to a line
/// boundary, not a 32-byte one, which would leave a partly streamed line at every row start.
STRIDED_STREAM_TARGET inline void stream_copy(std::byte* d, const std::byte* s, std::size_t n,
                                              std::ptrdiff_t ahead) noexcept {
  constexpr std::size_t w = vector_bytes;
  const auto mis = reinterpret_cast<std::uintptr_t>(d) % line;
  std::size_t head = mis == 0 ? 0 : line - mis;
  if (head > n) head = n;
  std::memcpy(d, s, head);
  std::size_t i = head;
  for (; i + 4 * w <= n; i += 4 * w) {
    prefetch_lines<4 * w / 64>(s + i, ahead);
    const Vector a = load_unaligned(s + i);
    const Vector b = load_unaligned(s + i + w);
    const Vector c = load_unaligned(s + i + 2 * w);
    const Vector e = load_unaligned(s + i + 3 * w);
    stream(d + i, a);
    stream(d + i + w, b);
    stream(d + i + 2 * w, c);
    stream(d + i + 3 * w, e);
  }
  for (; i + line <= n; i += line)
    for (std::size_t k = 0; k < line; k += w) stream(d + i + k, load_unaligned(s + i + k));
  std::memcpy(d + i, s + i, n - i);
}

/// One 64-byte line from a 64-byte aligned `s` to a 64-byte aligned `d`, with streaming stores.
STRIDED_STREAM_TARGET inline void stream_line(std::byte* d, const std::byte* s) noexcept {
  for (std::size_t k = 0; k < 64; k += vector_bytes)
    stream(d + k, *reinterpret_cast<const Vector*>(s + k));
}

/// The rows of one register tile of a realigned transpose (copy/realign.hpp), each 128 bytes of
/// `rows`: the line the previous tile along the row left, then this tile's line. A row that
/// starts on a line streams this tile's line; one that starts m bytes past a line streams the line
/// made of the previous tile's last m bytes and this tile's first 64 - m (plain stores for the
/// bytes of the row's first and last lines: the rest of those lines is not the row's), and keeps
/// this tile's line for the next tile.
STRIDED_STREAM_TARGET inline void stream_realigned_rows(std::byte* d,
                                                        const std::ptrdiff_t* dst_rows,
                                                        std::size_t w, std::byte* rows, bool first,
                                                        bool last) noexcept {
  for (std::size_t c = 0; c < w; ++c) {
    std::byte* row = rows + 128 * c;
    std::byte* out = d + dst_rows[c];
    const std::size_t m = reinterpret_cast<std::uintptr_t>(out) % 64;
    if (m == 0) {
      stream_line(out, row + 64);
      continue;
    }
    if (first) {
      std::memcpy(out, row + 64, 64 - m);
    } else {
      for (std::size_t k = 0; k < 64; k += vector_bytes)
        stream(out - m + k, load_unaligned(row + 64 - m + k));
    }
    if (last) std::memcpy(out + 64 - m, row + 128 - m, m);
    for (std::size_t k = 0; k < 64; k += vector_bytes)
      *reinterpret_cast<Vector*>(row + k) = *reinterpret_cast<const Vector*>(row + 64 + k);
  }
}

#undef STRIDED_STREAM_TARGET
