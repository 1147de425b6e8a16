#!/usr/bin/python3
"""Generates tests/data/cast_*.bin: what NumPy (f16) and PyTorch (bf16) answer for a fixed
random sample of casts, so that tests/cast_test.cpp can check strided agrees with them.

Run from the repository root:  /usr/bin/python3 tests/gen_cast_data.py
Deterministic (fixed seed); needs numpy and torch. All files are little-endian records:

  cast_f32.bin      u32 f32 bits | u16 NumPy f16 bits | u16 PyTorch bf16 bits   (f32 → f16 / bf16)
  cast_f64_f16.bin  u64 f64 bits | u16 NumPy f16 bits                          (f64 → f16, one rounding)
  cast_16_f32.bin   u16 bits     | u32 NumPy f16→f32 bits | u32 PyTorch bf16→f32 bits
                    (every 16-bit pattern with magnitude <= 0x7c00: a NaN in neither format)

NaN inputs are left out: NumPy keeps signalling NaNs and PyTorch's NaN payloads differ, and
strided defines its own NaN rule (design §5). Everything else must agree bit for bit.
"""
import os
import sys

import numpy as np
import torch

SEED = 20261202
N_F32 = 80_000
N_F64 = 25_000
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def f32_sample(rng):
    parts = []
    # Uniform bit patterns: every exponent, subnormals, infinities.
    parts.append(rng.integers(0, 2**32, N_F32 // 4, dtype=np.uint64).astype(np.uint32))
    # Values in and around the f16 range (exponents -30..17), random significands.
    exp = rng.integers(127 - 30, 127 + 18, N_F32 // 4, dtype=np.uint32)
    man = rng.integers(0, 2**23, N_F32 // 4, dtype=np.uint32)
    sign = rng.integers(0, 2, N_F32 // 4, dtype=np.uint32) << 31
    parts.append(sign | (exp << 23) | man)
    # Exact f16 ties (the 13 dropped bits are 1000...0) and bf16 ties (16 dropped bits 0x8000),
    # and near-ties one ulp either side.
    base = parts[1][: N_F32 // 8]
    f16_tie = (base & ~np.uint32(0x1FFF)) | np.uint32(0x1000)
    bf16_tie = (base & ~np.uint32(0xFFFF)) | np.uint32(0x8000)
    parts += [f16_tie, f16_tie + 1, f16_tie - 1, bf16_tie, bf16_tie + 1, bf16_tie - 1]
    edges = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7F7FFFFF, 0x00000001, 0x007FFFFF,
             0x00800000, 0x477FE000, 0x477FEFFF, 0x477FF000, 0x38800000, 0x33800000, 0x33000000,
             0x33000001, 0x387FC000, 0x387FE000, 0x3F800000, 0x3F801000, 0x3F808000, 0x3F818000]
    parts.append(np.array(edges, dtype=np.uint32))
    bits = np.concatenate(parts)
    f = bits.view(np.float32)
    return bits[~np.isnan(f)]


def f64_sample(rng):
    exp = rng.integers(1023 - 30, 1023 + 18, N_F64, dtype=np.uint64)
    man = rng.integers(0, 2**52, N_F64, dtype=np.uint64)
    sign = rng.integers(0, 2, N_F64, dtype=np.uint64) << np.uint64(63)
    bits = sign | (exp << np.uint64(52)) | man
    # f16 ties in double, plus a little more: the cases a trip through float gets wrong.
    tie = (bits[: N_F64 // 4] & ~np.uint64((1 << 42) - 1)) | np.uint64(1 << 41)
    bits = np.concatenate([bits, tie, tie + np.uint64(1), tie - np.uint64(1)])
    return bits[~np.isnan(bits.view(np.float64))]


def main():
    rng = np.random.default_rng(SEED)
    torch.set_num_threads(1)
    os.makedirs(OUT, exist_ok=True)

    bits = f32_sample(rng)
    f = bits.view(np.float32)
    with np.errstate(over="ignore"):
        h = f.astype(np.float16).view(np.uint16)
    b = torch.from_numpy(f.copy()).to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    rec = np.zeros(len(bits), dtype=[("in", "<u4"), ("f16", "<u2"), ("bf16", "<u2")])
    rec["in"], rec["f16"], rec["bf16"] = bits, h, b
    rec.tofile(os.path.join(OUT, "cast_f32.bin"))

    bits64 = f64_sample(rng)
    with np.errstate(over="ignore"):
        h64 = bits64.view(np.float64).astype(np.float16).view(np.uint16)
    rec = np.zeros(len(bits64), dtype=[("in", "<u8"), ("f16", "<u2")])
    rec["in"], rec["f16"] = bits64, h64
    rec.tofile(os.path.join(OUT, "cast_f64_f16.bin"))

    # Every 16-bit pattern that is a NaN in neither f16 nor bf16 (magnitude <= 0x7c00).
    all16 = np.arange(0, 2**16, dtype=np.uint32).astype(np.uint16)
    keep = (all16 & 0x7FFF) <= 0x7C00
    pats = all16[keep]
    hf = pats.view(np.float16).astype(np.float32).view(np.uint32)
    bf = torch.from_numpy(pats.view(np.int16).copy()).view(torch.bfloat16).to(torch.float32)
    bf = bf.numpy().view(np.uint32)
    rec = np.zeros(len(pats), dtype=[("in", "<u2"), ("f16", "<u4"), ("bf16", "<u4")])
    rec["in"], rec["f16"], rec["bf16"] = pats, hf, bf
    rec.tofile(os.path.join(OUT, "cast_16_f32.bin"))

    print(f"numpy {np.__version__}, torch {torch.__version__}: {len(bits)} f32, "
          f"{len(bits64)} f64, {len(pats)} 16-bit records", file=sys.stderr)


if __name__ == "__main__":
    main()
