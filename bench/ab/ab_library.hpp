// The interface between bench/ab/ab_compare.cpp and the two sides of ab_library.cpp: plain types
// only, since each side names the library's types in a namespace of its own.
#pragma once

#include <cstddef>

namespace strided_ab {

/// A strided copy, as detail::CopyArgs takes it, on `threads` threads.
struct Copy {
  const std::size_t* shape;
  std::size_t rank;
  const std::byte* src;
  const std::ptrdiff_t* src_strides;
  std::byte* dst;
  const std::ptrdiff_t* dst_strides;
  std::size_t elem_size;
  std::size_t threads;
};

/// An element-wise operation over a rows x cols f32 matrix at `src` (ab_ops.cpp lists the kinds).
struct Op {
  int kind;
  const float* src;
  std::size_t rows, cols;
  std::size_t threads;
};

}  // namespace strided_ab

extern "C" {
void strided_ab_copy_base(const strided_ab::Copy* c);
void strided_ab_copy_new(const strided_ab::Copy* c);
double strided_ab_op_base(const strided_ab::Op* op);
double strided_ab_op_new(const strided_ab::Op* op);
void strided_ab_memcpy_all_base(std::byte* dst, const std::byte* src, std::size_t bytes,
                                std::size_t threads);
void strided_ab_memcpy_all_new(std::byte* dst, const std::byte* src, std::size_t bytes,
                               std::size_t threads);
}
