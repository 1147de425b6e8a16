#!/usr/bin/python3
"""NumPy and PyTorch on the copy_bench cases, as ratios to memcpy measured in the same process.

Single thread (torch.set_num_threads(1)). Each figure is the median over 9 repetitions of
(time of the operation) / (time of libc memcpy of the same bytes into a preallocated buffer),
the two interleaved within each repetition (method: docs/performance.md, "How it is
measured").

  copy_to     np.copyto(dst, view) / dst.copy_(view) into a preallocated contiguous dst
  *_net       small cases only: against the memcpy without the cost of calling it from Python
              (see ratio_small)
  contiguous  np.ascontiguousarray(view) / view.contiguous() (allocates its output; for a view
              that is already contiguous, view.copy() / view.clone())

  into/*      copy_bench's into/ cases: np.copyto / dst.copy_ into a strided slice of a
              preallocated buffer (slot k of [B, C, H, W]; the right half of each row of
              [C, H, 2W]), from the CHW view of an HWC image (u8 -> f32 for the _cast case);
              the reference is memcpy of the destination's bytes

Usage: /usr/bin/python3 bench/peers.py [--out peers.json] [--only SUBSTRING] [--reps 9]
Other engineers may add cases to CASES (name, base shape, how to build the view, dtype).
"""
import argparse
import ctypes
import json
import statistics
import sys
import time

import numpy as np

try:
    import torch
except ImportError:  # NumPy alone is still useful
    torch = None

LIBC = ctypes.CDLL(None)
LIBC.memcpy.restype = ctypes.c_void_p
LIBC.memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]

RANK22_PERM = (21, 3, 17, 0, 9, 12, 5, 1, 20, 14, 7, 2, 19, 11, 4, 16, 8, 13, 6, 18, 10, 15)


def permute(perm):
    return lambda a: a.transpose(perm) if isinstance(a, np.ndarray) else a.permute(*perm)


# (case name as in copy_bench.cpp, base shape, view builder, dtype key)
CASES = [
    ("contiguous_4096x4096_f32", (4096, 4096), lambda a: a, "f32"),
    ("narrow_cols_1000_3048_of_4096x4096_f32", (4096, 4096), lambda a: a[:, 1000:3048], "f32"),
    ("broadcast_1x4096_to_4096x4096_f32", (1, 4096),
     lambda a: np.broadcast_to(a, (4096, 4096)) if isinstance(a, np.ndarray) else a.expand(4096, 4096),
     "f32"),
    ("transpose_4104x4104_f32", (4104, 4104), permute((1, 0)), "f32"),
    ("transpose_1024x1024_f32", (1024, 1024), permute((1, 0)), "f32"),
    ("transpose_4096x4096_f32", (4096, 4096), permute((1, 0)), "f32"),
    ("nchw_to_nhwc_32x64x56x56_f32", (32, 64, 56, 56), permute((0, 2, 3, 1)), "f32"),
    ("nhwc_to_nchw_32x56x56x64_f32", (32, 56, 56, 64), permute((0, 3, 1, 2)), "f32"),
    ("permute_rank22_of_2s_f32", (2,) * 22, permute(RANK22_PERM), "f32"),
    ("transpose_8192x8192_u8", (8192, 8192), permute((1, 0)), "u8"),
    ("transpose_4096x4096_bf16", (4096, 4096), permute((1, 0)), "bf16"),
    ("transpose_4096x4096_f64", (4096, 4096), permute((1, 0)), "f64"),
    ("batched_transpose_64x512x512_f32", (64, 512, 512), permute((0, 2, 1)), "f32"),
    # Small copies (<= 64 KiB): timed in batches (see ratio_small).
    ("small_transpose_96x80_f32", (96, 80), permute((1, 0)), "f32"),
    ("small_nchw_to_nhwc_1x32x16x16_f32", (1, 32, 16, 16), permute((0, 2, 3, 1)), "f32"),
    ("small_nhwc_to_nchw_1x16x16x32_f32", (1, 16, 16, 32), permute((0, 3, 1, 2)), "f32"),
    ("small_narrow_cols_64_192_of_128x256_f32", (128, 256), lambda a: a[:, 64:192], "f32"),
    ("small_transpose_256x256_u8", (256, 256), permute((1, 0)), "u8"),
    ("small_transpose_128x128_bf16", (128, 128), permute((1, 0)), "bf16"),
    ("small_permute_rank5_2x4x8x8x16_f32", (2, 4, 8, 8, 16), permute((0, 3, 1, 4, 2)), "f32"),
]

