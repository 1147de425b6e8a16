#!/usr/bin/python3
"""Bar chart and Markdown table of copy_bench (strided, Eigen, xtensor) beside bench/peers.py
(NumPy, PyTorch): every figure a ratio to memcpy of the same bytes measured in its own process.

Usage:
  /usr/bin/python3 bench/plot_performance.py --bench run1.json [run2.json ...] --peers peers.json \\
      --png docs/performance.png --table table.md
copy_bench.json: `copy_bench --benchmark_format=json --benchmark_out=copy_bench.json`.
"""
import argparse
import json
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# Issue 8's targets for strided's copy_to (ratio to memcpy).
TARGETS = {
    "contiguous_4096x4096_f32": 1.05,
    "narrow_cols_1000_3048_of_4096x4096_f32": 1.15,
    "broadcast_1x4096_to_4096x4096_f32": 1.0,
    "transpose_4104x4104_f32": 1.5,
    "transpose_1024x1024_f32": 1.5,
    "transpose_4096x4096_f32": 2.0,
    "nchw_to_nhwc_32x64x56x56_f32": 1.6,
    "nhwc_to_nchw_32x56x56x64_f32": 1.6,
    "permute_rank22_of_2s_f32": 2.0,
    "transpose_8192x8192_u8": 2.0,
    "transpose_4096x4096_bf16": 2.0,
    "transpose_4096x4096_f64": 2.0,
    "batched_transpose_64x512x512_f32": 1.6,
}


def load_bench(paths):
    """{(group, case): {counter: value}} from Google Benchmark JSON files (median aggregates).
    With several files (runs), each value is the median over the runs that have it: on a shared
    machine one run can be off by several times for a case, the median of runs is stable."""
    runs = {}
    isa = "?"
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        isa = data.get("context", {}).get("strided_isa", isa)
        for b in data["benchmarks"]:
            if b.get("aggregate_name") != "median":
                continue
            parts = b["run_name"].split("/")
            slot = runs.setdefault((parts[0], parts[1]), {})
            for k in ("x_memcpy", "x_fresh"):
                if k in b:
                    slot.setdefault(k, []).append(b[k])
    out = {key: {k: statistics.median(v) for k, v in c.items()} for key, c in runs.items()}
    return out, isa


def fmt(x):
    return "—" if x is None else (f"{x:.2f}" if x < 10 else f"{x:.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, nargs="+", help="one or more runs")
    ap.add_argument("--peers", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--table", required=True)
    args = ap.parse_args()
    bench, isa = load_bench(args.bench)
    with open(args.peers) as f:
        peers = json.load(f)

    def get(group, case, key="x_memcpy"):
        return bench.get((group, case), {}).get(key)

    def peer(lib, case, key="copy_to"):
        return peers.get(lib, {}).get(case, {}).get(key)

    cases = list(TARGETS)
    series = {
        "strided": [get("copy_to", c) for c in cases],
        "NumPy": [peer("numpy", c) for c in cases],
        "PyTorch": [peer("torch", c) for c in cases],
        "Eigen": [get("eigen", c) for c in cases],
        "xtensor": [get("xtensor", c) for c in cases],
    }

    lines = [
        f"strided ISA level: {isa}. Ratios to `memcpy` of the same bytes into a preallocated "
        "buffer, measured interleaved in the same process; medians of 9 repetitions (and, for "
        f"strided, the median over the runs that measured the case: up to {len(args.bench)} files given). "
        "NumPy "
        f"{peers['meta']['numpy']} and PyTorch {peers['meta']['torch']} (one thread) from "
        "`bench/peers.py`; Eigen 3.4 and xtensor 0.24 from `bench/copy_bench.cpp`.",
        "",
        "| case | target | strided `copy_to` | strided `contiguous()` vs fresh copy | "
        "strided `contiguous()` vs memcpy | NumPy `copyto` | NumPy `ascontiguousarray` | "
        "PyTorch `copy_` | PyTorch `.contiguous()` | Eigen | xtensor |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for c in cases:
        lines.append(
            f"| {c} | ≤ {TARGETS[c]} | {fmt(get('copy_to', c))} | "
            f"{fmt(get('contiguous', c, 'x_fresh'))} | {fmt(get('contiguous', c))} | "
            f"{fmt(peer('numpy', c))} | {fmt(peer('numpy', c, 'contiguous'))} | "
            f"{fmt(peer('torch', c))} | {fmt(peer('torch', c, 'contiguous'))} | "
            f"{fmt(get('eigen', c))} | {fmt(get('xtensor', c))} |")
    alloc = [(k[1], v.get("x_memcpy")) for k, v in bench.items() if k[0] == "alloc"]
    if alloc:
        lines += ["", "| fresh 64 MiB buffer + memcpy | ratio to memcpy |", "| --- | --- |"]
        lines += [f"| {name} | {fmt(r)} |" for name, r in sorted(alloc)]
    with open(args.table, "w") as f:
        f.write("\n".join(lines) + "\n")

    fig, ax = plt.subplots(figsize=(14, 6))
    width = 0.16
    colors = {"strided": "#1f77b4", "NumPy": "#ff7f0e", "PyTorch": "#d62728", "Eigen": "#2ca02c",
              "xtensor": "#9467bd"}
    for k, (label, values) in enumerate(series.items()):
        xs = [i + (k - 2) * width for i in range(len(cases))]
        ys = [v if v is not None else 0 for v in values]
        ax.bar(xs, ys, width, label=label, color=colors[label])
    ax.scatter(range(len(cases)), [TARGETS[c] for c in cases], marker="_", s=400, color="black",
               label="target (strided)", zorder=3)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("time / memcpy of the same bytes (log)")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c.replace("_", " ") for c in cases], rotation=35, ha="right", fontsize=8)
    ax.set_title(f"Materialising views into a preallocated buffer, one thread (strided ISA: {isa})")
    ax.legend(ncol=3, fontsize=9)
    fig.tight_layout()
    fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    main()
