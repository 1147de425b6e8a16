// NEON cast kernels (aarch64). Each `run` overload is bit-identical to detail::cast_value
// (docs/casts.md#rules) under the default floating-point environment, which on aarch64 means FPCR
// with round-to-nearest, FZ = 0 (subnormals kept), DN = 0 (NaN payloads propagated) and AHP = 0
// (IEEE half precision): then the hardware conversions quiet a NaN and keep its sign and leading
// payload bits, as the reference does. Tests compare the kernels with cast_value.
//
// float → integer uses fcvtzs/fcvtzu, which already truncate, saturate and send NaN to 0 (Rust
// `as`); the narrower integers then saturate again while narrowing (sqxtn/uqxtn), which is a
// clamp. bf16 rounding is integer arithmetic on the bit pattern, as in the x86 kernels.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "strided/detail/simd/cast_kernel.hpp"
#include "strided/detail/simd/isa.hpp"
#include "strided/half.hpp"

#if STRIDED_NEON
#include <arm_neon.h>

namespace strided::detail::cast_neon {

// vld1/vst1 need no more than element alignment, so the pointers may be anywhere a T may be.
inline float32x4_t load4(const float* p) { return vld1q_f32(p); }
inline uint32x4_t load4u(const float* p) {
  return vld1q_u32(reinterpret_cast<const std::uint32_t*>(p));
}
template <class H>
inline uint16x8_t load8h(const H* p) {
  return vld1q_u16(reinterpret_cast<const std::uint16_t*>(p));
}
template <class H>
inline void store8h(H* p, uint16x8_t v) {
  vst1q_u16(reinterpret_cast<std::uint16_t*>(p), v);
}
inline void store4(float* p, float32x4_t v) { vst1q_f32(p, v); }
inline void store4u(float* p, uint32x4_t v) { vst1q_u32(reinterpret_cast<std::uint32_t*>(p), v); }

struct F32ToF16 : CastKernel<float, f16, 8> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    const float16x8_t h = vcvt_high_f16_f32(vcvt_f16_f32(load4(s)), load4(s + 4));
    store8h(d, vreinterpretq_u16_f16(h));
  }
};

struct F16ToF32 : CastKernel<f16, float, 8> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    const float16x8_t h = vreinterpretq_f16_u16(load8h(s));
    store4(d, vcvt_f32_f16(vget_low_f16(h)));
    store4(d + 4, vcvt_high_f32_f16(h));
  }
};

/// 4 f32 → 4 bf16 (see round_to_bf16_bits).
inline uint16x4_t bf16_round4(uint32x4_t x) {
  round_to_bf16_bits<4>(x);
  return vmovn_u32(x);
}

struct F32ToBf16 : CastKernel<float, bf16, 8> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    store8h(d, vcombine_u16(bf16_round4(load4u(s)), bf16_round4(load4u(s + 4))));
  }
};

/// 4 bf16 → 4 f32: a shift, then a NaN quieted (see quiet_widened_bf16).
inline uint32x4_t bf16_widen4(uint16x4_t h) {
  uint32x4_t x = vshll_n_u16(h, 16);
  quiet_widened_bf16<4>(x);
  return x;
}

struct Bf16ToF32 : CastKernel<bf16, float, 8> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    const uint16x8_t h = load8h(s);
    store4u(d, bf16_widen4(vget_low_u16(h)));
    store4u(d + 4, bf16_widen4(vget_high_u16(h)));
  }
};

struct F32ToF64 : CastKernel<float, double, 4> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    const float32x4_t v = load4(s);
    vst1q_f64(d, vcvt_f64_f32(vget_low_f32(v)));
    vst1q_f64(d + 2, vcvt_high_f64_f32(v));
  }
};

struct F64ToF32 : CastKernel<double, float, 4> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    store4(d, vcvt_high_f32_f64(vcvt_f32_f64(vld1q_f64(s)), vld1q_f64(s + 2)));
  }
};

struct F32ToI32 : CastKernel<float, std::int32_t, 4> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    vst1q_s32(d, vcvtq_s32_f32(load4(s)));
  }
};

/// 8 floats → 8 saturated 16-bit integers.
inline int16x8_t f32_to_s16(const float* s) {
  return vcombine_s16(vqmovn_s32(vcvtq_s32_f32(load4(s))), vqmovn_s32(vcvtq_s32_f32(load4(s + 4))));
}
inline uint16x8_t f32_to_u16(const float* s) {
  return vcombine_u16(vqmovn_u32(vcvtq_u32_f32(load4(s))), vqmovn_u32(vcvtq_u32_f32(load4(s + 4))));
}

struct F32ToI8 : CastKernel<float, std::int8_t, 16> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    vst1q_s8(d, vcombine_s8(vqmovn_s16(f32_to_s16(s)), vqmovn_s16(f32_to_s16(s + 8))));
  }
};

struct F32ToU8 : CastKernel<float, std::uint8_t, 16> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    vst1q_u8(d, vcombine_u8(vqmovn_u16(f32_to_u16(s)), vqmovn_u16(f32_to_u16(s + 8))));
  }
};

/// 8 16-bit integers → 8 floats (exact: they fit in the mantissa).
inline void s16_to_f32(int16x8_t v, float* d) {
  store4(d, vcvtq_f32_s32(vmovl_s16(vget_low_s16(v))));
  store4(d + 4, vcvtq_f32_s32(vmovl_high_s16(v)));
}

struct I8ToF32 : CastKernel<std::int8_t, float, 16> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    const int8x16_t bytes = vld1q_s8(s);
    s16_to_f32(vmovl_s8(vget_low_s8(bytes)), d);
    s16_to_f32(vmovl_high_s8(bytes), d + 8);
  }
};

/// Zero-extended bytes (0-255) are non-negative 16-bit integers: the signed path serves.
struct U8ToF32 : CastKernel<std::uint8_t, float, 16> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    const uint8x16_t bytes = vld1q_u8(s);
    s16_to_f32(vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(bytes))), d);
    s16_to_f32(vreinterpretq_s16_u16(vmovl_high_u8(bytes)), d + 8);
  }
};

struct I32ToF32 : CastKernel<std::int32_t, float, 4> {
  template <bool Stream>
  static void block(const Src* s, Dst* d) {
    store4(d, vcvtq_f32_s32(vld1q_s32(s)));
  }
};

#define STRIDED_CAST_DRIVER
#define STRIDED_CAST_STREAM_ALIGN 0  // no non-temporal store intrinsic
#include "strided/detail/simd/cast_driver.inl"

}  // namespace strided::detail::cast_neon

#endif  // STRIDED_NEON
