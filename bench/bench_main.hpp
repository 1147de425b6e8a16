// The main() of strided's benchmarks: the ISA level the kernels use, on stderr and in the JSON
// context (so a result file says what it measured), then Google Benchmark's own run.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <strided/detail/simd/isa.hpp>
#include <string>

namespace strided_bench {

/// Prints "strided <name>: ISA level <level><extra>", records the level as context
/// `strided_isa`, calls `register_all()`, then runs the benchmarks the command line selects.
template <class Register>
int run(int argc, char** argv, const char* name, Register register_all,
        const std::string& extra = {}) {
  const std::string isa(strided::detail::isa_name(strided::detail::active_isa()));
  std::fprintf(stderr, "strided %s: ISA level %s%s\n", name, isa.c_str(), extra.c_str());
  benchmark::AddCustomContext("strided_isa", isa);
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace strided_bench
