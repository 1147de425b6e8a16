// The x86 cast kernels whose algorithm is the same at both register widths (AVX2: 256 bits,
// AVX-512: 512 bits), written once on the operations of the level.
//
// Included inside cast_avx2.hpp's and cast_avx512.hpp's namespace (like cast_driver.inl, and for
// the same reason: the kernels need their level's target attribute, which cannot come from a
// template parameter). The including file defines, for a "full" register of `lanes` f32 and its
// "half", the operations that have no width-generic form here:
//   STRIDED_CAST_KERNEL   the attributes of a kernel (its level's target, always inlined);
//   lanes                 f32 lanes in a full register;
//   store<Stream>         of a full or half integer register;
//   f32_to_f16 (full → half), f16_to_f32 (half → full), f32_to_f64 (half → full);
//   widen_bytes<Int>(bytes, part)   part `part` (of 16 / lanes) of 16 bytes of Int, sign- or
//                         zero-extended to a full register of i32;
//   join(lo, hi)          two half registers (integer or f32) as one full register;
//   pack_low_u16(a, b)    the low 16 bits of every 32-bit lane of a, then of b, in lane order.
// (GCC 12 compiles __builtin_convertvector f32 → f64 to two half-width conversions and
// __builtin_shufflevector joins with extra moves, hence these.)
//
// No include guard and no #pragma once: it is meant to be included once per ISA namespace.

// The level's registers as GNU vectors. Each is the level's __m256/__m512 type of the same size
// and element type, so it passes to the level's intrinsics as it is.
using F32 [[gnu::vector_size(4 * lanes)]] = float;
using HalfF32 [[gnu::vector_size(2 * lanes)]] = float;
using F64 [[gnu::vector_size(4 * lanes)]] = double;
using I32 [[gnu::vector_size(4 * lanes)]] = std::int32_t;
using Bits [[gnu::vector_size(4 * lanes)]] = long long;
using HalfBits [[gnu::vector_size(2 * lanes)]] = long long;

/// An unaligned load of the register V (as the loadu intrinsics do it).
template <class V>
STRIDED_CAST_KERNEL V load(const void* p) {
  using Unaligned [[gnu::aligned(1), gnu::may_alias]] = V;
  return *static_cast<const Unaligned*>(p);
}

/// The register's bits as an integer register (no instruction).
template <class V>
STRIDED_CAST_KERNEL Bits as_bits(V v) {
  return (Bits)v;
}

STRIDED_CAST_KERNEL F32 i32_to_f32(Bits v) { return __builtin_convertvector((I32)v, F32); }
STRIDED_CAST_KERNEL HalfF32 f64_to_f32(F64 v) { return __builtin_convertvector(v, HalfF32); }

struct F32ToF16 : CastKernel<float, f16, 2 * lanes> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    const auto a = f32_to_f16(load<F32>(s));
    const auto b = f32_to_f16(load<F32>(s + lanes));
    store<Stream>(d, join(a, b));
  }
};

struct F16ToF32 : CastKernel<f16, float, lanes> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    store<Stream>(d, as_bits(f16_to_f32(load<HalfBits>(s))));
  }
};

/// f32 bits → bf16 bits in the low half of each 32-bit lane (see round_to_bf16_bits).
STRIDED_CAST_KERNEL Bits bf16_round(Bits x) {
  round_to_bf16_bits<lanes>(x);
  return x;
}

/// f32 → bf16 with integer rounding only.
struct F32ToBf16 : CastKernel<float, bf16, 2 * lanes> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    const auto a = bf16_round(load<Bits>(s));
    const auto b = bf16_round(load<Bits>(s + lanes));
    store<Stream>(d, pack_low_u16(a, b));
  }
};

struct F32ToF64 : CastKernel<float, double, lanes> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    store<Stream>(d, as_bits(f32_to_f64(load<HalfF32>(s))));
    store<Stream>(d + lanes / 2, as_bits(f32_to_f64(load<HalfF32>(s + lanes / 2))));
  }
};

struct F64ToF32 : CastKernel<double, float, lanes> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    const auto a = f64_to_f32(load<F64>(s));
    const auto b = f64_to_f32(load<F64>(s + lanes / 2));
    store<Stream>(d, as_bits(join(a, b)));
  }
};

struct I32ToF32 : CastKernel<std::int32_t, float, lanes> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Src* s, Dst* d) {
    store<Stream>(d, as_bits(i32_to_f32(load<Bits>(s))));
  }
};

/// 8-bit integers → f32: 16 bytes loaded at once, converted a full register (`lanes`) at a time.
template <class Int>
struct ByteToF32 : CastKernel<Int, float, 16> {
  template <bool Stream>
  STRIDED_CAST_KERNEL static void block(const Int* s, float* d) {
    const __m128i bytes = load16b(s);
    store<Stream>(d, as_bits(i32_to_f32(widen_bytes<Int>(bytes, 0))));
    if constexpr (lanes < 16)
      store<Stream>(d + lanes, as_bits(i32_to_f32(widen_bytes<Int>(bytes, 1))));
  }
};

using I8ToF32 = ByteToF32<std::int8_t>;
using U8ToF32 = ByteToF32<std::uint8_t>;
