// libstrided's safetensors JSON half (built only where nlohmann_json is found; the target then
// defines STRIDED_COMPILED_SAFETENSORS for itself and its consumers).
#include "strided/detail/config.hpp"

#if STRIDED_HEADER_ONLY || !defined(STRIDED_COMPILED_SAFETENSORS)
#error "src/safetensors.cpp belongs to strided::compiled built with nlohmann_json"
#endif

#include "strided/io/safetensors-inl.hpp"
