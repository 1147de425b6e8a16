#!/usr/bin/python3
"""Generates tests/data/reduce_cases.txt: NumPy (values) and PyTorch (dtypes) as the oracles for
strided's reductions (include/strided/reduce.hpp).

Run with Debian's python3 (it has numpy and torch):  /usr/bin/python3 tests/gen_reduce_cases.py
The output is deterministic (fixed seed); tests/reduce_test.cpp replays every case.

A case builds a base tensor whose element at storage index i is
    ((i * a + b) % m) * scale + shift           (bool: that value % 2; listed indices are NaN)
takes views of it, reduces, and compares with the expected result. One token stream per case:

  case <op> <dtype> <correction> <keepdim> <naxes> <axes...>     naxes -1: all elements
  base <rank> <dims...> <a> <b> <m> <scale> <shift> <nnan> <nan indices...>
  views <k>, then k lines:  perm <rank> <p...> | flip <k> <axes...> | bcast <rank> <dims...>
                            | narrow <dim> <start> <length>
  out <rank> <dims...> <values...>      | err <kind>

Expected values are computed in float64 (int64 / uint64 for integer sums, which wrap) and rounded
once to the result type, so they are what an exact reduction gives; the test allows float results
a few units in the last place of their type (summation order differs between libraries). The
result types are checked here against PyTorch's (sum: int64 for bool and integers; argmax: int64)
except the one documented difference: mean / var / std of integers are float64 (NumPy's rule).
"""

import os
import random
import sys
import warnings

import numpy as np
import torch

SEED = 20261207
RANDOM_CASES = 1500
OPS = ["sum", "mean", "min", "max", "argmin", "argmax", "var", "std"]
DTYPES = ["bool", "u8", "i8", "i32", "i64", "u64", "f16", "bf16", "f32", "f64"]
FLOATS = {"f16", "bf16", "f32", "f64"}
TORCH = {"bool": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i32": torch.int32,
         "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
         "f64": torch.float64}


def base_values(dtype, n, a, b, m, scale, shift, nans):
    i = np.arange(n, dtype=np.int64)
    k = (i * a + b) % m
    if dtype == "bool":
        return (k % 2).astype(np.float64)
    if dtype in FLOATS:
        v = k.astype(np.float64) * scale + shift
        v[list(nans)] = np.nan
        return v
    if dtype == "u64":
        return k.astype(np.uint64) * np.uint64(scale) + np.uint64(shift)
    return k * np.int64(scale) + np.int64(shift)


def round_to(dtype, x):
    """x (float64 array) rounded once to the float type `dtype`, back as float64."""
    if dtype == "f16":
        with np.errstate(over="ignore"):  # sums beyond 65504 are inf in f16, as in PyTorch
            return x.astype(np.float16).astype(np.float64)
    if dtype == "bf16":
        return torch.from_numpy(np.array(x, dtype=np.float64)).to(torch.bfloat16).double().numpy()
    if dtype == "f32":
        return x.astype(np.float32).astype(np.float64)
    return x


def result_type(op, dtype):
    if op in ("argmin", "argmax"):
        return "i64"
    if op == "sum":
        return dtype if dtype in FLOATS else ("u64" if dtype == "u64" else "i64")
    if op in ("mean", "var", "std"):
        return dtype if dtype in FLOATS else "f64"
    return dtype


def check_torch_dtype(op, dtype):
    """The rule of result_type against PyTorch's own (where PyTorch has the dtype and the op)."""
    if dtype not in TORCH or op not in ("sum", "argmax", "max", "mean") or dtype == "bool" and op != "sum":
        return
    if op == "mean" and dtype not in FLOATS:
        return  # PyTorch refuses; strided follows NumPy (float64)
    t = torch.zeros(3, dtype=TORCH[dtype])
    got = {"sum": t.sum, "argmax": t.argmax, "max": t.amax, "mean": t.mean}[op]().dtype
    want = TORCH.get(result_type(op, dtype))
    assert got == want, (op, dtype, got, want)


