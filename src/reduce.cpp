// libstrided, the compiled mode's library (see src/copy.cpp): the reductions engine, every
// reduction of every built-in element type.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include <cstdint>

#include "strided/detail/reduce-inl.hpp"
#include "strided/half.hpp"

#define STRIDED_REDUCE_KIND(K, T)                                                     \
  template void                                                                       \
  strided::detail::reduce::reduce_strided<strided::detail::reduce::ReduceKind::K, T>( \
      const strided::detail::reduce::ReduceArgs&);
#define STRIDED_REDUCE_ALL_KINDS(T) \
  STRIDED_REDUCE_KIND(sum, T)       \
  STRIDED_REDUCE_KIND(mean, T)      \
  STRIDED_REDUCE_KIND(min, T)       \
  STRIDED_REDUCE_KIND(max, T)       \
  STRIDED_REDUCE_KIND(argmin, T)    \
  STRIDED_REDUCE_KIND(argmax, T)    \
  STRIDED_REDUCE_KIND(var, T)       \
  STRIDED_REDUCE_KIND(std, T)

STRIDED_REDUCE_ALL_KINDS(bool)
STRIDED_REDUCE_ALL_KINDS(std::uint8_t)
STRIDED_REDUCE_ALL_KINDS(std::int8_t)
STRIDED_REDUCE_ALL_KINDS(std::uint16_t)
STRIDED_REDUCE_ALL_KINDS(std::int16_t)
STRIDED_REDUCE_ALL_KINDS(std::uint32_t)
STRIDED_REDUCE_ALL_KINDS(std::int32_t)
STRIDED_REDUCE_ALL_KINDS(std::uint64_t)
STRIDED_REDUCE_ALL_KINDS(std::int64_t)
STRIDED_REDUCE_ALL_KINDS(strided::f16)
STRIDED_REDUCE_ALL_KINDS(strided::bf16)
STRIDED_REDUCE_ALL_KINDS(float)
STRIDED_REDUCE_ALL_KINDS(double)
