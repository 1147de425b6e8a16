#include "catch_shim.hpp"
// Instruction-set levels (detail/simd/isa.hpp): reports which ISA paths this run exercises on this
// architecture (a WARN names each level the CPU lacks, whose kernels were therefore not tested),
// and checks that STRIDED_ISA and ScopedIsa select the kernels the dispatchers hand out.
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <strided/detail/simd/isa.hpp>
#include <strided/detail/simd/transpose_dispatch.hpp>
#include <string>

namespace {

using strided::detail::active_isa;
using strided::detail::available_isa_count;
using strided::detail::cpu_features;
using strided::detail::Isa;
using strided::detail::isa_name;
using strided::detail::ScopedIsa;

/// Every level this architecture defines, lowest first.
constexpr Isa architecture_levels[] = {
#if STRIDED_NEON
    Isa::scalar, Isa::neon
#else
    Isa::scalar, Isa::avx2, Isa::avx512
#endif
};

constexpr const char* architecture =
#if STRIDED_NEON
    "aarch64";
#elif STRIDED_X86
    "x86";
#else
    "other (scalar kernels only)";
#endif

}  // namespace

TEST_CASE("isa: the levels tested on this machine", "[isa]") {
  std::string tested;
  for (int level = 0; level < available_isa_count(); ++level)
    tested += std::string(tested.empty() ? "" : ", ") + std::string(isa_name(Isa(level)));
  // Printed with -s and by ctest --output-on-failure / -V: which paths this run covers.
  std::printf("isa: architecture %s, CPU level %s, cross-ISA tests run: %s\n", architecture,
              std::string(isa_name(cpu_features().level)).c_str(), tested.c_str());
  for (const Isa level : architecture_levels) {
    if (static_cast<int>(level) >= available_isa_count())
      WARN("isa level " << isa_name(level) << " is not available on this CPU: its kernels are "
                        << "not tested in this run");
  }
  CHECK(available_isa_count() >= 1);
  CHECK(available_isa_count() <= static_cast<int>(std::size(architecture_levels)));
#if STRIDED_NEON
  CHECK(cpu_features().level == Isa::neon);  // Advanced SIMD is part of every aarch64 CPU
#endif
}

TEST_CASE("isa: names and STRIDED_ISA values", "[isa]") {
  using strided::detail::isa_impl::from_env;
  const Isa best = cpu_features().level;
  for (const Isa level : architecture_levels) {
    const std::string name(isa_name(level));
    ::setenv("STRIDED_ISA", name.c_str(), 1);
    // A level above the CPU's cannot be forced: the CPU's best is used.
    const Isa want = static_cast<int>(level) <= static_cast<int>(best) ? level : best;
    CHECK(from_env(best) == want);
  }
  ::setenv("STRIDED_ISA", "no-such-level", 1);
  CHECK(from_env(best) == best);
  ::unsetenv("STRIDED_ISA");
  CHECK(from_env(best) == best);
  CHECK(isa_name(Isa::scalar) == "scalar");
}

TEST_CASE("isa: ScopedIsa forces a level and the transpose dispatch follows it", "[isa]") {
  using strided::detail::simd::tile_kernel;
  for (int level = 0; level < available_isa_count(); ++level) {
    ScopedIsa forced(static_cast<Isa>(level));
    CHECK(active_isa() == static_cast<Isa>(level));
    const bool scalar = level == 0;
    for (const std::size_t es : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
      const auto kernel = tile_kernel(es, 64, 64);
      const auto reference = strided::detail::simd::scalar_tile_kernel(es, 64);
      INFO("isa " << isa_name(static_cast<Isa>(level)) << ", element size " << es);
      // The scalar level uses the scalar kernels; every SIMD level replaces them for 1-8 bytes.
      CHECK((kernel.fn == reference.fn) == scalar);
#if STRIDED_NEON
      if (!scalar) CHECK(kernel.wi * es == 16);  // one 128-bit register per row
#endif
    }
  }
  {
    ScopedIsa forced(Isa::scalar);
    CHECK(active_isa() == Isa::scalar);
  }
}
