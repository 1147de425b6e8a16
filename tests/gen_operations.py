#!/usr/bin/python3
"""Generates tests/data/operations.txt: NumPy and PyTorch as the oracles for strided's gather
(index_select), bit views (bitcast) and ranges (arange, linspace).

Run with Debian's python3 (it has numpy and torch):  /usr/bin/python3 tests/gen_operations.py
The output is deterministic (fixed seed); tests/gather_test.cpp, tests/bitcast_test.cpp and
tests/ranges_test.cpp each replay the lines that start with their operation.

  gather <dtype> <L> <rank> <shape...> <strides...> <offset> <axis> <k> <indices...> <result>
      the view as_strided(shape, strides, offset) of a buffer of L elements (strides in elements,
      any sign, 0 for broadcasts); result = ok <storage index of each output element, row-major>
      (np.take(view, indices, axis) of np.arange(L), checked against torch.index_select), or
      err <our message> (NumPy raised: an index out of range, or axis out of range).
  bitcast <from> <to> <L> <rank> <shape...> <strides...> <offset> <result>
      result = ok <rank> <shape...> <strides...> <offset> (torch's x.view(to_dtype)), or err
      (torch refused the view).
  arange <dtype> <start> <stop> <step> <result>
  linspace <dtype> <start> <stop> <num> <endpoint> <result>
      floats as C hex literals; result = ok <n> <values as hex bit patterns> (np.arange /
      np.linspace with dtype=; bf16, which NumPy lacks, by NumPy's float16 rules with bf16
      rounding), or err (NumPy raised).
"""

import math
import os
import random
import struct
import sys

import numpy as np
import torch

SEED = 20261207
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "operations.txt")

GATHER_DTYPES = ["bool", "u8", "i16", "f16", "bf16", "f32", "i64", "f64"]
TORCH = {"bool": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16,
         "i32": torch.int32, "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16,
         "f32": torch.float32, "f64": torch.float64}
SIZE = {"bool": 1, "u8": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2,
        "f32": 4, "f64": 8}


def dims(xs):
    return " ".join(str(x) for x in xs)


