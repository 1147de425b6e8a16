// The cast driver and the `run` overloads of one ISA level, written once for all of them.
//
// Included (like Highway's per-target re-inclusion) at the end of each cast_<isa>.hpp, inside its
// namespace, after its kernels. A function's target attribute cannot depend on a template
// parameter, and a kernel compiled for AVX2 cannot be inlined into a function compiled without
// it, so the driver is compiled once per ISA from this text rather than once as a template.
//
// The including file defines:
//   STRIDED_CAST_DRIVER       the attributes of the driver (the ISA's target), may be empty;
//   STRIDED_CAST_STREAM_ALIGN the alignment of its widest store in bytes when the ISA streams
//                             stores past the cache (copy_impl::stream_threshold), else 0;
//   STRIDED_CAST_NATIVE_BF16  (optional) when the namespace has an F32ToBf16Native kernel that
//                             needs cpu_features().avx512_bf16;
// and the kernels F32ToF16, F16ToF32, F32ToBf16, Bf16ToF32, F32ToF64, F64ToF32, F32ToI32,
// F32ToI8, F32ToU8, I8ToF32, U8ToF32, I32ToF32, each with Src, Dst, `step` and
// `template <bool Stream> static void block(const Src*, Dst*)` converting `step` elements.
// This file undefines the macros.
//
// No include guard and no #pragma once: it is meant to be included once per ISA namespace.

/// Converts the last `count` (< step) elements through a zero-padded block on the stack.
template <class K>
STRIDED_CAST_DRIVER void partial_block(const typename K::Src* s, typename K::Dst* d,
                                       std::size_t count) noexcept {
  typename K::Src in[K::step] = {};
  typename K::Dst out[K::step];
  std::memcpy(static_cast<void*>(in), s, count * sizeof(*s));  // f16 is not "trivial" to GCC
  K::template block<false>(in, out);
  std::memcpy(static_cast<void*>(d), out, count * sizeof(*d));
}

/// Runs kernel K over n elements: full blocks (streamed when the output of the whole cast,
/// `whole_n` elements when this is a parallel chunk of it, is large), then the remainder through
/// partial_block.
template <class K>
STRIDED_CAST_DRIVER void drive(const typename K::Src* s, typename K::Dst* d, std::size_t n,
                               [[maybe_unused]] std::size_t whole_n = 0) noexcept {
  constexpr std::size_t step = K::step;
  std::size_t i = 0;
#if STRIDED_CAST_STREAM_ALIGN > 0
  constexpr std::size_t align = STRIDED_CAST_STREAM_ALIGN;
  const auto address = reinterpret_cast<std::uintptr_t>(d);
  if (std::max(n, whole_n) * sizeof(*d) >= copy_impl::stream_threshold() &&
      address % sizeof(*d) == 0) {
    // Unaligned head up to an `align`-byte boundary, then aligned streaming stores.
    const std::size_t head = std::min(((align - address % align) % align) / sizeof(*d), n);
    for (; i + step <= head; i += step) K::template block<false>(s + i, d + i);
    if (i < head) partial_block<K>(s + i, d + i, head - i);
    for (i = head; i + step <= n; i += step) K::template block<true>(s + i, d + i);
    _mm_sfence();
  }
#endif
  for (; i + step <= n; i += step) K::template block<false>(s + i, d + i);
  if (i < n) partial_block<K>(s + i, d + i, n - i);
}

inline void run(const float* s, f16* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F32ToF16>(s, d, n, whole_n);
}
inline void run(const f16* s, float* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F16ToF32>(s, d, n, whole_n);
}
inline void run(const float* s, bf16* d, std::size_t n, std::size_t whole_n = 0) noexcept {
#ifdef STRIDED_CAST_NATIVE_BF16
  if (cpu_features().avx512_bf16) return drive<F32ToBf16Native>(s, d, n, whole_n);
#endif
  drive<F32ToBf16>(s, d, n, whole_n);
}
inline void run(const bf16* s, float* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<Bf16ToF32>(s, d, n, whole_n);
}
inline void run(const float* s, double* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F32ToF64>(s, d, n, whole_n);
}
inline void run(const double* s, float* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F64ToF32>(s, d, n, whole_n);
}
inline void run(const float* s, std::int32_t* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F32ToI32>(s, d, n, whole_n);
}
inline void run(const float* s, std::int8_t* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F32ToI8>(s, d, n, whole_n);
}
inline void run(const float* s, std::uint8_t* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<F32ToU8>(s, d, n, whole_n);
}
inline void run(const std::int8_t* s, float* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<I8ToF32>(s, d, n, whole_n);
}
inline void run(const std::uint8_t* s, float* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<U8ToF32>(s, d, n, whole_n);
}
inline void run(const std::int32_t* s, float* d, std::size_t n, std::size_t whole_n = 0) noexcept {
  drive<I32ToF32>(s, d, n, whole_n);
}

#undef STRIDED_CAST_DRIVER
#undef STRIDED_CAST_STREAM_ALIGN
#undef STRIDED_CAST_NATIVE_BF16
