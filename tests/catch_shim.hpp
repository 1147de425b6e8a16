// Lets the tests build with Catch2 v2 (Debian's single header) and v3 (split headers).
#pragma once
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif
