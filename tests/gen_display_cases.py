#!/usr/bin/python3
"""Generates tests/data/display_cases.txt: PyTorch's str(t) for many tensors, printed by the
tensor printer of the installed torch (Debian's python3-torch, 1.13), with the trailing
`, dtype=...` suffix removed. tests/format_test.cpp rebuilds each tensor and compares byte for byte.

Run with Debian's Python (the one that has torch):  /usr/bin/python3 tests/gen_display_cases.py

File format, one record per case:
    case <name>
    dtype <f32|f64|f16|bf16|bool|i8|i16|i32|i64|u8|u16|u32|u64>
    shape <sizes...>                      (no sizes: rank 0)
    values <v...>                         the stored values, row-major (floats as Python repr)
 or gen <a> <b> <mod> <mul>               value i = a + b * ((i * mul) % mod), computed in double
                                          and rounded to float first for f32/f16/bf16
                                          (integer types: in int64; bool: the value != 0)
    view <op> <args...>                   zero or more, applied in order; op is transpose d0 d1,
                                          permute p..., narrow d start len, broadcast_to sizes...,
                                          flip d, slice d start stop step, select d i, unsqueeze d
    options <precision> <threshold> <edgeitems> <linewidth> <sci_mode: none|true|false>
    expected <line count>
    <that many lines of output>
    end
u16/u32/u64 do not exist in torch 1.13: their cases are printed from an int64 tensor holding the
same (in-range) values, which prints identically.
"""

import math
import os
import random
import re
import sys

import torch

DTYPES = {
    "f32": torch.float32,
    "f64": torch.float64,
    "f16": torch.float16,
    "bf16": torch.bfloat16,
    "bool": torch.bool,
    "i8": torch.int8,
    "i16": torch.int16,
    "i32": torch.int32,
    "i64": torch.int64,
    "u8": torch.uint8,
    "u16": torch.int64,
    "u32": torch.int64,
    "u64": torch.int64,
}
FLOATS = ("f32", "f64", "f16", "bf16")
DEFAULTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)

CASES = []


def case(name, dtype, shape, values=None, gen=None, views=(), **options):
    CASES.append((name, dtype, list(shape), values, gen, list(views), {**DEFAULTS, **options}))


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def build(dtype, shape, values, gen):
    """The base tensor and the tokens that record its values."""
    tdtype = DTYPES[dtype]
    if gen is not None:
        a, b, mod, mul = gen
        k = (torch.arange(numel(shape), dtype=torch.int64) * mul) % mod
        if dtype in FLOATS:
            v = a + b * k.to(torch.float64)
            base = v if dtype == "f64" else v.to(torch.float32).to(tdtype)
        elif dtype == "bool":
            base = (a + b * k) != 0
        else:
            base = (a + b * k).to(tdtype)
        return base.reshape(shape), "gen %r %r %d %d" % (a, b, mod, mul)
    if dtype in FLOATS:
        base = torch.tensor([float(v) for v in values], dtype=torch.float64)
        base = base if dtype == "f64" else base.to(torch.float32).to(tdtype)
        stored = [repr(float(x)) for x in base.to(torch.float64).tolist()]
    elif dtype == "bool":
        base = torch.tensor([bool(v) for v in values], dtype=torch.bool)
        stored = ["1" if x else "0" for x in base.tolist()]
    else:
        base = torch.tensor([int(v) for v in values], dtype=tdtype)
        stored = [str(int(x)) for x in base.tolist()]
    return base.reshape(shape), "values " + " ".join(stored)


def apply_view(t, op):
    name, args = op[0], op[1:]
    if name == "transpose":
        return t.transpose(args[0], args[1])
    if name == "permute":
        return t.permute(*args)
    if name == "narrow":
        return t.narrow(args[0], args[1], args[2])
    if name == "broadcast_to":
        return t.expand(*args)
    if name == "flip":  # a copy in torch, a negative-stride view in strided: same values
        return t.flip(args[0])
    if name == "slice":  # dim start stop step (step > 0)
        index = (slice(None),) * args[0] + (slice(args[1], args[2], args[3]),)
        return t[index]
    if name == "select":
        return t.select(args[0], args[1])
    if name == "unsqueeze":
        return t.unsqueeze(args[0])
    raise ValueError(name)


def render(t, o):
    torch.set_printoptions(
        precision=o["precision"],
        threshold=o["threshold"],
        edgeitems=o["edgeitems"],
        linewidth=o["linewidth"],
        sci_mode=o["sci_mode"],
    )
    try:
        text = str(t)
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
    # strided prints no dtype: drop the suffix, which _add_suffixes may have put on its own line.
    return re.sub(r",\s*dtype=torch\.\w+\)$", ")", text)


