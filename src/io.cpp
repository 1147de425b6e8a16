// libstrided, the compiled mode's library (see src/copy.cpp): file reading and mapping, and the
// .npy header's parser and writer.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include "strided/detail/io/file-inl.hpp"
#include "strided/io/npy_header-inl.hpp"
