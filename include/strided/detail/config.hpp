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

// Build modes, as {fmt}'s: header-only by default (every engine entry point is an inline
// function whose definition each public header pulls in), or compiled (the CMake target
// strided::compiled defines STRIDED_COMPILED_LIB: the public headers only declare the entry
// points, and libstrided holds their one definition). The same -inl.hpp files define them in both.
#if defined(STRIDED_COMPILED_LIB)
#define STRIDED_HEADER_ONLY 0
#define STRIDED_FUNC
#else
#define STRIDED_HEADER_ONLY 1
#define STRIDED_FUNC inline
#endif
