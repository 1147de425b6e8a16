#!/usr/bin/python3
"""Distribution plot and Markdown tables of the random shape sweep: sweep_bench (strided, per ISA
level) beside bench/peers_sweep.py (NumPy, PyTorch), every figure a ratio to memcpy of the same
bytes measured in its own process.

Usage:
  /usr/bin/python3 bench/plot_sweep.py --bench sweep.json [sweep2.json ...] --peers peers.json \\
      --png docs/sweep.png --table sweep_table.md
sweep.json: `sweep_bench --benchmark_out=sweep.json --benchmark_out_format=json` (or its console
output, a .txt file). With several runs, each view's figure is the median over the runs. The
peers file is peers_sweep.py's --out JSON (or its progress lines, a .txt file).
"""
import argparse
import json
import math
import re
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def bench_entries(path):
    """(run name, x_memcpy) of every view in a sweep_bench JSON file, or in its console output
    (a .txt file: usable while a run is still going)."""
    if path.endswith(".txt"):
        with open(path) as f:
            for line in f:
                m = re.match(r"^((sweep|channels)/\S+)\s.*x_memcpy=([0-9.]+)", line)
                if m and not re.search(r"_(mean|stddev|cv)$", m.group(1)):
                    yield m.group(1), float(m.group(3))
        return
    with open(path) as f:
        for b in json.load(f)["benchmarks"]:
            if b.get("aggregate_name", "median") == "median":
                yield b["run_name"], b["x_memcpy"]


def load_bench(paths):
    """{group: {isa: {view: x_memcpy}}}; a view in several files (runs) gets their median."""
    runs = {}
    for path in paths:
        for name, x in bench_entries(path):
            group, isa, view = name.split("/")[:3]
            runs.setdefault((group, isa, view), []).append(x)
    out = {}
    for (group, isa, view), xs in runs.items():
        out.setdefault(group, {}).setdefault(isa, {})[view] = statistics.median(xs)
    return out


def load_peers(path):
    """{view: {"numpy": x, "torch": x}} from peers_sweep.py's JSON or its progress lines (.txt)."""
    if not path.endswith(".txt"):
        with open(path) as f:
            return json.load(f)["views"]
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"^(\S+)\s+numpy\s+([0-9.]+)\s+torch\s+([0-9.na]+)", line)
            if m:
                out[m.group(1)] = {"numpy": float(m.group(2)), "torch": float(m.group(3))}
    return out


def quantile(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def summary_rows(series, peers):
    rows = ["| series | views | p50 | p90 | max | ahead of NumPy and PyTorch |",
            "| --- | --- | --- | --- | --- | --- |"]
    for label, xs in series.items():
        vals = list(xs.values())
        ahead = "—"
        if not label.startswith(("NumPy", "PyTorch")):
            wins = [v for v, x in xs.items()
                    if x < peers["numpy"].get(v, math.inf) and x < peers["torch"].get(v, math.inf)]
            ahead = f"{len(wins)}/{len(xs)} ({100 * len(wins) / len(xs):.1f} %)"
        rows.append(f"| {label} | {len(vals)} | {quantile(vals, 0.5):.2f} | "
                    f"{quantile(vals, 0.9):.2f} | {max(vals):.2f} | {ahead} |")
    return rows


def channel_rows(channels, peers):
    isas = sorted(channels)
    rows = ["| case | " + " | ".join(f"strided ({i})" for i in isas) + " | NumPy | PyTorch |",
            "| --- |" + " --- |" * (len(isas) + 2)]
    for view in channels[isas[0]]:
        cells = [f"{channels[i][view]:.2f}" for i in isas]
        cells += [f"{peers[p].get(view, math.nan):.2f}" for p in ("numpy", "torch")]
        rows.append(f"| {view} | " + " | ".join(cells) + " |")
    return rows


def plot(series, png):
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, xs in series.items():
        vals = sorted(xs.values())
        ax.step(vals, [(k + 1) / len(vals) for k in range(len(vals))], where="post", label=label)
    ax.axvline(2.0, color="grey", linestyle="--", linewidth=0.8)
    ax.axhline(0.9, color="grey", linestyle=":", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("time / memcpy of the same bytes (log scale; dashed: target 2.0)")
    ax.set_ylabel("fraction of views (dotted: p90)")
    ax.set_title("Random shape sweep: 200 views, copy into a preallocated buffer, one thread")
    ax.legend(loc="lower right")
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", nargs="+", required=True)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--table", required=True)
    args = ap.parse_args()
    bench = load_bench(args.bench)
    views = load_peers(args.peers)
    peers = {p: {v: r[p] for v, r in views.items() if p in r} for p in ("numpy", "torch")}
    sweep = bench["sweep"]
    in_sweep = set(next(iter(sweep.values())))
    series = {f"strided ({isa})": xs for isa, xs in sorted(sweep.items())}
    series["NumPy copyto"] = {v: x for v, x in peers["numpy"].items() if v in in_sweep}
    series["PyTorch copy_"] = {v: x for v, x in peers["torch"].items() if v in in_sweep}
    plot(series, args.png)
    with open(args.table, "w") as f:
        f.write("\n".join(summary_rows(series, peers)) + "\n\n")
        f.write("\n".join(channel_rows(bench["channels"], peers)) + "\n")


if __name__ == "__main__":
    main()
