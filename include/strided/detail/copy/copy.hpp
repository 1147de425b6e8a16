// Entry points of the strided copy engine: any strided source into any strided destination.
// Tensor::contiguous(), copy_to, casts, stacking and map/zip_with's scratch copies call them; the
// engine itself (planning, kernels, chunking) is copy-inl.hpp.
#pragma once

// clang-format off
#include "strided/detail/config.hpp"  // first: the C++20 check
// clang-format on

#include "strided/detail/copy/args.hpp"

namespace strided::detail {

/// Copies every element of the source view to the destination view, on the calling thread.
STRIDED_FUNC void copy_strided_serial(const CopyArgs& args);

/// Copies every element of the source view to the destination view; large copies on every
/// thread of the pool (results are the same bytes: each element is written once, by one thread).
STRIDED_FUNC void copy_strided(const CopyArgs& args);

}  // namespace strided::detail

#if STRIDED_HEADER_ONLY
#include "strided/detail/copy/copy-inl.hpp"
#endif
