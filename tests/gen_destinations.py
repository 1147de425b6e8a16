#!/usr/bin/python3
"""Generates tests/data/destinations.txt: NumPy (np.copyto) and PyTorch (Tensor.copy_) as the
oracles for strided's writes into a strided destination (Tensor::copy_to(TensorSpan),
tests/tensor_span_test.cpp).

Run with Debian's python3 (it has numpy and torch):  /usr/bin/python3 tests/gen_destinations.py
The output is deterministic (fixed seed). One case a line:

  copyto <dtype> <L> <rank> <shape...> <strides...> <offset> <M> <rank> <shape...> <strides...>
         <offset> <result>
      the source view as_strided(shape, strides, offset) of a buffer of L elements and the
      destination view of a buffer of M elements (strides in elements, any sign; the source may
      broadcast, stride 0); result = ok <for each of the M destination elements: the source
      storage index np.copyto wrote there, or -1 where it wrote nothing>, checked against
      torch's dst.copy_(src) where every stride is >= 0 (torch has no negative strides); or err (the source does not broadcast to the destination's shape by
      np.broadcast_to's rules).
"""

import os
import random

import numpy as np
import torch

SEED = 20261208
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "destinations.txt")
DTYPES = ["bool", "u8", "i16", "f16", "bf16", "f32", "i64", "f64"]


def dims(xs):
    return " ".join(str(x) for x in xs)


def random_view(rng, shape, allow_broadcast):
    """A view of np.arange(L) of about `shape` after transposes, flips, steps and slices."""
    base = np.arange(int(np.prod(shape)) if shape else 1, dtype=np.int64).reshape(shape)
    v = base
    for _ in range(rng.randint(0, 3)):
        if v.ndim == 0:
            break
        ops = ["transpose", "flip", "slice", "narrow"] + (["broadcast"] if allow_broadcast else [])
        op = rng.choice(ops)
        ax = rng.randrange(v.ndim)
        idx = [slice(None)] * v.ndim
        if op == "transpose":
            v = np.swapaxes(v, ax, rng.randrange(v.ndim))
        elif op == "flip":
            v = np.flip(v, ax)
        elif op == "slice":
            idx[ax] = slice(None, None, rng.choice([2, -1, -2]))
            v = v[tuple(idx)]
        elif op == "narrow" and v.shape[ax] > 1:
            start = rng.randrange(v.shape[ax])
            idx[ax] = slice(start, rng.randint(start, v.shape[ax]))
            v = v[tuple(idx)]
        elif op == "broadcast":
            new = list(v.shape)
            new.insert(ax, rng.randint(1, 3))
            v = np.broadcast_to(v[(slice(None),) * ax + (np.newaxis,)], new)
    strides = [s // 8 for s in v.strides]
    offset = (v.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // 8
    return base, v, strides, offset


def random_shape(rng):
    rank = rng.randint(0, 4)
    return [rng.randint(0, 3) if rng.random() < 0.08 else rng.randint(1, 5) for _ in range(rank)]


def case(rng):
    dtype = rng.choice(DTYPES)
    src_base, src, ss, so = random_view(rng, random_shape(rng), True)
    if rng.random() < 0.8:  # a destination of the source's shape, or one it broadcasts to
        shape = list(src.shape)
        if rng.random() < 0.3:
            shape = [rng.randint(1, 3)] + shape
    else:
        shape = random_shape(rng)
    # The destination: a view (no broadcast) of a bigger buffer whose shape holds `shape`.
    big = [n + rng.randint(0, 2) for n in shape]
    perm = list(range(len(big)))
    rng.shuffle(perm)  # the destination's axes in another order in its buffer (e.g. HWC as CHW)
    dst_base = np.full([big[p] for p in perm], -1, dtype=np.int64)
    dst = dst_base.transpose(np.argsort(perm))
    dst = dst[tuple(slice(rng.randint(0, b - n), None) for n, b in zip(shape, big)) + (...,)]
    dst = dst[tuple(slice(0, n) for n in shape) + (...,)]
    for ax in range(dst.ndim):
        if rng.random() < 0.3:
            dst = np.flip(dst, ax)
        elif rng.random() < 0.2 and dst.shape[ax] > 2:  # every other element: gaps in the buffer
            dst = dst[(slice(None),) * ax + (slice(None, None, 2),)]
    ds = [s // 8 for s in dst.strides]
    do = (dst.__array_interface__["data"][0] - dst_base.__array_interface__["data"][0]) // 8
    head = (f"copyto {dtype} {src_base.size} {src.ndim} {dims(src.shape)} {dims(ss)} {so} "
            f"{dst_base.size} {dst.ndim} {dims(dst.shape)} {dims(ds)} {do}")
    try:  # broadcast_to's rules: np.copyto also drops extra leading size-1 source axes, torch not
        np.copyto(dst, np.broadcast_to(src, dst.shape))
    except ValueError:
        return head + " err"
    if min(ss + ds, default=0) >= 0:  # PyTorch agrees (it has no negative strides)
        check_with_torch(src_base.size, src.shape, ss, so, dst_base, dst.shape, ds, do)
    return head + " ok " + dims(dst_base.reshape(-1).tolist())


def check_with_torch(src_len, src_shape, ss, so, dst_base, dst_shape, ds, do):
    tb = torch.full((dst_base.size,), -1, dtype=torch.int64)
    tdst = torch.as_strided(tb, dst_shape, ds, do)
    tdst.copy_(torch.as_strided(torch.arange(src_len), src_shape, ss, so))
    assert tb.tolist() == dst_base.reshape(-1).tolist()


def main():
    rng = random.Random(SEED)
    lines = [case(rng) for _ in range(400)]
    with open(OUT, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} cases to {OUT}")


if __name__ == "__main__":
    main()
