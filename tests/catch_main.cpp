// Catch2 v3 brings its own main (Catch2::Catch2WithMain); v2 needs one translation unit with it.
#if !__has_include(<catch2/catch_all.hpp>)
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#endif
