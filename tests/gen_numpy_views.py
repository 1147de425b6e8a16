#!/usr/bin/python3
"""Generates tests/data/numpy_views.txt: NumPy as the oracle for strided's zero-copy views.

Run with Debian's python3 (it has numpy):  /usr/bin/python3 tests/gen_numpy_views.py
The output is deterministic (fixed seed); tests/numpy_views_test.cpp replays every case.

Each case starts from np.arange(n).reshape(base) (int64, so values are storage indices) and applies
a chain of basic-indexing views. The file holds, one token stream per line:

  case <rank> <dims...> <number of ops>
  <op> <args...>                      one line per op (see below)
  ok <rank> <dims...> <strides...> <offset> <numel> <values...>
  | err non_contiguous_reshape        (NumPy needed a copy for the last reshape)

Strides and the offset are in elements. The offset is that of element [0, ..., 0] from the start
of the base buffer (-1 when the result has no elements: it is then meaningless).

Ops (N = an omitted slice bound, Python's None):
  index <k> <item>...   a[item, ...]; item = s <start> <stop> <step> | i <int> | x (np.newaxis)
  flip <axis>           np.flip(a, axis)
  squeeze               np.squeeze(a)
  squeeze1 <axis>       np.squeeze(a, axis)
  expand <axis>         np.expand_dims(a, axis)
  swap <a> <b>          np.swapaxes(a, a, b)
  move <src> <dst>      np.moveaxis(a, src, dst)
  diag <off> <a1> <a2>  np.diagonal(a, off, a1, a2)
  reshape <k> <dims>    a no-copy reshape (`v = a.view(); v.shape = dims`); -1 = inferred
"""

import os
import random
import sys

import numpy as np

SEED = 20261202
RANDOM_CASES = 8000
MAX_ELEMENTS = 150
MAX_RANK = 6
BIG = 2**62  # bounds far outside every axis, to exercise clamping


def fmt_bound(b):
    return "N" if b is None else str(b)


