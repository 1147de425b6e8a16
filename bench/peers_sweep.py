#!/usr/bin/python3
"""NumPy and PyTorch on sweep_bench's views (the random sweep and the channel cases), as ratios
to memcpy measured in the same process.

The views come from `sweep_bench --dump_views` (one a line: name, element bytes, base shape,
extents, narrow starts, flips, broadcasts, permutation), so both sides copy exactly the same
views. Each figure is the median over --reps repetitions of (time of the copy into a
preallocated contiguous destination) / (time of libc memcpy of the same bytes), interleaved:
bench/peers.py's `ratio`, timed in CPU time of the thread (time.thread_time) as sweep_bench
does. One thread (torch.set_num_threads(1)).

  numpy  np.copyto(dst, view)
  torch  dst.copy_(view). PyTorch has no negative strides: a view with flips is built with
         Tensor.flip, which copies, so for those views the figure is flip + copy_ (what a PyTorch
         user has to run to get the same result).

Usage: /usr/bin/python3 bench/peers_sweep.py --bench build/bench/sweep_bench [--out peers_sweep.json]
       [--only SUBSTRING] [--reps 5]
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import ratio  # noqa: E402  (the same interleaved memcpy reference as copy_bench)

try:
    import torch
except ImportError:
    torch = None

NP_BY_SIZE = {1: np.uint8, 2: np.int16, 4: np.float32, 8: np.float64}


def ints(field):
    return [int(x) for x in field.split(",")]


def parse(line):
    name, es, base, length, start, flip, bcast, perm = line.split()
    return {"name": name, "es": int(es), "base": ints(base), "len": ints(length),
            "start": ints(start), "flip": [c == "1" for c in flip],
            "bcast": [c == "1" for c in bcast], "perm": ints(perm)}


def numpy_view(v, base):
    idx = tuple(slice(None) if b else (slice(s + n - 1, s - 1 if s > 0 else None, -1) if f
                                       else slice(s, s + n))
                for s, n, f, b in zip(v["start"], v["len"], v["flip"], v["bcast"]))
    return np.broadcast_to(base[idx], v["len"]).transpose(v["perm"])


def torch_view(v, base):
    t = base
    for k, (s, n, b) in enumerate(zip(v["start"], v["len"], v["bcast"])):
        if not b:
            t = t.narrow(k, s, n)
    t = t.expand(*v["len"]).permute(*v["perm"])
    dims = [j for j, k in enumerate(v["perm"]) if v["flip"][k]]
    return (lambda: t.flip(dims)) if dims else (lambda: t)


def run_view(v, reps, inner):
    dtype = NP_BY_SIZE[v["es"]]
    base = (np.arange(int(np.prod(v["base"])), dtype=np.int64) % 251).astype(dtype)
    base = base.reshape(v["base"])
    view = numpy_view(v, base)
    dst = np.empty(view.shape, dtype)
    out = {"numpy": ratio(lambda: np.copyto(dst, view), dst.nbytes, reps, inner, time.thread_time)}
    if torch is not None:
        make = torch_view(v, torch.from_numpy(base))
        tdst = torch.from_numpy(np.empty(view.shape, dtype))
        expected = np.ascontiguousarray(view)
        tdst.copy_(make())
        assert np.array_equal(tdst.numpy(), expected), v["name"]  # same view on both sides
        out["torch"] = ratio(lambda: tdst.copy_(make()), dst.nbytes, reps, inner, time.thread_time)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="path of the sweep_bench binary")
    ap.add_argument("--out", default="peers_sweep.json")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--inner", type=int, default=2)
    args = ap.parse_args()
    lines = subprocess.run([args.bench, "--dump_views"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    if torch is not None:
        torch.set_num_threads(1)
    result = {"meta": {"numpy": np.__version__, "torch": torch.__version__ if torch else None,
                       "reps": args.reps, "reference": "libc memcpy, preallocated, interleaved"},
              "views": {}}
    for line in lines:
        v = parse(line)
        if args.only not in v["name"]:
            continue
        result["views"][v["name"]] = r = run_view(v, args.reps, args.inner)
        print(f"{v['name']:36s} numpy {r['numpy']:7.2f}  torch {r.get('torch', float('nan')):7.2f}",
              file=sys.stderr, flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
