// Helpers shared by the tests: the seed every randomised test starts from, and the ISA levels a
// kernel test iterates over.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

#include "catch_shim.hpp"
#include "strided/detail/simd/isa.hpp"

namespace strided_test {

/// STRIDED_TEST_SEED when it is set (to replay a failure), else a fresh seed.
inline std::uint64_t test_seed() {
  const char* fixed = std::getenv("STRIDED_TEST_SEED");
  if (fixed != nullptr && *fixed != '\0') return std::stoull(fixed);
  return std::random_device{}();
}

/// How many ISA levels this architecture has (scalar, then avx2 and avx512, or neon).
inline constexpr int architecture_levels = STRIDED_X86 ? 3 : STRIDED_NEON ? 2 : 1;

/// True when the CPU runs `level`; a level it lacks is reported (a warning naming `what` is
/// untested), so that a green run on a smaller machine does not pass for a full one.
inline bool level_runs(strided::detail::Isa level, const char* what) {
  if (static_cast<int>(level) < strided::detail::available_isa_count()) return true;
  WARN("ISA level " << std::string(strided::detail::isa_name(level))
                    << " is not available on this CPU: its " << what << " are not tested");
  return false;
}

/// The levels this CPU runs, counted from scalar; each missing one reported as level_runs does.
inline int testable_levels(const char* what) {
  int n = 0;
  for (int l = 0; l < architecture_levels; ++l)
    if (level_runs(static_cast<strided::detail::Isa>(l), what)) n = l + 1;
  return n;
}

}  // namespace strided_test

/// Declares `name`, the seed of a randomised test, and prints it with every failure below it in
/// the same scope, with how to replay it.
#define STRIDED_TEST_RANDOM_SEED(name)                    \
  const std::uint64_t name = ::strided_test::test_seed(); \
  INFO("seed " << name << " (set STRIDED_TEST_SEED=" << name << " to replay)")
