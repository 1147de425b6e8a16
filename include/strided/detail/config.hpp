// The first thing every public header includes: the language check, before any code that would
// fail on an older standard with pages of unrelated errors.
#pragma once

#if defined(_MSVC_LANG)
#define STRIDED_CPLUSPLUS _MSVC_LANG
#else
#define STRIDED_CPLUSPLUS __cplusplus
#endif

#if STRIDED_CPLUSPLUS < 202002L
#error \
    "strided needs C++20 or later: compile with -std=c++20 (CMake: link strided::strided, or target_compile_features(<target> PRIVATE cxx_std_20))"
// #error lets the compiler go on to the rest of the headers; a missing include stops it here.
#include <strided_stops_here_because_it_needs_cpp20>
#endif
