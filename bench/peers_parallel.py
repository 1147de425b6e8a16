#!/usr/bin/python3
"""PyTorch beside bench/parallel_bench.cpp: the same copies, casts and stacks at PyTorch's
default thread count and at all threads, as ratios to a one-thread libc memcpy of the same bytes
(the larger side for casts) measured interleaved in the same process, median of 9 repetitions
(the `ratio` of bench/peers.py; docs: docs/performance.md, "Threads").

    /usr/bin/python3 bench/peers_parallel.py [--out peers_parallel.json] [--reps 9]

  copy_to        dst.copy_(view) into a preallocated contiguous dst (the copy_bench cases)
  cast           dst.copy_(src) between dtypes, preallocated (16 M elements)
  stack_samples  torch.stack(samples) (allocates, as strided's stack_samples does)
"""
import argparse
import json
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import CASES, ratio, torch_dtype  # noqa: E402

N = 16 << 20
CASTS = [("f32_to_f16_16M", torch.float32, torch.float16),
         ("f16_to_f32_16M", torch.float16, torch.float32),
         ("f32_to_bf16_16M", torch.float32, torch.bfloat16),
         ("u8_to_f32_16M", torch.uint8, torch.float32),
         ("f64_to_f32_16M", torch.float64, torch.float32)]


def copy_cases(reps):
    out = {}
    for name, base, make_view, key in CASES:
        if name.startswith("contiguous"):
            continue
        src = torch.arange(int(np.prod(base)), dtype=torch.int64).to(torch_dtype(key)).reshape(base)
        view = make_view(src)
        dst = torch.empty(view.shape, dtype=view.dtype)
        out["copy_to/" + name] = ratio(lambda: dst.copy_(view), dst.numel() * dst.element_size(),
                                       reps, 4)
    return out


def cast_cases(reps):
    out = {}
    for name, a, b in CASTS:
        src = (torch.arange(N, dtype=torch.int64) % 1000).to(a)
        dst = torch.empty(N, dtype=b)
        nbytes = N * max(src.element_size(), dst.element_size())
        out["cast/" + name] = ratio(lambda: dst.copy_(src), nbytes, reps, 4)
    return out


def stack_cases(reps):
    f32 = [torch.full((3, 224, 224), float(i)) for i in range(64)]
    u8 = [torch.full((224, 224, 3), i, dtype=torch.uint8).permute(2, 0, 1) for i in range(64)]
    return {
        "stack_samples/64x3x224x224_f32": ratio(lambda: torch.stack(f32), 64 * 3 * 224 * 224 * 4,
                                                reps, 4),
        "stack_samples/64_hwc_to_chw_224x224x3_u8": ratio(lambda: torch.stack(u8),
                                                          64 * 3 * 224 * 224, reps, 4),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="peers_parallel.json")
    ap.add_argument("--reps", type=int, default=9)
    args = ap.parse_args()
    default_threads = torch.get_num_threads()
    counts = sorted({default_threads, os.cpu_count() or 1})
    result = {"meta": {"torch": torch.__version__, "default_threads": default_threads,
                       "reference": "one-thread libc memcpy, preallocated, interleaved"}}
    for threads in counts:
        torch.set_num_threads(threads)
        figures = {**copy_cases(args.reps), **cast_cases(args.reps), **stack_cases(args.reps)}
        result[f"torch_threads_{threads}"] = figures
        for name, x in figures.items():
            print(f"torch threads {threads} {name:52s} {x:6.2f}", file=sys.stderr, flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