class Chain:
    def __init__(self, base_shape):
        self.base_shape = base_shape
        n = int(np.prod(base_shape)) if base_shape else 1
        self.base = np.arange(n, dtype=np.int64).reshape(base_shape)
        self.a = self.base
        self.ops = []
        self.error = None

    def offset(self):
        if self.a.size == 0:
            return -1
        base_ptr = self.base.__array_interface__["data"][0]
        ptr = self.a.__array_interface__["data"][0]
        assert (ptr - base_ptr) % 8 == 0
        return (ptr - base_ptr) // 8

    def result_line(self):
        if self.error:
            return "err " + self.error
        a = self.a
        strides = [s // 8 for s in a.strides]
        assert all(s * 8 == t for s, t in zip(strides, a.strides))
        assert np.shares_memory(a, self.base) or a.size == 0
        vals = a.ravel(order="C").tolist()
        toks = ["ok", str(a.ndim)] + [str(d) for d in a.shape] + [str(s) for s in strides]
        toks += [str(self.offset()), str(a.size)] + [str(v) for v in vals]
        return " ".join(toks)

    def text(self):
        head = ["case", str(len(self.base_shape))] + [str(d) for d in self.base_shape]
        lines = [" ".join(head + [str(len(self.ops))])] + self.ops + [self.result_line()]
        return "\n".join(lines)


def random_bound(rng, size):
    r = rng.random()
    if r < 0.2:
        return None
    if r < 0.25:
        return rng.choice([BIG, -BIG])
    return rng.randint(-size - 2, size + 2)


def random_slice(rng, size):
    step = rng.choice([1, 1, 1, -1, -1, 2, -2, 3, -3, 4, -5, None])
    start, stop = random_bound(rng, size), random_bound(rng, size)
    if size > 0 and rng.random() < 0.6:  # mostly non-empty, so that chains keep elements
        lo, hi = sorted((rng.randint(0, size - 1), rng.randint(0, size - 1)))
        start, stop = (lo, hi + 1) if (step or 1) > 0 else (hi, lo - 1 if lo else None)
        if rng.random() < 0.3 and start is not None:
            start -= size  # the same bound counted from the end
    return start, stop, step


def op_index(rng, c):
    a = c.a
    items, toks, axis = [], [], 0
    while axis < a.ndim or (rng.random() < 0.2 and a.ndim + toks.count("x") < MAX_RANK):
        r = rng.random()
        if axis < a.ndim and r < 0.6:
            start, stop, step = random_slice(rng, a.shape[axis])
            items.append(slice(start, stop, step))
            # C++ has no omitted step: None is 1.
            toks.append("s %s %s %d" % (fmt_bound(start), fmt_bound(stop), step or 1))
            axis += 1
        elif axis < a.ndim and r < 0.8 and a.shape[axis] > 0:
            k = rng.randint(-a.shape[axis], a.shape[axis] - 1)
            items.append(k)
            toks.append("i %d" % k)
            axis += 1
        elif a.ndim - len([t for t in toks if t.startswith("i")]) + toks.count("x") < MAX_RANK:
            items.append(np.newaxis)
            toks.append("x")
        else:
            break
        if rng.random() < 0.3:
            break  # the remaining axes are implicit full slices
    c.a = a[tuple(items) + (Ellipsis,)]  # Ellipsis: a 0-d view, never a scalar
    c.ops.append("index %d %s" % (len(toks), " ".join(toks)) if toks else "index 0")


def op_flip(rng, c):
    if c.a.ndim == 0:
        return False
    axis = rng.randrange(c.a.ndim)
    c.a = np.flip(c.a, axis)
    c.ops.append("flip %d" % axis)
    return True


def op_squeeze(rng, c):
    ones = [k for k, d in enumerate(c.a.shape) if d == 1]
    if ones and rng.random() < 0.6:
        axis = rng.choice(ones)
        c.a = np.squeeze(c.a, axis)
        c.ops.append("squeeze1 %d" % axis)
    else:
        c.a = np.squeeze(c.a)
        c.ops.append("squeeze")
    return True


def op_expand(rng, c):
    if c.a.ndim >= MAX_RANK:
        return False
    axis = rng.randint(0, c.a.ndim)
    c.a = np.expand_dims(c.a, axis)
    c.ops.append("expand %d" % axis)
    return True


def op_swap(rng, c):
    if c.a.ndim < 2:
        return False
    x, y = rng.randrange(c.a.ndim), rng.randrange(c.a.ndim)
    c.a = np.swapaxes(c.a, x, y)
    c.ops.append("swap %d %d" % (x, y))
    return True


def op_move(rng, c):
    if c.a.ndim < 1:
        return False
    s, d = rng.randrange(c.a.ndim), rng.randrange(c.a.ndim)
    c.a = np.moveaxis(c.a, s, d)
    c.ops.append("move %d %d" % (s, d))
    return True


def op_diag(rng, c):
    if c.a.ndim < 2:
        return False
    x = rng.randrange(c.a.ndim)
    y = rng.choice([k for k in range(c.a.ndim) if k != x])
    off = rng.randint(-2, 2)
    c.a = np.diagonal(c.a, off, x, y)
    c.ops.append("diag %d %d %d" % (off, x, y))
    return True


def random_factorisation(rng, n):
    """A random shape with product n (n > 0), rank 0..4, size-1 axes sprinkled in."""
    dims, rest = [], n
    for _ in range(rng.randint(0, 3)):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        d = rng.choice(divisors)
        dims.append(d)
        rest //= d
    if rest != 1 or not dims or rng.random() < 0.5:
        dims.append(rest)
    if rng.random() < 0.3:
        dims.insert(rng.randint(0, len(dims)), 1)
    rng.shuffle(dims)
    return dims[:MAX_RANK]


def op_reshape(rng, c):
    n = c.a.size
    if n == 0:
        dims = [0] + [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        rng.shuffle(dims)
    else:
        dims = random_factorisation(rng, n)
        if int(np.prod(dims)) != n:
            return False
        if dims and rng.random() < 0.4:
            dims[rng.randrange(len(dims))] = -1
    c.ops.append("reshape %d %s" % (len(dims), " ".join(str(d) for d in dims)))
    v = c.a.view()
    try:
        v.shape = dims
    except AttributeError:  # NumPy: "Incompatible shape for in-place modification"
        c.error = "non_contiguous_reshape"
        return True
    c.a = v
    return True


OPS = [op_flip, op_squeeze, op_expand, op_swap, op_move, op_diag, op_reshape, op_reshape]


def random_base(rng):
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4])
    while True:
        dims = [rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5, 6]) if rng.random() < 0.05 else
                rng.randint(1, 6) for _ in range(rank)]
        if int(np.prod(dims)) <= MAX_ELEMENTS:
            return dims


def random_case(rng):
    c = Chain(random_base(rng))
    for _ in range(rng.randint(1, 6)):
        if c.error:
            break
        if rng.random() < 0.4:
            op_index(rng, c)
        else:
            while not rng.choice(OPS)(rng, c):
                pass
    return c


def exhaustive_1d_slices():
    """Every slice of short 1-d arrays: bounds -7..7 and None, steps +-1..3."""
    bounds = list(range(-7, 8)) + [None]
    for n in range(0, 6):
        for step in (-3, -2, -1, 1, 2, 3):
            for start in bounds:
                for stop in bounds:
                    c = Chain([n])
                    c.a = c.a[start:stop:step]
                    c.ops.append("index 1 s %s %s %d" % (fmt_bound(start), fmt_bound(stop), step))
                    yield c


def main():
    out_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "data", "numpy_views.txt")
    rng = random.Random(SEED)
    cases = list(exhaustive_1d_slices()) + [random_case(rng) for _ in range(RANDOM_CASES)]
    with open(out_path, "w") as f:
        f.write("# Generated by tests/gen_numpy_views.py (numpy %s, seed %d); do not edit.\n" %
                (np.__version__, SEED))
        f.write("%d\n" % len(cases))
        for c in cases:
            f.write(c.text() + "\n")
    errors = sum(1 for c in cases if c.error)
    print("%s: %d cases (%d random, %d end in non_contiguous_reshape)" %
          (out_path, len(cases), RANDOM_CASES, errors))


if __name__ == "__main__":
    main()
