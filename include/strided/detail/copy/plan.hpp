// Copy planner: turns any strided copy into a canonical loop nest and picks the kernel for it.
//
// Canonical form (what every kernel in copy/ relies on):
//   * no axis of extent 1 (an empty copy never reaches a kernel);
//   * every destination stride positive (a flipped destination axis is flipped in both views),
//     except one: when the source's unit-stride axis runs backwards (a flipped image row, BGR
//     channels), it is flipped in both views so that the transpose and channel kernels read the
//     source forwards (see unflip_source_unit_axis); and a transpose's source-contiguous group
//     reads every axis of it forwards (see src_chain);
//   * axes ordered innermost first by destination stride, so the outer loops walk the
//     destination forwards;
//   * axes that are contiguous with each other in both views merged into one;
//   * an innermost axis that is contiguous in both views folded into the element ("row"), so a
//     kernel sees elements of `elem_size` bytes that may be whole rows.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

#include "strided/detail/copy/args.hpp"

namespace strided::detail {

/// Which kernel a copy runs. Exposed so tests can assert the planner's choices.
enum class PlanKind {
  nothing,         // zero elements
  single_memcpy,   // one contiguous block in both views
  rowwise_memcpy,  // rows contiguous in both views (narrows, broadcast rows, stacking)
  fill,            // innermost source stride 0: one source element replicated along a row
  transpose,       // unit-stride axes differ: cache-blocked SIMD transpose
  strided,         // anything else: nested loops by element size class
  deinterleave,    // packed pixels of 2-4 channels (source) into one plane per channel
  interleave,      // one plane per channel (source) into packed pixels of 2-4 channels
};

inline constexpr int plan_kind_count = 8;
static_assert(static_cast<int>(PlanKind::interleave) + 1 == plan_kind_count);

constexpr const char* plan_kind_name(PlanKind k) noexcept {
  switch (k) {
    case PlanKind::nothing:
      return "nothing";
    case PlanKind::single_memcpy:
      return "single_memcpy";
    case PlanKind::rowwise_memcpy:
      return "rowwise_memcpy";
    case PlanKind::fill:
      return "fill";
    case PlanKind::transpose:
      return "transpose";
    case PlanKind::deinterleave:
      return "deinterleave";
    case PlanKind::interleave:
      return "interleave";
    case PlanKind::strided:
      return "strided";
  }
  return "?";
}

/// One loop of the canonical nest. Strides count BYTES (so rows of any length fold into elements).
struct PlanAxis {
  std::size_t n = 0;
  std::ptrdiff_t ss = 0;  // source stride
  std::ptrdiff_t ds = 0;  // destination stride (> 0)
};

/// Every non-empty copy has at most 64 axes of extent >= 2 (their product must be addressable in
/// the destination, which has no zero strides).
inline constexpr std::size_t plan_max_rank = 64;

/// What every plan has: the kernel's name and the canonical nest it runs. rowwise_memcpy, fill
/// and strided need nothing else; single_memcpy reads only the pointers and elem_size.
struct PlanNest {
  PlanKind kind = PlanKind::nothing;
  // Kernels start at src + src_offset / dst + dst_offset (bytes): flipped destination axes move
  // the start. Kept apart so planning never does arithmetic on a pointer it does not own.
  const std::byte* src = nullptr;
  std::byte* dst = nullptr;
  std::ptrdiff_t src_offset = 0;
  std::ptrdiff_t dst_offset = 0;
  std::size_t elem_size = 0;        // bytes per (possibly folded) element
  std::size_t whole_dst_bytes = 0;  // CopyArgs::whole_dst_bytes: the copy this plan is a piece of
  std::size_t rank = 0;
  std::array<PlanAxis, plan_max_rank> axes{};  // [0] is the innermost loop
};

/// The payload of transpose, deinterleave and interleave plans: which axes form the two
/// unit-stride sides. transpose: axes[0, nj) form the destination-contiguous group J
/// (axes[0].ds == elem_size); i_axes[0, ni) index the source-contiguous group I (first has
/// ss == elem_size), disjoint from J. deinterleave / interleave: nj = ni = 1, axes[0] is the
/// destination-contiguous axis (pixels, resp. the channels) and i_axes[0] the source-contiguous
/// one (channels, resp. pixels).
struct TransposeGroups {
  std::size_t nj = 0;
  std::size_t ni = 0;
  std::array<std::uint8_t, plan_max_rank> i_axes{};
};

/// The planner's result. Kernels are handed only their part (copy.hpp: run_plan): the nest, and
/// the groups for the three kinds that have them (for the others the groups stay zero). The
/// groups are a base rather than a std::variant alternative so that a plan reads as one record
/// (p.nj, p.i_axes) where tests assert the planner's choices.
struct CopyPlan : PlanNest, TransposeGroups {
  const PlanNest& nest() const noexcept { return *this; }
  const TransposeGroups& groups() const noexcept { return *this; }
};

namespace plan_impl {

inline std::ptrdiff_t sgn(std::size_t i) noexcept { return static_cast<std::ptrdiff_t>(i); }

/// A stable insertion sort for the planners' few axes (at most plan_max_rank): std::stable_sort
/// allocates a temporary buffer on every call, which a small copy would pay for each time.
template <class It, class Less>
void stable_sort_axes(It first, It last, Less less) noexcept {
  for (It i = first; i != last; ++i) {
    auto item = *i;
    It j = i;
    for (; j != first && less(item, *(j - 1)); --j) *j = *(j - 1);
    *j = item;
  }
}

// Drops extent-1 axes and flips destination-negative axes. Returns false for an empty copy.
inline bool canonical_axes(const CopyArgs& a, PlanNest& p) noexcept {
  std::ptrdiff_t src_off = 0, dst_off = 0;
  std::size_t r = 0;
  for (std::size_t k = 0; k < a.shape.size(); ++k)
    if (a.shape[k] == 0) return false;
  for (std::size_t k = 0; k < a.shape.size(); ++k) {
    const std::size_t n = a.shape[k];
    if (n == 1) continue;
    if (r == plan_max_rank) return false;  // outside the contract; copy_strided never plans it
    PlanAxis ax{n, byte_stride(a.src_strides[k], a.elem_size),
                byte_stride(a.dst_strides[k], a.elem_size)};
    if (ax.ds < 0) {  // walk the destination forwards: start both pointers at the last element
      src_off += (sgn(n) - 1) * ax.ss;
      dst_off += (sgn(n) - 1) * ax.ds;
      ax.ss = -ax.ss;
      ax.ds = -ax.ds;
    }
    p.axes[r++] = ax;
  }
  p.src = a.src;
  p.dst = a.dst;
  p.src_offset = src_off;
  p.dst_offset = dst_off;
  p.rank = r;
  p.elem_size = a.elem_size;
  return true;
}

// Sorts innermost first by destination stride, then merges neighbours contiguous in both views.
inline void order_and_merge(PlanNest& p) noexcept {
  auto* first = p.axes.data();
  stable_sort_axes(first, first + p.rank, [](const PlanAxis& x, const PlanAxis& y) {
    return x.ds != y.ds ? x.ds < y.ds : x.ss < y.ss;
  });
  std::size_t out = 0;
  for (std::size_t k = 0; k < p.rank; ++k) {
    const PlanAxis ax = p.axes[k];
    if (out > 0) {
      PlanAxis& in = p.axes[out - 1];
      const auto n = sgn(in.n);
      if (ax.ds == in.ds * n && ax.ss == in.ss * n) {
        in.n *= ax.n;
        continue;
      }
    }
    p.axes[out++] = ax;
  }
  p.rank = out;
}

// Folds an innermost axis contiguous in both views into the element size.
inline void fold_rows(PlanNest& p) noexcept {
  const auto es = sgn(p.elem_size);
  if (p.rank == 0 || p.axes[0].ds != es || p.axes[0].ss != es) return;
  p.elem_size *= p.axes[0].n;
  for (std::size_t k = 1; k < p.rank; ++k) p.axes[k - 1] = p.axes[k];
  --p.rank;
}

// Destination-contiguous group J = axes[0, nj): the chain ds = es, es*n0, es*n0*n1, ...
inline std::size_t dst_chain_length(const PlanNest& p) noexcept {
  const auto es = sgn(p.elem_size);
  if (p.rank == 0 || p.axes[0].ds != es) return 0;
  std::size_t len = 1;
  std::ptrdiff_t next = es * sgn(p.axes[0].n);
  while (len < p.rank && p.axes[len].ds == next) {
    next *= sgn(p.axes[len].n);
    ++len;
  }
  return len;
}

// Reverses an axis in both views: both starts move to its last element.
inline void reverse_axis(PlanNest& p, PlanAxis& ax) noexcept {
  p.src_offset += (sgn(ax.n) - 1) * ax.ss;
  p.dst_offset += (sgn(ax.n) - 1) * ax.ds;
  ax.ss = -ax.ss;
  ax.ds = -ax.ds;
}

// The axis with source stride `ss`, else one with -ss; rank if none.
inline std::size_t find_src_axis(const PlanNest& p, std::ptrdiff_t ss) noexcept {
  std::size_t backwards = p.rank;
  for (std::size_t k = 0; k < p.rank; ++k) {
    if (p.axes[k].ss == ss) return k;
    if (p.axes[k].ss == -ss && backwards == p.rank) backwards = k;
  }
  return backwards;
}

// Source-contiguous chain among the axes outside [0, nj): |ss| = es, es*n_a, es*n_a*n_b, ...
// An axis read backwards (a flip) belongs to the chain once reversed in both views, which
// choose_transpose_groups does: the I group indexes the destination through a table, so its
// axes may have negative destination strides. Without it a flip in the middle of the source's
// contiguous axes leaves a group of 3-5 elements (u8 [3013, 3, 1610] with the 3013 axis flipped).
inline std::size_t src_chain(const PlanNest& p, std::size_t nj,
                             std::array<std::uint8_t, plan_max_rank>& out) noexcept {
  std::size_t len = 0;
  std::ptrdiff_t want = sgn(p.elem_size);
  for (;;) {
    const std::size_t found = find_src_axis(p, want);
    if (found == p.rank || found < nj) return len;
    out[len++] = static_cast<std::uint8_t>(found);
    want *= sgn(p.axes[found].n);
  }
}

inline std::size_t group_extent(const PlanNest& p, std::size_t count, const std::uint8_t* idx) {
  std::size_t e = 1;
  for (std::size_t k = 0; k < count; ++k) e *= p.axes[idx != nullptr ? idx[k] : k].n;
  return e;
}

// Picks the split of the destination chain that gives the squarest tile: a long J group can leave
// too few source-contiguous axes for I (their chains interleave in high-rank permutes). Sets `g`
// and reverses I's backwards axes only when the tile is wide enough for a transpose.
inline bool choose_transpose_groups(PlanNest& p, TransposeGroups& g) noexcept {
  const std::size_t chain = dst_chain_length(p);
  if (chain == 0 || p.axes[0].ss == sgn(p.elem_size)) return false;
  constexpr std::size_t cap = 64;  // beyond a macro-tile edge, longer groups do not help
  std::size_t best_score = 0;
  TransposeGroups best;
  for (std::size_t nj = 1; nj <= chain; ++nj) {
    std::array<std::uint8_t, plan_max_rank> ia{};
    const std::size_t ni = src_chain(p, nj, ia);
    if (ni == 0) continue;
    const std::size_t ej = std::min(group_extent(p, nj, nullptr), cap);
    const std::size_t ei = std::min(group_extent(p, ni, ia.data()), cap);
    const std::size_t score = std::min(ej, ei) * (cap + 1) + std::max(ej, ei);  // min, then max
    if (score > best_score) {
      best_score = score;
      best = {nj, ni, ia};
    }
  }
  // Tiles narrower than 4 elements on a side gain nothing over the strided loop; nor do tiles
  // narrower than 16 bytes, below every vector kernel.
  const std::size_t min_side = std::max<std::size_t>(4, 16 / p.elem_size);
  if (best_score / (cap + 1) < min_side) return false;
  for (std::size_t k = 0; k < best.ni; ++k)
    if (PlanAxis& ax = p.axes[best.i_axes[k]]; ax.ss < 0) reverse_axis(p, ax);
  g = best;
  return true;
}

// When no axis has source stride +elem_size but one has -elem_size, that axis is the source's
// contiguous direction read backwards: flipping it in both views gives the kernels a unit-stride
// source again (its destination stride goes negative, which their offset tables handle). Without
// this, the destination-first loop order sweeps the whole source once per index of that axis.
inline void unflip_source_unit_axis(PlanNest& p) noexcept {
  const auto es = sgn(p.elem_size);
  std::size_t backwards = p.rank;
  for (std::size_t k = 0; k < p.rank; ++k) {
    if (p.axes[k].ss == es) return;
    if (p.axes[k].ss == -es && k > 0) backwards = k;
  }
  if (backwards < p.rank) reverse_axis(p, p.axes[backwards]);
}

// Channel counts and element sizes the (de)interleave kernels handle.
inline bool channel_kernel_fits(std::size_t channels, std::size_t es) noexcept {
  return channels >= 2 && channels <= 4 && (es == 1 || es == 2 || es == 4 || es == 8);
}

// The unique axis other than axes[0] with source stride `ss`, destination stride `ds` (any when
// ds == 0) and, when n != 0, extent n; rank when there is none.
inline std::size_t find_axis(const PlanNest& p, std::ptrdiff_t ss, std::ptrdiff_t ds,
                             std::size_t n) noexcept {
  for (std::size_t k = 1; k < p.rank; ++k)
    if (p.axes[k].ss == ss && (ds == 0 || p.axes[k].ds == ds) && (n == 0 || p.axes[k].n == n))
      return k;
  return p.rank;
}

// A short channel axis contiguous on one side only, the pixel axis contiguous on the other:
// channel-last <-> channel-first images. A 2-D transpose would have tiles 2-4 elements wide.
// Sets `g` (one axis a side) when it picks one of the channel kernels.
inline PlanKind choose_channels(const PlanNest& p, TransposeGroups& g) noexcept {
  const auto es = sgn(p.elem_size);
  const PlanAxis& a0 = p.axes[0];
  if (p.rank < 2 || a0.ds != es) return PlanKind::strided;
  std::size_t k = p.rank;
  PlanKind kind = PlanKind::strided;
  for (std::size_t c = 2; c <= 4 && kind == PlanKind::strided; ++c) {
    if (!channel_kernel_fits(c, p.elem_size)) break;
    if (a0.ss == sgn(c) * es && (k = find_axis(p, es, 0, c)) < p.rank) {
      kind = PlanKind::deinterleave;  // pixels packed in the source, channels its unit axis
    } else if (a0.n == c && (k = find_axis(p, es, sgn(c) * es, 0)) < p.rank) {
      kind = PlanKind::interleave;  // channels packed in the destination, pixels unit in source
    }
  }
  if (kind == PlanKind::strided) return kind;
  g.nj = 1;
  g.ni = 1;
  g.i_axes[0] = static_cast<std::uint8_t>(k);
  return kind;
}

}  // namespace plan_impl

/// Plans a copy: canonical axes, then the kernel. Pure function of the arguments (no allocation).
/// Precondition: at most plan_max_rank axes of extent >= 2 (copy_strided checks it).
inline CopyPlan plan_copy(const CopyArgs& a) noexcept {
  CopyPlan p;
  p.whole_dst_bytes = a.whole_dst_bytes;
  if (!plan_impl::canonical_axes(a, p)) return p;  // kind = nothing
  plan_impl::order_and_merge(p);
  const std::size_t rank_before_fold = p.rank;
  plan_impl::fold_rows(p);
  if (p.rank == 0) {
    p.kind = PlanKind::single_memcpy;
  } else if (p.rank < rank_before_fold && p.elem_size >= 64) {
    p.kind = PlanKind::rowwise_memcpy;  // long rows: memcpy each one
  } else if (p.axes[0].ss == 0 && p.axes[0].ds == plan_impl::sgn(p.elem_size)) {
    p.kind = PlanKind::fill;
  } else {
    plan_impl::unflip_source_unit_axis(p);
    TransposeGroups& groups = p;
    if (const PlanKind ch = plan_impl::choose_channels(p, groups); ch != PlanKind::strided)
      p.kind = ch;
    else if (plan_impl::choose_transpose_groups(p, groups))
      p.kind = PlanKind::transpose;
    else
      p.kind = PlanKind::strided;
  }
  return p;
}

}  // namespace strided::detail
