// The non-transposing copy kernels: row-wise memcpy, stride-0 fills and the general strided loop.
// All run on a canonical CopyPlan (see plan.hpp); strides are in bytes.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/copy/plan.hpp"
#include "strided/detail/copy/stream.hpp"

namespace strided::detail::copy_impl {

/// Calls fn(src, dst) for every index of the axes in `outer` (innermost first), walking the
/// destination forwards. An odometer rather than recursion: ranks reach 64 and the per-step cost
/// matters when the inner work is small.
template <class Fn>
void for_each_index(const PlanAxis* const* outer, std::size_t count, const std::byte* s,
                    std::byte* d, Fn&& fn) {
  // Offsets are integers so that no pointer is ever formed outside the views (the last carry
  // steps one past the end, which for a negative stride is before the buffer).
  std::array<std::size_t, plan_max_rank> idx{};
  std::ptrdiff_t os = 0, od = 0;
  for (;;) {
    fn(s + os, d + od);
    std::size_t k = 0;
    for (; k < count; ++k) {
      const PlanAxis& ax = *outer[k];
      os += ax.ss;
      od += ax.ds;
      if (++idx[k] < ax.n) break;
      idx[k] = 0;
      os -= ax.ss * static_cast<std::ptrdiff_t>(ax.n);
      od -= ax.ds * static_cast<std::ptrdiff_t>(ax.n);
    }
    if (k == count) return;
  }
}

/// Bytes the plan writes.
inline std::size_t dst_bytes(const CopyPlan& p) noexcept {
  std::size_t n = p.elem_size;
  for (std::size_t k = 0; k < p.rank; ++k) n *= p.axes[k].n;
  return n;
}

/// Whether the plan's kernels use streaming stores: when the copy it belongs to (the plan itself,
/// or the whole parallel copy it is a chunk of) is larger than the threshold.
inline bool streams(const CopyPlan& p) noexcept {
  return std::max(dst_bytes(p), p.whole_dst_bytes) >= stream_threshold() && can_stream();
}

/// Pointers to axes[first, rank) of a plan, for for_each_index.
struct OuterAxes {
  std::array<const PlanAxis*, plan_max_rank> ptr{};
  std::size_t count = 0;
};

inline OuterAxes outer_axes(const CopyPlan& p, std::size_t first) noexcept {
  OuterAxes o;
  for (std::size_t k = first; k < p.rank; ++k) o.ptr[o.count++] = &p.axes[k];
  return o;
}

/// One element of es bytes: a fixed-size copy for the common sizes (a runtime-size memcpy is a
/// library call, which costs more than the element when ragged tile edges copy one at a time).
inline void copy_element(std::byte* d, const std::byte* s, std::size_t es) noexcept {
  switch (es) {
    case 1:
      *d = *s;
      return;
    case 2:
      std::memcpy(d, s, 2);
      return;
    case 4:
      std::memcpy(d, s, 4);
      return;
    case 8:
      std::memcpy(d, s, 8);
      return;
    default:
      std::memcpy(d, s, es);
  }
}

template <std::size_t ES>
inline void strided_row_fixed(const std::byte* s, std::ptrdiff_t ss, std::byte* d,
                              std::ptrdiff_t ds, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    std::memcpy(d + k * ds, s + k * ss, ES);
  }
}

/// n elements of es bytes, any strides.
inline void strided_row(const std::byte* s, std::ptrdiff_t ss, std::byte* d, std::ptrdiff_t ds,
                        std::size_t n, std::size_t es) noexcept {
  switch (es) {
    case 1:
      return strided_row_fixed<1>(s, ss, d, ds, n);
    case 2:
      return strided_row_fixed<2>(s, ss, d, ds, n);
    case 4:
      return strided_row_fixed<4>(s, ss, d, ds, n);
    case 8:
      return strided_row_fixed<8>(s, ss, d, ds, n);
    case 16:
      return strided_row_fixed<16>(s, ss, d, ds, n);
    default:
      for (std::size_t i = 0; i < n; ++i) {
        const auto k = static_cast<std::ptrdiff_t>(i);
        std::memcpy(d + k * ds, s + k * ss, es);
      }
  }
}

template <class U>
inline void fill_row_typed(const std::byte* s, std::byte* d, std::size_t n) noexcept {
  U v;
  std::memcpy(&v, s, sizeof(U));
  for (std::size_t i = 0; i < n; ++i) std::memcpy(d + i * sizeof(U), &v, sizeof(U));
}

/// n contiguous copies of the es-byte element at s.
inline void fill_row(const std::byte* s, std::byte* d, std::size_t n, std::size_t es) noexcept {
  switch (es) {
    case 1:
      return fill_row_typed<std::uint8_t>(s, d, n);
    case 2:
      return fill_row_typed<std::uint16_t>(s, d, n);
    case 4:
      return fill_row_typed<std::uint32_t>(s, d, n);
    case 8:
      return fill_row_typed<std::uint64_t>(s, d, n);
    default: {
      // Doubling: each memcpy copies everything written so far (regions never overlap).
      std::memcpy(d, s, es);
      std::size_t done = 1;
      while (done < n) {
        const std::size_t m = done < n - done ? done : n - done;
        std::memcpy(d + done * es, d, m * es);
        done += m;
      }
    }
  }
}

/// Rows shorter than this are not streamed: a row's first and last lines are written with plain
/// stores, and lines written partly both ways (every line of a 99-byte row) cost more than the
/// streaming saves. Measured (u8 views of 99-280-byte rows, 20-40 MiB, avx512 and avx2):
/// streamed 6.8-24x memcpy, plain stores 0.6-3.6x.
inline constexpr std::size_t min_streamed_row = 1024;

inline void run_rowwise(const CopyPlan& p) {
  const OuterAxes o = outer_axes(p, 0);
  const std::size_t bytes = p.elem_size;
  if (streams(p) && bytes >= min_streamed_row) {
    const std::ptrdiff_t next_row = o.count > 0 ? o.ptr[0]->ss : 0;  // the innermost outer axis
    for_each_index(o.ptr.data(), o.count, p.src + p.src_offset, p.dst + p.dst_offset,
                   [bytes, next_row](const std::byte* s, std::byte* d) {
                     stream_copy(d, s, bytes, next_row);
                   });
    stream_fence();
    return;
  }
  for_each_index(o.ptr.data(), o.count, p.src + p.src_offset, p.dst + p.dst_offset,
                 [bytes](const std::byte* s, std::byte* d) { std::memcpy(d, s, bytes); });
}

inline void run_fill(const CopyPlan& p) {
  const OuterAxes o = outer_axes(p, 1);
  const std::size_t n = p.axes[0].n, es = p.elem_size;
  for_each_index(o.ptr.data(), o.count, p.src + p.src_offset, p.dst + p.dst_offset,
                 [n, es](const std::byte* s, std::byte* d) { fill_row(s, d, n, es); });
}

inline void run_strided(const CopyPlan& p) {
  const OuterAxes o = outer_axes(p, 1);
  const PlanAxis inner = p.axes[0];
  const std::size_t es = p.elem_size;
  for_each_index(o.ptr.data(), o.count, p.src + p.src_offset, p.dst + p.dst_offset,
                 [inner, es](const std::byte* s, std::byte* d) {
                   strided_row(s, inner.ss, d, inner.ds, inner.n, es);
                 });
}

}  // namespace strided::detail::copy_impl
