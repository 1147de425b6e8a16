// The strided copy engine's entry points (declared in copy.hpp): any strided source into any
// strided destination. Included by copy.hpp in header-only mode, compiled into libstrided
// otherwise.
//
// plan.hpp reduces the copy to a canonical loop nest and names a kernel; loops.hpp and
// transpose.hpp run it. Tensor::contiguous(), copy_to, casts and stacking call this. A large copy
// is cut into chunks (parallel/copy_chunks.hpp), each planned and run serially on the pool.
#pragma once

#include <cstddef>
#include <cstring>

#include "strided/detail/copy/args.hpp"
#include "strided/detail/copy/copy.hpp"
#include "strided/detail/copy/interleave.hpp"
#include "strided/detail/copy/loops.hpp"
#include "strided/detail/copy/plan.hpp"
#include "strided/detail/copy/transpose.hpp"
#include "strided/detail/parallel/copy_chunks.hpp"
#include "strided/detail/parallel/parallel_for.hpp"
#include "strided/detail/parallel/pool-inl.hpp"

namespace strided::detail {

namespace copy_impl {

// Only reached by arguments outside the contract (more than 64 axes of extent >= 2, which needs
// zero or overlapping destination strides): a plain recursion that makes no assumption.
inline void naive(const CopyArgs& a, std::size_t axis, const std::byte* s, std::byte* d) {
  if (axis == a.shape.size()) {
    std::memcpy(d, s, a.elem_size);
    return;
  }
  const std::ptrdiff_t ss = byte_stride(a.src_strides[axis], a.elem_size);
  const std::ptrdiff_t ds = byte_stride(a.dst_strides[axis], a.elem_size);
  for (std::size_t i = 0; i < a.shape[axis]; ++i) {
    const auto k = static_cast<std::ptrdiff_t>(i);
    naive(a, axis + 1, s + k * ss, d + k * ds);
  }
}

inline bool fits_plan(const CopyArgs& a) noexcept {
  std::size_t r = 0;
  for (std::size_t n : a.shape) r += n > 1 ? 1 : 0;
  return r <= plan_max_rank;
}

// Each kernel gets the nest, and the groups only the kinds that have them (plan.hpp: CopyPlan).
inline void run_plan(const CopyPlan& p) {
  switch (p.kind) {
    case PlanKind::nothing:
      return;
    case PlanKind::single_memcpy:
      std::memcpy(p.dst + p.dst_offset, p.src + p.src_offset, p.elem_size);
      return;
    case PlanKind::rowwise_memcpy:
      return run_rowwise(p);
    case PlanKind::fill:
      return run_fill(p);
    case PlanKind::transpose:
      return run_transpose(p, p.groups());
    case PlanKind::deinterleave:
      return run_deinterleave(p, p.groups());
    case PlanKind::interleave:
      return run_interleave(p, p.groups());
    case PlanKind::strided:
      return run_strided(p);
  }
}

}  // namespace copy_impl

STRIDED_FUNC void copy_strided_serial(const CopyArgs& args) {
  if (args.elem_size == 0) return;
  if (!copy_impl::fits_plan(args)) {
    for (std::size_t n : args.shape)
      if (n == 0) return;
    copy_impl::naive(args, 0, args.src, args.dst);
    return;
  }
  copy_impl::run_plan(plan_copy(args));
}

STRIDED_FUNC void copy_strided(const CopyArgs& args) {
  if (args.elem_size == 0) return;
  std::size_t bytes = args.elem_size;
  for (std::size_t n : args.shape)
    if (__builtin_mul_overflow(bytes, n, &bytes)) return copy_strided_serial(args);
  const std::size_t chunks = chunk_count(bytes);
  if (chunks < 2 || !copy_impl::fits_plan(args)) return copy_strided_serial(args);
  const CopyChunks split(args, chunks);
  parallel_for(split.count(), [&](std::size_t c) { split.run(c, copy_strided_serial); });
}

}  // namespace strided::detail
