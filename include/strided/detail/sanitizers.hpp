// Which sanitizers instrument this translation unit, detected once for GCC and Clang: the library
// turns off what they would misjudge (the buffer cache) or take too long over (the unroll pragma).
#pragma once

// AddressSanitizer, or its hardware-assisted twin.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_HWADDRESS__)
#define STRIDED_DETAIL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(hwaddress_sanitizer)
#define STRIDED_DETAIL_ASAN 1
#endif
#endif

// MemorySanitizer (Clang only).
#if defined(__has_feature)
#if __has_feature(memory_sanitizer)
#define STRIDED_DETAIL_MSAN 1
#endif
#endif