def add_cases():
    # ----- every element type ------------------------------------------------------------------
    case("f32_2x2", "f32", [2, 2], [1, 2.5, 3, 4])
    case("f64_mixed", "f64", [3], [1.25, -2.5, 3])
    case("f16_tenths", "f16", [3], [0.1, 0.2, -0.3])
    case("bf16_mixed", "bf16", [3], [0.1, 1.5, -2])
    case("bool_1d", "bool", [3], [1, 0, 1])
    case("bool_2x3", "bool", [2, 3], [1, 1, 0, 0, 1, 0])
    case("i8_range", "i8", [3], [-128, 0, 127])
    case("i16_range", "i16", [3], [-32768, 5, 32767])
    case("i32_range", "i32", [3], [-2147483648, 0, 2147483647])
    case("i64_range", "i64", [3], [-9223372036854775808, 0, 9223372036854775807])
    case("u8_range", "u8", [3], [0, 255, 7])
    case("u16_range", "u16", [3], [0, 65535, 12])
    case("u32_range", "u32", [2], [0, 4294967295])
    case("u64_large", "u64", [2, 2], [0, 9223372036854775807, 1, 42])
    case("i16_2d", "i16", [3, 4], gen=(-600, 97, 13, 5))
    case("u8_2d", "u8", [4, 4], gen=(0, 17, 16, 3))
    case("f16_int_valued", "f16", [4], [1, 2, -3, 2048])
    case("f16_max", "f16", [3], [65504, 1, -0.5])
    case("f16_sci_small", "f16", [3], [0.00006103515625, 1, 2])
    case("bf16_large", "bf16", [3], [3.0e38, 1, -7])
    case("bf16_int_valued", "bf16", [2, 2], [1, 2, 3, 256])
    case("f16_inf_nan", "f16", [4], [float("inf"), float("nan"), 1.5, -2])
    # ----- ranks 0-5 ---------------------------------------------------------------------------
    case("rank0_f32_int", "f32", [], [3])
    case("rank0_i64", "i64", [], [3])
    case("rank0_f32_frac", "f32", [], [3.5])
    case("rank0_bool", "bool", [], [1])
    case("rank0_nan", "f32", [], [float("nan")])
    case("rank0_neg_zero", "f32", [], [-0.0])
    case("rank0_f64_small", "f64", [], [1e-7])
    case("rank0_i8_neg", "i8", [], [-5])
    case("rank1_f32", "f32", [5], gen=(0.5, 0.25, 7, 3))
    case("rank3_f32", "f32", [2, 3, 4], gen=(-1.5, 0.5, 11, 7))
    case("rank4_f32", "f32", [2, 2, 2, 2], gen=(0, 1.125, 16, 1))
    case("rank5_f32", "f32", [2, 1, 2, 1, 3], gen=(1, 0.5, 12, 5))
    case("rank5_i64", "i64", [2, 2, 1, 2, 2], gen=(-8, 1, 16, 1))
    case("rank4_bool", "bool", [2, 1, 2, 2], gen=(0, 1, 3, 1))
    # ----- negatives and int-valued floats -----------------------------------------------------
    case("neg_f32", "f32", [3], [-1.5, 2.25, -3.125])
    case("neg_i32_2x3", "i32", [2, 3], [-1, 20, -300, 4000, -50000, 6])
    case("int_valued_f32", "f32", [3], [1, 2, 3])
    case("int_valued_neg_zero", "f32", [3], [-1, 0, 100])
    case("int_valued_neg_zero_sign", "f32", [3], [-0.0, 5, -12])
    case("int_valued_ratio_sci", "f32", [2], [1, 10000])
    case("int_valued_big_sci", "f32", [2], [1e9, 1])
    case("int_valued_f64_1e8", "f64", [2], [123456789.0, 1])
    case("int_valued_2d", "f32", [2, 3], [10, -20, 30, 400, 5, 6])
    # ----- scientific mode triggers ------------------------------------------------------------
    case("sci_ratio", "f32", [2], [0.001, 1000.5])
    case("sci_small", "f32", [2], [1e-5, 0.5])
    case("sci_large", "f32", [2], [1.5e9, 2.5])
    case("sci_f32_1e-4", "f32", [2], [1e-4, 0.5])
    case("fixed_f64_1e-4", "f64", [2], [1e-4, 0.5])
    case("sci_f64_extremes", "f64", [2], [1e300, -1e-300])
    case("sci_f32_huge", "f32", [2], [3e38, 1])
    case("sci_all_tiny", "f32", [2], [1e-5, 2e-5])
    case("sci_2d_neg", "f32", [2, 2], [-1e-6, 2.5, 3e5, -4])
    case("fixed_ratio_999", "f32", [2], [0.125, 124.5])
    case("fixed_rounding", "f64", [4], [0.00015, 1.23456789, 2.5e-4, 9.99995])
    # ----- nan / inf ---------------------------------------------------------------------------
    case("nan_inf_mix", "f32", [4], [float("nan"), 1.5, float("inf"), float("-inf")])
    case("nan_int_mode", "f32", [3], [float("nan"), 1, 2])
    case("inf_only", "f32", [2], [float("inf"), float("-inf")])
    case("nan_sci", "f32", [3], [float("nan"), 1e-6, 3])
    case("zero_nan_inf_frac", "f32", [4], [0, float("nan"), float("-inf"), 1.25])
    case("inf_2d_int_mode", "f64", [2, 2], [float("inf"), 1, -2, float("nan")])
    # ----- all-zero / all-nan ------------------------------------------------------------------
    case("zeros_2x3", "f32", [2, 3], [0] * 6)
    case("signed_zeros", "f32", [2], [-0.0, 0.0])
    case("all_nan", "f32", [3], [float("nan")] * 3)
    case("zeros_sci_true", "f64", [2], [0, 0], sci_mode=True)
    case("zeros_f16", "f16", [2, 2], [0] * 4)
    case("zeros_i32", "i32", [3], [0] * 3)
    # ----- summarised --------------------------------------------------------------------------
    case("summ_1d_just_above", "f32", [1001], gen=(0, 0.5, 1001, 1))
    case("summ_1d_far_above", "f32", [100000], gen=(-3, 0.25, 1000, 7))
    case("summ_i64_1d", "i64", [1001], gen=(-500, 1, 1001, 1))
    case("summ_2d_just_above", "f32", [32, 32], gen=(0, 1.5, 1024, 1))
    case("summ_2d_far_above", "f32", [1000, 1000], gen=(1, 0.001, 9973, 31))
    case("summ_2d_short_rows", "i32", [3, 400], gen=(0, 3, 1200, 1))
    case("summ_3d_just_above", "f32", [10, 10, 11], gen=(0, 1, 1100, 1))
    case("summ_3d_far_above", "f32", [100, 100, 100], gen=(-5, 0.5, 21, 1))
    case("summ_bool_2d", "bool", [40, 30], gen=(0, 1, 3, 1))
    case("summ_f16_2d", "f16", [50, 50], gen=(0, 0.125, 50, 3))
    case("summ_bf16_1d", "bf16", [3000], gen=(1, 2, 3000, 1))
    case("summ_u8", "u8", [2000], gen=(0, 1, 256, 1))
    middle_large = [1.5, 2.5, 3.5] + [1e10] * 995 + [4.5, 5.5, 6.5]
    case("summ_widths_from_shown_only", "f32", [1001], middle_large)
    case("summ_sci_from_edges", "f32", [1200], gen=(1e-6, 1, 1200, 1))
    case("summ_int_mode", "f64", [20, 60], gen=(-600, 1, 1200, 1))
    # ----- rows that wrap at 80 columns --------------------------------------------------------
    case("wrap_f32_1d", "f32", [30], gen=(0, 0.5, 30, 1))
    case("wrap_i64_1d", "i64", [50], gen=(-25, 1, 50, 1))
    case("wrap_f32_2d", "f32", [3, 20], gen=(0, 0.25, 60, 1))
    case("wrap_f64_sci", "f64", [20], gen=(1e-7, 12345.5, 20, 1))
    case("wrap_bool", "bool", [30], gen=(0, 1, 2, 1))
    case("wrap_i8_1d", "i8", [100], gen=(-50, 1, 100, 1))
    case("wrap_3d", "f32", [2, 2, 25], gen=(0, 1.25, 100, 1))
    case("wrap_summarised", "f64", [2000], gen=(0, 123.456, 2000, 1))
    # ----- views (printed in logical order) ----------------------------------------------------
    case("view_transpose_2d", "f32", [2, 3], [1, 2, 3, 4, 5, 6], views=[("transpose", 0, 1)])
    case("view_transpose_3d", "i32", [2, 3, 4], gen=(0, 1, 24, 1), views=[("transpose", 0, 2)])
    case("view_permute", "f32", [2, 3, 4], gen=(0, 0.5, 24, 1), views=[("permute", 2, 0, 1)])
    case("view_narrow_cols", "f32", [4, 6], gen=(0, 1, 24, 1), views=[("narrow", 1, 2, 3)])
    case("view_narrow_1d", "i64", [10], gen=(0, 1, 10, 1), views=[("narrow", 0, 3, 4)])
    case("view_broadcast_row", "f32", [4], [1, 2.5, -3, 4], views=[("broadcast_to", 3, 4)])
    case("view_broadcast_3d", "i16", [3, 1], [7, -8, 9], views=[("broadcast_to", 2, 3, 4)])
    case("view_broadcast_huge", "f32", [1], [1.5], views=[("broadcast_to", 1000000, 1000000)])
    case("view_broadcast_summarised", "f32", [2000], gen=(0, 0.5, 2000, 1),
         views=[("broadcast_to", 4, 2000)])
    case("view_transpose_summarised", "f32", [2000, 3], gen=(0, 1, 6000, 1),
         views=[("transpose", 0, 1)])
    case("view_narrow_then_transpose", "f64", [5, 6], gen=(0, 0.1, 30, 1),
         views=[("narrow", 0, 1, 3), ("transpose", 0, 1)])
    case("view_narrow_summarised", "f32", [3000], gen=(0, 1e-5, 3000, 1),
         views=[("narrow", 0, 100, 1500)])
    case("view_flip_2d", "f32", [3, 4], gen=(0, 1.5, 12, 1), views=[("flip", 1)])
    case("view_flip_summarised", "i32", [2000], gen=(-1000, 1, 2000, 1), views=[("flip", 0)])
    case("view_slice_step", "f64", [4, 10], gen=(0, 0.25, 40, 1), views=[("slice", 1, 1, 10, 3)])
    case("view_select", "f32", [3, 4, 5], gen=(0, 1, 60, 1), views=[("select", 1, 2)])
    case("view_select_to_rank0", "f32", [3], [1.5, -2.25, 3], views=[("select", 0, 1)])
    case("view_unsqueeze", "i64", [3], [1, -2, 3], views=[("unsqueeze", 0)])
    case("view_flip_slice_transpose", "f32", [6, 1500], gen=(0, 0.01, 9000, 1),
         views=[("flip", 0), ("slice", 1, 0, 1500, 2), ("transpose", 0, 1)])
    # ----- more shapes -------------------------------------------------------------------------
    case("summ_rank4", "f32", [5, 5, 5, 20], gen=(-1, 0.5, 2500, 1))
    case("summ_bool_1d", "bool", [2000], gen=(0, 1, 2, 1))
    case("summ_i64_3d_neg", "i64", [12, 12, 12], gen=(-100000, 7, 1728, 1))
    case("rank2_single_column", "f32", [4, 1], [1, 2, 3.5, 4])
    case("rank3_single_row", "i8", [1, 1, 5], [1, -2, 3, -4, 5])
    # ----- each print option changed -----------------------------------------------------------
    case("opt_precision_2", "f32", [3], [1.23456, -2.5, 3.14159], precision=2)
    case("opt_precision_8", "f64", [3], [1.23456789012, -2.5, 3.14159265358], precision=8)
    case("opt_precision_0", "f32", [3], [1.5, 2.25, -3.75], precision=0)
    case("opt_precision_1_sci", "f32", [2], [1e-6, 3.25], precision=1)
    case("opt_threshold_5_1d", "i64", [10], gen=(0, 1, 10, 1), threshold=5)
    case("opt_threshold_5_2d", "f32", [4, 4], gen=(0, 0.5, 16, 1), threshold=5)
    case("opt_threshold_large", "i32", [1500], gen=(0, 1, 1500, 1), threshold=2000)
    case("opt_edgeitems_1", "f32", [50, 50], gen=(0, 1, 2500, 1), edgeitems=1)
    case("opt_edgeitems_5", "f32", [3000], gen=(0, 0.5, 3000, 1), edgeitems=5)
    case("opt_linewidth_40", "f32", [20], gen=(0, 0.5, 20, 1), linewidth=40)
    case("opt_linewidth_120", "i64", [60], gen=(0, 1, 60, 1), linewidth=120)
    case("opt_linewidth_tiny", "f32", [2, 4], gen=(0, 1.5, 8, 1), linewidth=10)
    case("opt_sci_true", "f32", [3], [1.5, 2.25, 3], sci_mode=True)
    case("opt_sci_true_int_valued", "f32", [3], [1, 20, 300], sci_mode=True)
    case("opt_sci_false_small", "f32", [2], [1e-6, 2.5], sci_mode=False)
    case("opt_sci_false_large", "f64", [2], [1e10, 2.5], sci_mode=False)
    case("opt_sci_false_int_valued_big", "f32", [2], [1, 1e9], sci_mode=False)
    case("opt_combined", "f32", [30, 30], gen=(-2, 0.001, 900, 7), precision=3, threshold=10,
         edgeitems=2, linewidth=60)
    case("opt_threshold_5_cut", "f32", [8, 8], gen=(0, 0.5, 64, 1), threshold=5, edgeitems=2)
    case("opt_threshold_0", "i32", [3], [1, 2, 3], threshold=0)
    case("opt_linewidth_below_indent", "f32", [2, 2, 3], gen=(0, 1.5, 12, 1), linewidth=5)
    case("opt_precision_0_sci", "f32", [2], [1e-5, 0.5], precision=0)
    case("opt_precision_10_f64", "f64", [3], [1.0 / 3, -2.0 / 3, 0.1], precision=10)
    case("opt_sci_false_int_mode_wide", "f32", [3], [1, 100000, 7], sci_mode=False)
    case("opt_precision_6_f16", "f16", [3], [0.1, 0.2, 0.3], precision=6)


