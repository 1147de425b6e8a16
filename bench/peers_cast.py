#!/usr/bin/python3
"""Peers for bench/cast_bench.cpp: NumPy and PyTorch casting 16 M contiguous elements into a
preallocated destination, single thread, as a ratio to each library's own copy of the INPUT
bytes (np.copyto / Tensor.copy_ between arrays of the input dtype), measured interleaved in the
same process; median of 9 repetitions (method: docs/performance.md, "How it is measured").

    /usr/bin/python3 bench/peers_cast.py            # table on stdout
    /usr/bin/python3 bench/peers_cast.py --json     # one JSON object per case

Also reports `alloc` ratios: the idiomatic allocating forms (`a.astype(np.float16)`,
`t.to(torch.float16)`), which is what user code usually writes.
"""
import json
import statistics
import sys
import time

import numpy as np
import torch

N = 16 << 20
REPS = 9

CASES = [  # (name, source dtype name, destination dtype name)
    ("f32_f16", "float32", "float16"),
    ("f32_bf16", "float32", "bfloat16"),
    ("f32_i8", "float32", "int8"),
    ("f16_f32", "float16", "float32"),
    ("bf16_f32", "bfloat16", "float32"),
    ("f32_f64", "float32", "float64"),
    ("f64_f32", "float64", "float32"),
]


def timed(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def ratio(work, ref, inner=3):
    """Median over REPS of time(work) / time(ref), alternating which runs first."""
    work(), ref()  # warm up: page in every buffer
    ratios = []
    for rep in range(REPS):
        if rep % 2 == 0:
            w = timed(work, inner)
            r = timed(ref, inner)
        else:
            r = timed(ref, inner)
            w = timed(work, inner)
        ratios.append(w / r)
    return statistics.median(ratios)


def numpy_case(src_name, dst_name):
    if "bfloat16" in (src_name, dst_name):
        return None
    rng = np.random.default_rng(1)
    src = (rng.random(N, dtype=np.float32) * 600 - 300).astype(src_name)
    dst = np.empty(N, dtype=dst_name)
    ref_dst = np.empty_like(src)
    with np.errstate(all="ignore"):
        kernel = ratio(lambda: np.copyto(dst, src, casting="unsafe"), lambda: np.copyto(ref_dst, src))
        alloc = ratio(lambda: src.astype(dst_name), lambda: np.copyto(ref_dst, src))
    return kernel, alloc


def torch_case(src_name, dst_name):
    torch.set_num_threads(1)
    src = (torch.rand(N, dtype=torch.float32) * 600 - 300).to(getattr(torch, src_name))
    dst = torch.empty(N, dtype=getattr(torch, dst_name))
    ref_dst = torch.empty_like(src)
    kernel = ratio(lambda: dst.copy_(src), lambda: ref_dst.copy_(src))
    alloc = ratio(lambda: src.to(getattr(torch, dst_name)), lambda: ref_dst.copy_(src))
    return kernel, alloc


def main():
    as_json = "--json" in sys.argv
    if not as_json:
        print(f"numpy {np.__version__}, torch {torch.__version__}, n = {N}, single thread")
        print(f"{'case':10} {'numpy':>8} {'numpy alloc':>12} {'torch':>8} {'torch alloc':>12}")
    for name, s, d in CASES:
        n = numpy_case(s, d)
        t = torch_case(s, d)
        if as_json:
            print(json.dumps({"case": name, "numpy_x_memcpy": n and n[0], "numpy_alloc_x_memcpy": n and n[1],
                              "torch_x_memcpy": t[0], "torch_alloc_x_memcpy": t[1]}))
        else:
            fmt = lambda v: f"{v:8.2f}" if v is not None else f"{'-':>8}"
            print(f"{name:10} {fmt(n and n[0])} {fmt(n and n[1]):>12} {fmt(t[0])} {fmt(t[1]):>12}")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
