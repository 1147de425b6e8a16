#!/usr/bin/python3
"""NumPy and PyTorch on the cases of bench/gather_bench.cpp: rows of 4 KiB and of 64 bytes taken
in random order (with repeats) from a 128 MiB f32 dataset into a preallocated output of 64 MiB
and of 1 MiB.

Each peer is reported as a ratio to its own in-process copy of the output's bytes into a
preallocated buffer (NumPy `np.copyto`, PyTorch `Tensor.copy_`), measured interleaved, median of
the repetitions (docs/performance.md):
  x_memcpy  time of np.take(dataset, idx, axis=0, out=out) / torch.index_select(dataset, 0, idx,
            out=out), divided by that copy's time.
NumPy runs on one thread; PyTorch at one thread and at its default count (--threads all).

Usage: /usr/bin/python3 bench/peers_gather.py [--repetitions 9] [--json]
(Debian's python3 has numpy and torch; a pyenv python3 on PATH may not.)
"""
import argparse
import json
import os
import statistics
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

import numpy as np  # noqa: E402

try:
    import torch  # noqa: E402
except ImportError:  # NumPy alone still gives its figures
    torch = None

DATASET_BYTES = 128 << 20
CASES = [(4096, 64 << 20, "64MiB"), (4096, 1 << 20, "1MiB"), (64, 64 << 20, "64MiB"),
         (64, 1 << 20, "1MiB")]


def measure(op, reference, repetitions):
    """Median of op's time / reference's time, the two interleaved (order alternating)."""
    ratios = []
    for r in range(repetitions):
        times = {}
        for name in (("op", "ref") if r % 2 == 0 else ("ref", "op")):
            f = op if name == "op" else reference
            t0 = time.perf_counter()
            f()
            times[name] = time.perf_counter() - t0
        ratios.append(times["op"] / times["ref"])
    return statistics.median(ratios), min(ratios), max(ratios)


def run(repetitions):
    results = []
    rng = np.random.default_rng(46)
    for row, out_bytes, out_name in CASES:
        cols, n, k = row // 4, DATASET_BYTES // row, out_bytes // row
        data = (np.arange(n * cols, dtype=np.int64) % 4093).astype(np.float32).reshape(n, cols)
        idx = rng.integers(0, n, size=k, dtype=np.int64)
        out = np.empty((k, cols), dtype=np.float32)
        src = np.ones_like(out)
        dst = np.empty_like(out)
        np.take(data, idx, axis=0, out=out)  # first touch outside the timing
        np.copyto(dst, src)
        name = f"gather/{row}B_rows/{out_name}"
        results.append(("numpy", name, 1, *measure(lambda: np.take(data, idx, axis=0, out=out),
                                                    lambda: np.copyto(dst, src), repetitions)))
        if torch is None:
            continue
        tdata, tidx = torch.from_numpy(data), torch.from_numpy(idx)
        tout, tsrc, tdst = torch.from_numpy(out), torch.from_numpy(src), torch.from_numpy(dst)
        for threads in (1, os.cpu_count()):
            torch.set_num_threads(threads)
            results.append(("torch", name, threads, *measure(
                lambda: torch.index_select(tdata, 0, tidx, out=tout), lambda: tdst.copy_(tsrc),
                repetitions)))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = run(args.repetitions)
    if args.json:
        print(json.dumps([dict(peer=p, case=c, threads=t, x_memcpy=m, min=lo, max=hi)
                          for p, c, t, m, lo, hi in results], indent=1))
        return
    print(f"{'peer':6} {'case':26} {'threads':>7} {'x_memcpy':>9}  (min - max)")
    for p, c, t, m, lo, hi in results:
        print(f"{p:6} {c:26} {t:7} {m:9.2f}  ({lo:.2f} - {hi:.2f})")


if __name__ == "__main__":
    main()
