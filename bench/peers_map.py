#!/usr/bin/python3
"""Peers for bench/map_bench.cpp: NumPy and PyTorch on the same element-wise cases, each as a
ratio to its own copy of the OUTPUT bytes into a preallocated array (np.copyto /
Tensor.copy_), measured interleaved in the same process, median of 9 repetitions
(docs/performance.md). The peers allocate their outputs, like map / zip_with.

    /usr/bin/python3 bench/peers_map.py            # table on stdout
    /usr/bin/python3 bench/peers_map.py --json     # one JSON object per case

Cases: `x * 2 + 1` on 16 M contiguous f32 and on a transposed 4096 x 4096 f32 view, and
per-channel normalisation `(x / 255 - m) / s` of [64, 3, 224, 224] u8 with [3, 1, 1] f32 mean
and std (several passes in both libraries). PyTorch at one thread and at its default count.
"""
import json
import statistics
import sys
import time

import numpy as np
import torch

REPS = 9


def timed(fn, inner):
    t0 = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - t0) / inner


def ratio(work, ref, inner=2):
    """Median over REPS of time(work) / time(ref), alternating which runs first."""
    work(), ref()  # warm up: page in every buffer
    ratios = []
    for rep in range(REPS):
        if rep % 2 == 0:
            w, r = timed(work, inner), timed(ref, inner)
        else:
            r, w = timed(ref, inner), timed(work, inner)
        ratios.append(w / r)
    return statistics.median(ratios)


def numpy_cases():
    x = np.arange(16 << 20, dtype=np.float32) % 1000
    out_ref = (np.empty_like(x), np.empty_like(x))
    contiguous = ratio(lambda: x * 2 + 1, lambda: np.copyto(out_ref[0], out_ref[1]))
    m = (np.arange(4096 * 4096, dtype=np.float32) % 1000).reshape(4096, 4096).T
    transposed = ratio(lambda: m * 2 + 1, lambda: np.copyto(out_ref[0], out_ref[1]))
    images = (np.arange(64 * 3 * 224 * 224) % 251).astype(np.uint8).reshape(64, 3, 224, 224)
    mean = np.array([0.485, 0.456, 0.406], dtype=np.float32).reshape(3, 1, 1)
    std = np.array([0.229, 0.224, 0.225], dtype=np.float32).reshape(3, 1, 1)
    ref = (np.empty(images.shape, np.float32), np.empty(images.shape, np.float32))
    normalize = ratio(lambda: (images / np.float32(255) - mean) / std,
                      lambda: np.copyto(ref[0], ref[1]))
    return {"map/contiguous": contiguous, "map/transposed/4096": transposed,
            "zip/normalize": normalize}


def torch_cases(threads):
    torch.set_num_threads(threads)
    x = torch.arange(16 << 20, dtype=torch.float32) % 1000
    out_ref = (torch.empty_like(x), torch.empty_like(x))
    contiguous = ratio(lambda: x * 2 + 1, lambda: out_ref[0].copy_(out_ref[1]))
    m = (torch.arange(4096 * 4096, dtype=torch.float32) % 1000).reshape(4096, 4096).t()
    transposed = ratio(lambda: (m * 2 + 1).contiguous(), lambda: out_ref[0].copy_(out_ref[1]))
    images = (torch.arange(64 * 3 * 224 * 224) % 251).to(torch.uint8).reshape(64, 3, 224, 224)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(3, 1, 1)
    ref = (torch.empty(images.shape), torch.empty(images.shape))
    normalize = ratio(lambda: (images.float() / 255 - mean) / std, lambda: ref[0].copy_(ref[1]))
    return {"map/contiguous": contiguous, "map/transposed/4096": transposed,
            "zip/normalize": normalize}


def main():
    default_threads = torch.get_num_threads()
    results = {"numpy": numpy_cases(), "torch 1 thread": torch_cases(1),
               f"torch {default_threads} threads": torch_cases(default_threads)}
    if "--json" in sys.argv:
        for peer, cases in results.items():
            for case, value in cases.items():
                print(json.dumps({"peer": peer, "case": case, "x_memcpy": round(value, 3)}))
        return
    print(f"numpy {np.__version__}, torch {torch.__version__}; x memcpy of the output bytes")
    for peer, cases in results.items():
        print(f"{peer:>16}: " + "  ".join(f"{c} {v:.2f}" for c, v in cases.items()))


if __name__ == "__main__":
    main()