SMALL = 64 << 10  # copies of at most this many bytes are timed by ratio_small

NP_DTYPES = {"f32": np.float32, "u8": np.uint8, "bf16": np.uint16, "f64": np.float64}  # no bf16


def torch_dtype(key):
    return {"f32": torch.float32, "u8": torch.uint8, "bf16": torch.bfloat16,
            "f64": torch.float64}[key]


def ratio(work, nbytes, reps, inner, clock=time.perf_counter):
    """Median over reps of sum(work time) / sum(memcpy time), interleaved. `clock` may be
    time.thread_time (CPU time of this thread) on a machine shared with other jobs."""
    inner = max(inner, (64 << 20) // nbytes)  # small cases: enough calls to dwarf timer noise
    ref_src = np.ones(nbytes, np.uint8)
    ref_dst = np.zeros(nbytes, np.uint8)
    ps, pd = ref_src.ctypes.data, ref_dst.ctypes.data
    work()  # warm up (first touch, lazy allocations)
    LIBC.memcpy(pd, ps, nbytes)
    out = []
    for _ in range(reps):
        t_work = t_ref = 0.0
        for i in range(inner):
            if i % 2 == 0:
                t0 = clock()
                LIBC.memcpy(pd, ps, nbytes)
                t1 = clock()
                work()
                t2 = clock()
                t_ref += t1 - t0
                t_work += t2 - t1
            else:
                t0 = clock()
                work()
                t1 = clock()
                LIBC.memcpy(pd, ps, nbytes)
                t2 = clock()
                t_work += t1 - t0
                t_ref += t2 - t1
        out.append(t_work / t_ref)
    return statistics.median(out)


def ratio_small(work, nbytes, reps, clock=time.perf_counter):
    """ratio() for copies of at most SMALL bytes: batches of calls (~1 MiB moved) timed as one
    sample, a batch of work then a batch of memcpy, alternating which goes first. Returns
    (x memcpy, x memcpy net): the reference of the first is the libc memcpy called through ctypes
    (its Python-side cost included, as the peer's own is); of the second, that minus the same
    ctypes call moving 0 bytes, i.e. the memcpy alone, against which the peer's figure includes
    its call's whole cost from Python."""
    calls = max(1, (1 << 20) // nbytes)
    ref_src = np.ones(nbytes, np.uint8)
    ref_dst = np.zeros(nbytes, np.uint8)
    ps, pd = ref_src.ctypes.data, ref_dst.ctypes.data
    memcpy = LIBC.memcpy

    def batch(f, *a):
        t0 = clock()
        for _ in range(calls):
            f(*a)
        return clock() - t0

    work()  # warm up
    memcpy(pd, ps, nbytes)
    gross, net = [], []
    for r in range(reps):
        t_work = t_ref = t_empty = 0.0
        for i in range(8):
            if (i + r) % 2 == 0:
                t_work += batch(work)
                t_ref += batch(memcpy, pd, ps, nbytes)
            else:
                t_ref += batch(memcpy, pd, ps, nbytes)
                t_work += batch(work)
            t_empty += batch(memcpy, pd, ps, 0)
        gross.append(t_work / t_ref)
        net.append(t_work / max(t_ref - t_empty, 1e-12))
    return statistics.median(gross), statistics.median(net)


def run_numpy(base, make_view, key, reps, inner):
    src = np.arange(int(np.prod(base)), dtype=np.int64).astype(NP_DTYPES[key]).reshape(base)
    view = make_view(src)
    dst = np.empty(view.shape, view.dtype)
    nbytes = dst.nbytes
    # ascontiguousarray returns an already-contiguous array itself: copy() is the copying twin.
    contig = (lambda: view.copy()) if view.flags.c_contiguous else (
        lambda: np.ascontiguousarray(view))
    if nbytes <= SMALL:
        return small_result(lambda: np.copyto(dst, view), contig, nbytes, reps)
    return {
        "copy_to": ratio(lambda: np.copyto(dst, view), nbytes, reps, inner),
        "contiguous": ratio(contig, nbytes, reps, inner),
    }


def small_result(copy_to, contig, nbytes, reps):
    gross, net = ratio_small(copy_to, nbytes, reps)
    contig_gross, contig_net = ratio_small(contig, nbytes, reps)
    return {"copy_to": gross, "contiguous": contig_gross,
            "copy_to_net": net, "contiguous_net": contig_net}


def run_torch(base, make_view, key, reps, inner):
    src = torch.arange(int(np.prod(base)), dtype=torch.int64).to(torch_dtype(key)).reshape(base)
    view = make_view(src)
    dst = torch.empty(view.shape, dtype=view.dtype)
    nbytes = dst.numel() * dst.element_size()
    # .contiguous() on an already-contiguous tensor returns it: clone() is the copying equivalent.
    contig = (lambda: view.clone()) if view.is_contiguous() else (lambda: view.contiguous())
    if nbytes <= SMALL:
        return small_result(lambda: dst.copy_(view), contig, nbytes, reps)
    return {
        "copy_to": ratio(lambda: dst.copy_(view), nbytes, reps, inner),
        "contiguous": ratio(contig, nbytes, reps, inner),
    }


def into_cases(lib):
    """copy_bench's into/ cases for NumPy ("numpy") or PyTorch ("torch"): (name, work, bytes)."""
    b, c, h, w = 4, 3, 448, 448
    arange = np.arange(h * w * c) % 251
    cases = []
    for suffix, dtype in (("f32", np.float32), ("f32_cast", np.uint8)):
        img = arange.astype(dtype).reshape(h, w, c)
        batch = np.zeros((b, c, h, w), np.float32)
        src, slot = img.transpose(2, 0, 1), batch[2]
        if lib == "torch":
            src, slot = torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(batch)[2]
        name = "into/slot_hwc_u8_to_chw_448x448_f32_cast" if suffix == "f32_cast" else \
            "into/slot_hwc_to_chw_448x448_f32"
        cases.append((name, copier(lib, slot, src), c * h * w * 4))
    img = arange.astype(np.float32).reshape(h, w, c)
    wide = np.zeros((c, h, 2 * w), np.float32)
    src, half = img.transpose(2, 0, 1), wide[:, :, w:]
    if lib == "torch":
        src, half = torch.from_numpy(img).permute(2, 0, 1), torch.from_numpy(wide)[:, :, w:]
    cases.append(("into/half_width_hwc_to_chw_448x448_f32", copier(lib, half, src), c * h * w * 4))
    return cases


def copier(lib, dst, src):
    if lib == "torch":
        return lambda: dst.copy_(src)
    return lambda: np.copyto(dst, src, casting="unsafe")


def figures(r):
    """copy_to and contiguous, and for small cases their net figures in parentheses."""
    text = f"{r['copy_to']:6.2f} {r['contiguous']:6.2f}"
    if "copy_to_net" in r:
        text += f" (net {r['copy_to_net']:5.2f} {r['contiguous_net']:5.2f})"
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="peers.json")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=9)
    ap.add_argument("--inner", type=int, default=4)
    args = ap.parse_args()
    result = {"meta": {"numpy": np.__version__, "torch": torch.__version__ if torch else None,
                       "reps": args.reps, "reference": "libc memcpy, preallocated, interleaved"},
              "numpy": {}, "torch": {}}
    if torch is not None:
        torch.set_num_threads(1)
    for name, base, make_view, key in CASES:
        if args.only not in name:
            continue
        result["numpy"][name] = run_numpy(base, make_view, key, args.reps, args.inner)
        line = f"{name:42s} numpy {figures(result['numpy'][name])}"
        if torch is not None:
            result["torch"][name] = run_torch(base, make_view, key, args.reps, args.inner)
            line += f"  torch {figures(result['torch'][name])}"
        print(line, file=sys.stderr, flush=True)
    for lib in ("numpy", "torch") if torch is not None else ("numpy",):
        for name, work, nbytes in into_cases(lib):
            if args.only in name:
                result[lib][name] = {"copy_to": ratio(work, nbytes, args.reps, args.inner)}
                print(f"{name:42s} {lib} {result[lib][name]['copy_to']:6.2f}", file=sys.stderr,
                      flush=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
