// libstrided, the compiled mode's library (see src/copy.cpp): the engine of map / zip_with for
// every input count.
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY
#error "src/ is the compiled mode's library: build it with STRIDED_COMPILED_LIB (strided::compiled)"
#endif

#include "strided/detail/zip-inl.hpp"

template bool strided::detail::zip::run<1>(const Job&);
template bool strided::detail::zip::run<2>(const Job&);
template bool strided::detail::zip::run<3>(const Job&);
template bool strided::detail::zip::run<4>(const Job&);
template bool strided::detail::zip::run<5>(const Job&);
template bool strided::detail::zip::run<6>(const Job&);
template bool strided::detail::zip::run<7>(const Job&);
template bool strided::detail::zip::run<8>(const Job&);
