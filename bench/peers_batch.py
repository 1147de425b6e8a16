#!/usr/bin/python3
"""NumPy and PyTorch on the shapes of bench/batch_bench.cpp, single thread.

Each peer is reported as a ratio to its own in-process copy of the same bytes (docs/performance.md),
measured interleaved, median of the repetitions:
  x_memcpy  time / (each sample copied into a preallocated output with the peer's own copy:
            `out[i] = s` in NumPy, `out[i].copy_(s)` in PyTorch)
  x_fresh   time / (the same copies into a freshly allocated output: np.empty / torch.empty)
The peers' stack / cat allocate their output, as strided's do.

Usage: /usr/bin/python3 bench/peers_batch.py [--repetitions 9] [--json]
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

    torch.set_num_threads(1)
except ImportError:  # NumPy alone still gives its figures
    torch = None


def numpy_case(count, shape, join):
    samples = [np.full(shape, i + 0.5, dtype=np.float32) for i in range(count)]
    if join == "stack":
        out_shape = (count,) + tuple(shape)
        op = lambda: np.stack(samples)  # noqa: E731
        rows = 1
    else:
        out_shape = (count * shape[0],) + tuple(shape[1:])
        op = lambda: np.concatenate(samples)  # noqa: E731
        rows = shape[0]

    def copy_into(out):
        for i, s in enumerate(samples):
            out[i * rows:(i + 1) * rows] = s if join == "concat" else s[None]

    pre = np.empty(out_shape, dtype=np.float32)
    copy_into(pre)  # first touch outside the timing
    fresh = lambda: copy_into(np.empty(out_shape, dtype=np.float32))  # noqa: E731
    return op, lambda: copy_into(pre), fresh


def torch_case(count, shape, join):
    samples = [torch.full(shape, i + 0.5, dtype=torch.float32) for i in range(count)]
    if join == "stack":
        out_shape = (count,) + tuple(shape)
        op = lambda: torch.stack(samples)  # noqa: E731
        rows = 1
    else:
        out_shape = (count * shape[0],) + tuple(shape[1:])
        op = lambda: torch.cat(samples)  # noqa: E731
        rows = shape[0]

    def copy_into(out):
        for i, s in enumerate(samples):
            out[i * rows:(i + 1) * rows].copy_(s if join == "concat" else s[None])

    pre = torch.empty(out_shape, dtype=torch.float32)
    copy_into(pre)
    fresh = lambda: copy_into(torch.empty(out_shape, dtype=torch.float32))  # noqa: E731
    return op, lambda: copy_into(pre), fresh


def measure(op, pre, fresh, repetitions):
    """Interleaved: op, reference into the preallocated buffer, reference into a fresh one."""
    ratios_pre, ratios_fresh, times = [], [], []
    for _ in range(repetitions):
        t0 = time.perf_counter()
        r = op()
        del r
        t1 = time.perf_counter()
        pre()
        t2 = time.perf_counter()
        fresh()
        t3 = time.perf_counter()
        times.append(t1 - t0)
        ratios_pre.append((t1 - t0) / (t2 - t1))
        ratios_fresh.append((t1 - t0) / (t3 - t2))
    return {
        "ms": 1e3 * statistics.median(times),
        "x_memcpy": statistics.median(ratios_pre),
        "x_fresh": statistics.median(ratios_fresh),
    }


CASES = [
    ("stack 64 x [3,224,224] f32", 64, (3, 224, 224), "stack"),
    ("concat 8 x [64,3,224,224] f32", 8, (64, 3, 224, 224), "concat"),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    peers = [("numpy " + np.__version__, numpy_case)]
    if torch is not None:
        peers.append(("torch " + torch.__version__, torch_case))
    results = []
    for name, count, shape, join in CASES:
        for peer, make in peers:
            op, pre, fresh = make(count, shape, join)
            op(), pre(), fresh()  # warm up
            row = {"case": name, "peer": peer}
            row.update(measure(op, pre, fresh, args.repetitions))
            results.append(row)
            del op, pre, fresh
            if not args.json:
                print(f"{name:32s} {peer:18s} {row['ms']:9.2f} ms  x_memcpy {row['x_memcpy']:5.2f}"
                      f"  x_fresh {row['x_fresh']:5.2f}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