def random_view(rng, max_elems=60):
    """A random view of np.arange(L): (L, shape, strides, offset) with strides in elements."""
    rank = rng.randint(0, 4)
    shape = [rng.randint(0, 4) if rng.random() < 0.1 else rng.randint(1, 5) for _ in range(rank)]
    base = np.arange(int(np.prod(shape)) if shape else 1, dtype=np.int64).reshape(shape)
    v = base
    for _ in range(rng.randint(0, 3)):
        if v.ndim == 0:
            break
        op = rng.choice(["transpose", "flip", "slice", "broadcast"])
        ax = rng.randrange(v.ndim)
        if op == "transpose":
            v = np.swapaxes(v, ax, rng.randrange(v.ndim))
        elif op == "flip":
            v = np.flip(v, ax)
        elif op == "slice":
            step = rng.choice([1, 2, -1, -2])
            idx = [slice(None)] * v.ndim
            idx[ax] = slice(None, None, step)
            v = v[tuple(idx)]
        else:
            new = list(v.shape)
            new.insert(ax, rng.randint(1, 3))
            v = np.broadcast_to(v[(slice(None),) * ax + (np.newaxis,)], new)
    strides = [s // 8 for s in v.strides]
    offset = (v.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 8
    return base.size, v, list(v.shape), strides, offset


def gather_cases(rng, out):
    for case in range(1500):
        dtype = GATHER_DTYPES[case % len(GATHER_DTYPES)]
        L, v, shape, strides, offset = random_view(rng)
        axis = rng.randrange(len(shape)) if shape and rng.random() > 0.02 else rng.randint(0, 2)
        size = shape[axis] if axis < len(shape) else 0
        k = rng.randint(0, 6)
        bad = rng.random() < 0.08
        idx = [rng.randrange(size) if size else 0 for _ in range(k)]
        if bad or size == 0:
            idx = idx + [size + rng.randint(0, 3)]
        head = f"gather {dtype} {L} {len(shape)} {dims(shape)} {dims(strides)} {offset} {axis} {len(idx)} {dims(idx)}"
        if not shape:  # NumPy's take reads a 0-d array as 1-d; strided has no axis 0 there
            out.append(f"{head} err index_select: axis {axis} is out of range for rank 0 (shape [])")
            continue
        bad_index = axis < len(shape) and any(i >= size for i in idx)
        try:
            if bad_index:  # NumPy skips the check when the result is empty; PyTorch raises
                raise IndexError
            expected = np.take(v, np.array(idx, dtype=np.int64), axis=axis)
        except (IndexError, np.AxisError):
            if axis >= len(shape):
                msg = f"index_select: axis {axis} is out of range for rank {len(shape)} (shape [{', '.join(map(str, shape))}])"
            else:
                first = next(i for i in idx if i >= size)
                msg = (f"index_select: index {first} is out of bounds for axis {axis} of size {size} "
                       f"(shape [{', '.join(map(str, shape))}])")
            out.append(f"{head} err {msg}")
            continue
        got = torch.index_select(torch.from_numpy(v.copy()), axis, torch.tensor(idx, dtype=torch.int64))
        assert np.array_equal(got.numpy(), expected), head
        out.append(f"{head} ok {dims(expected.ravel().tolist())}")


def bitcast_cases(rng, out):
    names = list(TORCH)
    for case in range(1200):
        src = names[case % len(names)]
        dst = rng.choice([n for n in names if n != "bool"] + (["bool"] if src == "bool" else []))
        rank = rng.randint(0, 3)
        shape = [rng.choice([0, 1, 2, 3, 4, 6, 8]) for _ in range(rank)]
        strides = []
        for d in range(rank):
            if d == rank - 1 and rng.random() < 0.8:
                strides.append(1)
            else:
                strides.append(rng.choice([0, 1, 2, 3, 4, 8, 12, 16, 24]))
        offset = rng.choice([0, 0, 1, 2, 3, 4, 8])
        reach = sum((n - 1) * s for n, s in zip(shape, strides)) if all(shape) else 0
        L = offset + reach + 1 + rng.choice([0, 0, 1, 3])
        base = torch.zeros(L, dtype=TORCH[src])
        x = torch.as_strided(base, shape, strides, offset)
        head = f"bitcast {src} {dst} {L} {rank} {dims(shape)} {dims(strides)} {offset}"
        try:
            r = x.view(TORCH[dst])
        except RuntimeError:
            out.append(f"{head} err")
            continue
        out.append(f"{head} ok {r.dim()} {dims(r.shape)} {dims(r.stride())} {r.storage_offset()}")


def bf16_bits(x):
    """The bf16 nearest to the float x (round to nearest even; finite normal values only)."""
    if x == 0:
        return 0x8000 if math.copysign(1, x) < 0 else 0
    m, e = math.frexp(abs(x))
    q = round(m * 256)  # Python rounds half to even; m * 256 is exact
    value = q * 2.0 ** (e - 8)
    bits = struct.unpack("<I", struct.pack("<f", value))[0] >> 16
    return bits | (0x8000 if x < 0 else 0)


def bits_of(dtype, values):
    if dtype == "bf16":
        return [bf16_bits(float(v)) for v in values]
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        view = {2: np.uint16, 4: np.uint32, 8: np.uint64}[arr.dtype.itemsize]
        return [int(b) for b in arr.view(view)]
    return [int(b) for b in arr.astype(np.int64)]


NP = {"i8": np.int8, "u8": np.uint8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
      "u32": np.uint32, "f16": np.float16, "f32": np.float32, "f64": np.float64}


def arange_bf16(start, stop, step):
    """NumPy's half fill with bf16 rounding: x0, x1 = start, start + step rounded; then
    x0 + i * (x1 - x0) in float32, rounded to bf16."""
    n = max(0, math.ceil((stop - start) / step))
    def bf(x):
        return struct.unpack("<f", struct.pack("<I", bf16_bits(x) << 16))[0]
    vals = [bf(start), bf(start + step)][:n]
    first, delta = np.float32(vals[0]) if n else 0, None
    if n > 2:
        delta = np.float32(vals[1]) - np.float32(vals[0])
        for i in range(2, n):
            vals.append(bf(float(np.float32(first + np.float32(i) * delta))))
    return vals


def hexf(x):
    return float(x).hex()


def range_cases(rng, out):
    ints = ["i8", "u8", "i16", "i32", "i64", "u32"]
    floats = ["f16", "bf16", "f32", "f64"]
    for case in range(400):
        dtype = (ints + floats)[case % 10]
        if dtype in ints:
            lo = 0 if dtype[0] == "u" else -100
            start, stop = rng.randint(lo, 100), rng.randint(lo, 100)
            step = rng.choice([1, 2, 3, 7, -1, -2, -5, 0]) if case % 37 else 0
            head = f"arange {dtype} {start} {stop} {step}"
            try:
                r = np.arange(start, stop, step, dtype=NP[dtype])
            except ZeroDivisionError:
                out.append(f"{head} err")
                continue
            out.append(f"{head} ok {len(r)} {dims(bits_of(dtype, r))}")
        else:
            start = rng.choice([0.0, 1.0, -2.5, rng.uniform(-10, 10)])
            stop = rng.uniform(-20, 20)
            step = rng.choice([0.1, 0.3, 1 / 3, 0.7, -0.1, -0.25, rng.uniform(-3, 3), 0.0])
            if case % 41 == 0:
                step = 0.0
            head = f"arange {dtype} {hexf(start)} {hexf(stop)} {hexf(step)}"
            if step == 0.0:
                out.append(f"{head} err")
                continue
            if dtype == "bf16":
                vals = arange_bf16(start, stop, step)
            else:
                vals = np.arange(start, stop, step, dtype=NP[dtype])
            out.append(f"{head} ok {len(vals)} {dims(bits_of(dtype, vals))}")
    for case in range(400):
        dtype = (["i32", "i64", "u8"] + floats * 2)[case % 11]
        if dtype in ints:
            start, stop = rng.uniform(0, 100), rng.uniform(0, 120)
        else:
            start = rng.choice([0.0, -1.0, rng.uniform(-1e3, 1e3), 1e-300])
            stop = rng.choice([1.0, rng.uniform(-1e3, 1e3), start, 1e-300 * 3])
        num = rng.choice([0, 1, 2, 3, 5, 7, 10, 50, 101])
        endpoint = rng.random() < 0.7
        head = f"linspace {dtype} {hexf(start)} {hexf(stop)} {num} {int(endpoint)}"
        if dtype == "bf16":
            vals = np.linspace(start, stop, num, endpoint=endpoint)  # float64, rounded once
        else:
            vals = np.linspace(start, stop, num, endpoint=endpoint, dtype=NP[dtype])
        out.append(f"{head} ok {len(vals)} {dims(bits_of(dtype, vals))}")


def main():
    rng = random.Random(SEED)
    lines = []
    gather_cases(rng, lines)
    bitcast_cases(rng, lines)
    range_cases(rng, lines)
    with open(OUT, "w") as f:
        f.write(f"# Generated by tests/gen_operations.py (numpy {np.__version__}, torch "
                f"{torch.__version__}, seed {SEED}); do not edit.\n")
        f.write("\n".join(lines) + "\n")
    print(f"{OUT}: {len(lines)} cases", file=sys.stderr)


if __name__ == "__main__":
    main()
