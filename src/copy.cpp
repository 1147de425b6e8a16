// libstrided: the compiled mode's one definition of every engine (CMake target strided::compiled,
// which defines STRIDED_COMPILED_LIB for these files and for its consumers). The public headers
// then only declare the entry points; the -inl.hpp files included here are the same ones that
// header-only mode includes from those headers. One file per engine, so that they build in
// parallel; this one: the copy engine, gather, batching, buffers and threads.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include "strided/detail/batch-inl.hpp"
#include "strided/detail/buffer-inl.hpp"
#include "strided/detail/copy/copy-inl.hpp"
#include "strided/detail/gather-inl.hpp"
#include "strided/detail/parallel/pool-inl.hpp"
