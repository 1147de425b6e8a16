// The main() of strided's benchmarks: the ISA level the kernels use, on stderr and in the JSON
// context (so a result file says what it measured), then Google Benchmark's own run.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <strided/detail/simd/isa.hpp>
#include <strided/parallel.hpp>
#include <string>

namespace strided_bench {

/// One thread unless STRIDED_NUM_THREADS asks for more: the figures are ratios to a one-thread
/// memcpy beside one-thread peers, and sweep_bench times the calling thread's CPU only, which
/// would miss the pool's share. parallel_bench sets its thread counts per case. Returns the count.
inline std::size_t one_thread_unless_asked() {
  if (std::getenv("STRIDED_NUM_THREADS") == nullptr) strided::set_num_threads(1);
  return strided::num_threads();
}

/// Prints "strided <name>: ISA level <level>, <n> thread(s)<extra>", records both as context
/// (`strided_isa`, `strided_threads`), calls `register_all()`, then runs the benchmarks the
/// command line selects.
template <class Register>
int run(int argc, char** argv, const char* name, Register register_all,
        const std::string& extra = {}) {
  const std::string isa(strided::detail::isa_name(strided::detail::active_isa()));
  const std::size_t threads = one_thread_unless_asked();
  std::fprintf(stderr, "strided %s: ISA level %s, %zu thread(s)%s\n", name, isa.c_str(), threads,
               extra.c_str());
  benchmark::AddCustomContext("strided_isa", isa);
  benchmark::AddCustomContext("strided_threads", std::to_string(threads));
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace strided_bench
