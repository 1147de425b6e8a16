// libstrided: the compiled mode's one definition of every engine (CMake target strided::compiled,
// which defines STRIDED_COMPILED_LIB for these files and for its consumers). The public headers
// then only declare the entry points; the -inl.hpp files included here are the same ones that
// header-only mode includes from those headers. One file per engine, so that they build in
// parallel; this one: every cast between two built-in element types.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include <cstddef>
#include <cstdint>

#include "strided/detail/cast-inl.hpp"
#include "strided/half.hpp"

#define STRIDED_CAST_PAIR(From, To) \
  template void strided::detail::cast_contiguous_parallel<From, To>(const From*, To*, std::size_t);
#define STRIDED_CASTS_FROM(From)         \
  STRIDED_CAST_PAIR(From, bool)          \
  STRIDED_CAST_PAIR(From, std::uint8_t)  \
  STRIDED_CAST_PAIR(From, std::int8_t)   \
  STRIDED_CAST_PAIR(From, std::uint16_t) \
  STRIDED_CAST_PAIR(From, std::int16_t)  \
  STRIDED_CAST_PAIR(From, std::uint32_t) \
  STRIDED_CAST_PAIR(From, std::int32_t)  \
  STRIDED_CAST_PAIR(From, std::uint64_t) \
  STRIDED_CAST_PAIR(From, std::int64_t)  \
  STRIDED_CAST_PAIR(From, strided::f16)  \
  STRIDED_CAST_PAIR(From, strided::bf16) \
  STRIDED_CAST_PAIR(From, float)         \
  STRIDED_CAST_PAIR(From, double)

STRIDED_CASTS_FROM(bool)
STRIDED_CASTS_FROM(std::uint8_t)
STRIDED_CASTS_FROM(std::int8_t)
STRIDED_CASTS_FROM(std::uint16_t)
STRIDED_CASTS_FROM(std::int16_t)
STRIDED_CASTS_FROM(std::uint32_t)
STRIDED_CASTS_FROM(std::int32_t)
STRIDED_CASTS_FROM(std::uint64_t)
STRIDED_CASTS_FROM(std::int64_t)
STRIDED_CASTS_FROM(strided::f16)
STRIDED_CASTS_FROM(strided::bf16)
STRIDED_CASTS_FROM(float)
STRIDED_CASTS_FROM(double)
