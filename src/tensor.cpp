// libstrided, the compiled mode's library (see src/copy.cpp): the tensor factories' layout checks
// that do not depend on the element type.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include "strided/detail/row_major-inl.hpp"
