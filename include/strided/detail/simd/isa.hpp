// Runtime instruction-set selection shared by every SIMD kernel (copies, casts).
//
// Kernels are compiled for several levels with [[gnu::target]] and picked here at run time, so a
// binary built without -march=native still uses AVX-512 where the CPU has it. The level can be
// forced lower with STRIDED_ISA=scalar|avx2|avx512 (read once) or, in tests, with ScopedIsa.
// On aarch64 the levels are scalar and neon (Advanced SIMD, which every aarch64 CPU has, so it
// needs neither a probe nor a target attribute); STRIDED_ISA=scalar forces the scalar paths.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "strided/detail/sanitizers.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define STRIDED_X86 1
#else
#define STRIDED_X86 0
#endif

// The target features of the x86 levels below, as [[gnu::target]] strings: the one definition
// every kernel's attribute is written with.
#define STRIDED_AVX2_FEATURES "avx2,fma,f16c"
#define STRIDED_AVX512_FEATURES "avx512f,avx512bw,avx512dq,avx512vl"

// Put before a loop of fixed count over an array of registers: it must be unrolled whole, or the
// array lives on the stack. GCC unrolls such loops at -O3 but not at -O2 (there a complete unroll
// may not grow the code), and the transposes' register arrays would spill to the stack at -O2.
// Not under AddressSanitizer: clang then instruments every unrolled array, which makes one
// sanitized translation unit take many times longer and gigabytes to compile, and warns of loops
// it could not unroll.
#if defined(__GNUC__) && !defined(STRIDED_DETAIL_ASAN)
#define STRIDED_UNROLLED _Pragma("GCC unroll 64")
#else
#define STRIDED_UNROLLED
#endif

#if defined(__aarch64__) && defined(__ARM_NEON)
#define STRIDED_NEON 1
#else
#define STRIDED_NEON 0
#endif

namespace strided::detail {

/// Instruction-set levels of this architecture, ordered: a level implies every lower one.
/// x86: `avx2` means AVX2 + FMA + F16C; `avx512` means AVX-512 F, BW, DQ and VL.
/// aarch64: `neon` means Advanced SIMD with its f16 conversions (both part of ARMv8-A).
/// Each architecture names only its own levels, so that tests can walk them as 0, 1, ...
#if STRIDED_NEON
enum class Isa : int { scalar = 0, neon = 1 };
#else
enum class Isa : int { scalar = 0, avx2 = 1, avx512 = 2 };
#endif

constexpr std::string_view isa_name(Isa isa) noexcept {
  switch (isa) {
#if STRIDED_NEON
    case Isa::neon:
      return "neon";
#else
    case Isa::avx2:
      return "avx2";
    case Isa::avx512:
      return "avx512";
#endif
    default:
      return "scalar";
  }
}

/// What the CPU offers, beyond the ordered levels.
struct CpuFeatures {
  Isa level = Isa::scalar;
  bool avx512_bf16 = false;  // vcvtne2ps2bf16 / vcvtneps2bf16 / vdpbf16ps
};

namespace isa_impl {

#if STRIDED_X86
inline bool os_saves(unsigned mask) noexcept {
  unsigned eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (eax & mask) == mask;
}

inline CpuFeatures probe() noexcept {
  CpuFeatures f;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return f;
  const bool osxsave = (c & (1u << 27)) != 0;
  const bool fma = (c & (1u << 12)) != 0;
  const bool f16c = (c & (1u << 29)) != 0;
  if (!osxsave || !os_saves(0x6)) return f;  // XMM and YMM state
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d) == 0) return f;
  const bool avx2 = (b & (1u << 5)) != 0;
  if (!(avx2 && fma && f16c)) return f;
  f.level = Isa::avx2;
  const bool avx512 = (b & (1u << 16)) && (b & (1u << 17)) && (b & (1u << 30)) && (b & (1u << 31));
  if (!avx512 || !os_saves(0xE6)) return f;  // opmask and ZMM state
  f.level = Isa::avx512;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  if (__get_cpuid_count(7, 1, &a1, &b1, &c1, &d1) != 0) f.avx512_bf16 = (a1 & (1u << 5)) != 0;
  return f;
}
#elif STRIDED_NEON
inline CpuFeatures probe() noexcept { return {Isa::neon}; }
#else
inline CpuFeatures probe() noexcept { return {}; }
#endif

inline Isa from_env(Isa detected) noexcept {
  const char* env = std::getenv("STRIDED_ISA");
  if (env == nullptr) return detected;
  const std::string_view v(env);
  Isa wanted = detected;
  if (v == "scalar") wanted = Isa::scalar;
#if STRIDED_NEON
  if (v == "neon") wanted = Isa::neon;
#else
  if (v == "avx2") wanted = Isa::avx2;
  if (v == "avx512") wanted = Isa::avx512;
#endif
  // A level the CPU lacks cannot be forced: fall back to the best one it has.
  return static_cast<int>(wanted) < static_cast<int>(detected) ? wanted : detected;
}

// -1 = no override. Tests set it through ScopedIsa to run every level in one process.
inline std::atomic<int> override_level{-1};

}  // namespace isa_impl

/// The CPU's features, probed once.
inline const CpuFeatures& cpu_features() noexcept {
  static const CpuFeatures features = isa_impl::probe();
  return features;
}

/// The level kernels should use now: the CPU's best, lowered by STRIDED_ISA or a ScopedIsa.
inline Isa active_isa() noexcept {
  const int forced = isa_impl::override_level.load(std::memory_order_relaxed);
  if (forced >= 0) return static_cast<Isa>(forced);
  static const Isa from_env = isa_impl::from_env(cpu_features().level);
  return from_env;
}

/// Whether AVX-512 BF16 instructions may be used at the active level.
inline bool use_avx512_bf16() noexcept {
#if STRIDED_NEON
  return false;
#else
  return active_isa() == Isa::avx512 && cpu_features().avx512_bf16;
#endif
}

/// Forces a level for the lifetime of the object (tests and benchmarks only; not thread-safe
/// against other ScopedIsa objects). A level above the CPU's is clamped to the CPU's.
class ScopedIsa {
 public:
  explicit ScopedIsa(Isa level) noexcept : previous_(isa_impl::override_level.load()) {
    const Isa best = cpu_features().level;
    const Isa use = static_cast<int>(level) < static_cast<int>(best) ? level : best;
    isa_impl::override_level.store(static_cast<int>(use));
  }
  ~ScopedIsa() { isa_impl::override_level.store(previous_); }
  ScopedIsa(const ScopedIsa&) = delete;
  ScopedIsa& operator=(const ScopedIsa&) = delete;

 private:
  int previous_;
};

/// Every level this CPU can run, lowest first (what cross-ISA tests iterate over).
inline int available_isa_count() noexcept { return static_cast<int>(cpu_features().level) + 1; }

}  // namespace strided::detail