def add_random_cases(count, seed=20261202):
    """Random small tensors: every dtype, ranks 1-4, magnitudes 1e-7..1e10, integer-valued runs,
    signed zeros, nan/inf sprinkled in, random options. Deterministic (fixed seed)."""
    rng = random.Random(seed)
    names = list(DTYPES)
    for n in range(count):
        dtype = rng.choice(names)
        rank = rng.randint(1, 4)
        shape = [rng.randint(1, 5) for _ in range(rank)]
        size = numel(shape)
        if dtype in FLOATS:
            scale = 10.0 ** rng.randint(-7, 10)
            integral = rng.random() < 0.3
            values = []
            for _ in range(size):
                v = rng.gauss(0, 1) * scale
                if integral:
                    v = float(round(v))
                r = rng.random()
                if r < 0.05:
                    v = math.nan
                elif r < 0.08:
                    v = rng.choice([math.inf, -math.inf])
                elif r < 0.12:
                    v = rng.choice([0.0, -0.0])
                values.append(v)
        elif dtype == "bool":
            values = [rng.randint(0, 1) for _ in range(size)]
        else:
            lo, hi = {"i8": (-128, 127), "i16": (-32768, 32767), "i32": (-2**31, 2**31 - 1),
                      "i64": (-2**63, 2**63 - 1), "u8": (0, 255), "u16": (0, 65535),
                      "u32": (0, 2**32 - 1), "u64": (0, 2**63 - 1)}[dtype]
            digits = rng.randint(1, len(str(hi)))
            raw = [rng.randint(-10**digits, 10**digits) for _ in range(size)]
            values = [max(lo, min(hi, abs(v) if lo == 0 else v)) for v in raw]
        options = {}
        if rng.random() < 0.4:
            options["precision"] = rng.randint(0, 8)
        if rng.random() < 0.3:
            options["linewidth"] = rng.randint(20, 120)
        if rng.random() < 0.2:
            options["sci_mode"] = rng.choice([True, False])
        if rng.random() < 0.2:
            options["threshold"] = rng.randint(1, 50)
            options["edgeitems"] = rng.randint(1, 3)
        case("random_%02d" % n, dtype, shape, values, **options)


def main():
    add_cases()
    add_random_cases(60)
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                            "display_cases.txt")
    lines = ["# Generated by tests/gen_display_cases.py with torch %s. Do not edit." %
             torch.__version__]
    for name, dtype, shape, values, gen, views, o in CASES:
        base, value_line = build(dtype, shape, values, gen)
        t = base
        for op in views:
            t = apply_view(t, op)
        text = render(t, o)
        sci = {None: "none", True: "true", False: "false"}[o["sci_mode"]]
        lines.append("case " + name)
        lines.append("dtype " + dtype)
        lines.append(" ".join(["shape"] + [str(s) for s in shape]))
        lines.append(value_line)
        for op in views:
            lines.append(" ".join(["view", op[0]] + [str(a) for a in op[1:]]))
        lines.append("options %d %d %d %d %s" % (o["precision"], o["threshold"], o["edgeitems"],
                                                 o["linewidth"], sci))
        body = text.split("\n")
        lines.append("expected %d" % len(body))
        lines.extend(body)
        lines.append("end")
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d cases -> %s" % (len(CASES), out_path), file=sys.stderr)


if __name__ == "__main__":
    main()
