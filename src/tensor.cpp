// libstrided, the compiled mode's library (see src/copy.cpp): what tensors of every element type
// share: the factories' layout checks, the row-major copy, and Layout's split / chunk / unbind.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include "strided/detail/row_major-inl.hpp"
#include "strided/layout_pieces-inl.hpp"