def reference(op, view, axes, keepdim, correction):
    ax = None if axes is None else tuple(axes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if op == "sum":
            if view.dtype == np.uint64:
                return np.sum(view, axis=ax, keepdims=keepdim, dtype=np.uint64)
            if view.dtype == np.int64:
                return np.sum(view, axis=ax, keepdims=keepdim, dtype=np.int64)
            return np.sum(view, axis=ax, keepdims=keepdim)
        if op in ("min", "max") and view.dtype != np.float64:  # integers: exact, not via float64
            return (np.min if op == "min" else np.max)(view, axis=ax, keepdims=keepdim)
        f = view.astype(np.float64)
        exact = view if view.dtype != np.float64 else f  # integers compared exactly
        if op == "mean":
            return np.mean(f, axis=ax, keepdims=keepdim)
        if op in ("min", "max"):
            return (np.min if op == "min" else np.max)(f, axis=ax, keepdims=keepdim)
        if op in ("argmin", "argmax"):
            fn = np.argmin if op == "argmin" else np.argmax
            if ax is None:
                r = np.array(fn(exact))
                return r.reshape((1,) * f.ndim) if keepdim else r
            return fn(exact, axis=ax[0], keepdims=keepdim)
        fn = np.var if op == "var" else np.std
        return fn(f, axis=ax, ddof=correction, keepdims=keepdim)


def fmt_value(rtype, v):
    if rtype in FLOATS:
        return repr(float(v))
    return str(int(v))


class Case:
    def __init__(self, rng, op, dtype, dims, views, axes, keepdim, correction):
        self.op, self.dtype, self.dims, self.views = op, dtype, dims, views
        self.axes, self.keepdim, self.correction = axes, keepdim, correction
        n = int(np.prod(dims)) if dims else 1
        self.a, self.b = rng.randrange(1, 97, 2), rng.randrange(0, 50)
        if dtype in ("bool",):
            self.m, self.scale, self.shift = 2, 1, 0
        elif dtype in ("u8", "i8"):
            self.m, self.scale, self.shift = rng.choice([3, 5, 40]), 1, (0 if dtype == "u8" else -20)
        elif dtype in ("i64", "u64") and rng.random() < 0.2:  # sums that wrap
            self.m, self.scale, self.shift = 7, 3, 2**62 + rng.randrange(100)
        elif dtype in ("i32", "i64", "u64"):
            self.m, self.scale, self.shift = rng.choice([3, 50, 1000]), 1, (0 if dtype == "u64" else -500)
        else:
            self.m, self.scale, self.shift = rng.choice([3, 17, 32]), 0.25, rng.choice([-4, 0, 3])
        self.nans = []
        if dtype in FLOATS and n > 0 and rng.random() < 0.15:
            self.nans = sorted(rng.sample(range(n), min(n, rng.choice([1, 2]))))
        self.base = base_values(dtype, n, self.a, self.b, self.m, self.scale, self.shift, self.nans)
        self.base = self.base.reshape(dims)

    def view(self):
        a = self.base
        for v in self.views:
            if v[0] == "perm":
                a = np.transpose(a, v[1])
            elif v[0] == "flip":
                a = np.flip(a, v[1])
            elif v[0] == "bcast":
                a = np.broadcast_to(a, v[1])
            else:
                _, d, s, l = v
                a = a[(slice(None),) * d + (slice(s, s + l),)]
        return a

    def lines(self):
        axes = "-1" if self.axes is None else " ".join(map(str, [len(self.axes)] + list(self.axes)))
        out = [f"case {self.op} {self.dtype} {self.correction} {int(self.keepdim)} {axes}",
               " ".join(map(str, ["base", len(self.dims), *self.dims, self.a, self.b, self.m,
                                  self.scale, self.shift, len(self.nans), *self.nans])),
               f"views {len(self.views)}"]
        for v in self.views:
            if v[0] in ("perm", "bcast", "flip"):
                out.append(" ".join(map(str, [v[0], len(v[1]), *v[1]])))
            else:
                out.append(" ".join(map(str, v)))
        view = self.view()
        reduced = range(view.ndim) if self.axes is None else self.axes
        if self.op in ("min", "max", "argmin", "argmax") and any(view.shape[k] == 0 for k in reduced):
            out.append("err invalid_argument")
            return out
        r = np.asarray(reference(self.op, view, self.axes, self.keepdim, self.correction))
        rtype = result_type(self.op, self.dtype)
        if rtype in FLOATS:
            r = round_to(rtype, r.astype(np.float64))
        out.append(" ".join(["out", str(r.ndim), *map(str, r.shape),
                             *(fmt_value(rtype, v) for v in r.reshape(-1))]))
        return out


def random_views(rng, dims):
    views, shape = [], list(dims)
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        kind = rng.choice(["perm", "flip", "bcast", "narrow"])
        if kind == "perm" and shape:
            p = list(range(len(shape)))
            rng.shuffle(p)
            views.append(("perm", list(p)))
            shape = [shape[k] for k in p]
        elif kind == "flip" and shape:
            views.append(("flip", sorted(rng.sample(range(len(shape)), rng.randint(1, len(shape))))))
        elif kind == "bcast" and len(shape) < 4:
            new = [rng.choice([1, 2, 3])] * rng.randint(0, 1) + [rng.choice([s, 3]) if s == 1 else s for s in shape]
            views.append(("bcast", list(new)))
            shape = new
        elif kind == "narrow" and shape:
            d = rng.randrange(len(shape))
            if shape[d] > 0:
                s = rng.randrange(shape[d])
                l = rng.randint(0, shape[d] - s)
                views.append(("narrow", d, s, l))
                shape[d] = l
    return views, shape


def random_case(rng):
    op, dtype = rng.choice(OPS), rng.choice(DTYPES)
    rank = rng.choice([0, 1, 1, 2, 2, 3, 3, 4])
    dims = [rng.choice([0, 1, 1, 2, 3, 4, 5, 7]) if rng.random() < 0.1 else rng.randint(1, 6)
            for _ in range(rank)]
    views, shape = random_views(rng, dims)
    r = len(shape)
    if op in ("argmin", "argmax"):
        axes = None if r == 0 or rng.random() < 0.3 else [rng.randrange(r)]
    else:
        choice = rng.random()
        axes = None if choice < 0.25 else sorted(rng.sample(range(r), rng.randint(0, r)))
        if axes is not None and rng.random() < 0.5:
            rng.shuffle(axes)
    correction = rng.choice([0, 1, 2]) if op in ("var", "std") else 1
    return Case(rng, op, dtype, dims, views, axes, rng.random() < 0.3, correction)


def large_cases(rng):
    """Inputs over several blocks of the fixed tree (> 16384 elements) in each loop form."""
    out = []
    for op in OPS:
        for dtype in ("f32", "i32", "f16"):
            for views, dims, axes in [
                ([], [300, 70], None), ([], [300, 70], [0]), ([], [300, 70], [1]),
                ([("perm", [1, 0])], [300, 70], [1]), ([("flip", [0, 1])], [300, 70], [0]),
                ([("bcast", [3, 20000])], [1, 20000], [1]), ([("bcast", [3, 20000])], [1, 20000], None),
                ([("narrow", 1, 5, 20000)], [2, 20010], [1]), ([], [20000, 3], [0]),
            ]:
                if op in ("argmin", "argmax") and axes is not None and len(axes) != 1:
                    continue
                out.append(Case(rng, op, dtype, dims, views, axes, False, 1))
    return out


def main():
    rng = random.Random(SEED)
    for op in OPS:
        for dtype in DTYPES:
            check_torch_dtype(op, dtype)
    cases = [random_case(rng) for _ in range(RANDOM_CASES)] + large_cases(rng)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "reduce_cases.txt")
    with open(path, "w") as f:
        f.write(f"# Generated by tests/gen_reduce_cases.py (numpy {np.__version__}, torch "
                f"{torch.__version__}, seed {SEED}); do not edit.\n{len(cases)}\n")
        for c in cases:
            f.write("\n".join(c.lines()) + "\n")
    print(f"wrote {len(cases)} cases to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
