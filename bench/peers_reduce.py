#!/usr/bin/python3
"""Peers for bench/reduce_bench.cpp: NumPy and PyTorch (one thread) on the same reductions, each
as a ratio to its own read-only pass over the same bytes, measured interleaved in the same
process, median of 9 repetitions (docs/performance.md), and the f32 accuracy comparison.

    /usr/bin/python3 bench/peers_reduce.py              # speed table on stdout
    /usr/bin/python3 bench/peers_reduce.py --accuracy   # f32 sum of 10^8 values: errors

The read pass of each library is its int64 sum of the input's bytes seen as int64 (np.sum /
Tensor.sum on a view): one pass that reads every byte with a trivial integer add, its nearest
equivalent of reduce_bench's xor pass.

Cases (f32): sum / mean / argmax of 16 M contiguous values (64 MiB) and of 256 K (1 MiB), and
over axis 1 (inner) and axis 0 (outer) of a 4096 x 4096 matrix.

--accuracy sums x_i = float32((i * 2654435761) mod 2^32) / 2^32, i < 10^8, in float32 with NumPy
(pairwise) and PyTorch, against the float64 sum of the same values; reduce_bench's
sum/accuracy case prints strided's and a Kahan sum's for the same values.
"""
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


def ratio(work, ref, inner=3):
    work(), ref()
    ratios = []
    for rep in range(REPS):
        if rep % 2 == 0:
            w, r = timed(work, inner), timed(ref, inner)
        else:
            r, w = timed(ref, inner), timed(work, inner)
        ratios.append(w / r)
    return statistics.median(ratios)


def values(shape):
    n = int(np.prod(shape))
    return ((np.arange(n) % 1000).astype(np.float32) * np.float32(0.001)).reshape(shape)


def cases(lib):
    big, small, square = values([16 << 20]), values([256 << 10]), values([4096, 4096])
    if lib == "torch":
        big, small, square = map(torch.from_numpy, (big, small, square))
        ops = {"sum": lambda x, d: x.sum() if d is None else x.sum(d),
               "mean": lambda x, d: x.mean() if d is None else x.mean(d),
               "argmax": lambda x, d: x.argmax() if d is None else x.argmax(d)}
        read = lambda x: x.view(torch.int64).sum()
    else:
        ops = {"sum": lambda x, d: np.sum(x, axis=d), "mean": lambda x, d: np.mean(x, axis=d),
               "argmax": lambda x, d: np.argmax(x, axis=d)}
        read = lambda x: np.sum(x.view(np.int64))
    out = {}
    for name, op in ops.items():
        for case, x, d in (("full/64", big, None), ("full/1", small, None),
                           ("inner/4096", square, 1), ("outer/4096", square, 0)):
            out[f"{name}/{case}"] = ratio(lambda: op(x, d), lambda: read(x), 1 if x is big else 3)
    return out


def accuracy():
    n = 10**8
    chunks, exact, np_parts = 10, 0.0, []
    x = np.empty(n, dtype=np.float32)
    step = n // chunks
    for c in range(chunks):
        i = np.arange(c * step, (c + 1) * step, dtype=np.uint64)
        x[c * step:(c + 1) * step] = ((i * np.uint64(2654435761)) % np.uint64(2**32)).astype(
            np.float32) * np.float32(2.0**-32)
    exact = float(np.sum(x, dtype=np.float64))
    numpy_sum = float(np.sum(x))
    torch.set_num_threads(1)
    torch_sum = float(torch.from_numpy(x).sum())
    print(f"f32 sum of 1e8 values: float64 reference {exact!r}")
    for name, s in (("numpy (pairwise f32)", numpy_sum), ("pytorch (1 thread)", torch_sum)):
        print(f"  {name:22s} {s!r:>22}  relative error {abs(s - exact) / exact:.3e}")


def main():
    if "--accuracy" in sys.argv:
        return accuracy()
    torch.set_num_threads(1)
    results = {"numpy": cases("numpy"), "torch": cases("torch")}
    print(f"numpy {np.__version__}, torch {torch.__version__} (1 thread): x own read pass")
    for case in results["numpy"]:
        print(f"  {case:18s} numpy {results['numpy'][case]:6.2f}   torch {results['torch'][case]:6.2f}")


if __name__ == "__main__":
    main()
