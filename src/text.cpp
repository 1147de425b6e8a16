// libstrided: the compiled mode's one definition of every engine (CMake target strided::compiled,
// which defines STRIDED_COMPILED_LIB for these files and for its consumers). The public headers
// then only declare the entry points; the -inl.hpp files included here are the same ones that
// header-only mode includes from those headers. One file per engine, so that they build in
// parallel; this one: the text engine and the error messages.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include <cstddef>
#include <cstdint>
#include <string>

#include "strided/data_error-inl.hpp"
#include "strided/detail/format.hpp"
#include "strided/half.hpp"
#include "strided/shape_error-inl.hpp"

// The text engine of every built-in element type (format.hpp declares them extern).
STRIDED_DETAIL_FORMAT_ALL()
