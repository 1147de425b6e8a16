#!/usr/bin/env python3
"""The performance tables of README.md and docs/*.md, written from one data file.

A table that appears on more than one page (the copy figures of the README and of
docs/performance.md; the comparison table of the README and of docs/index.md) is not written by
hand: it sits between

    <!-- generated: <name> (docs/figures/tables.py) -->
    ...
    <!-- end generated -->

and this script writes it from docs/figures/copy.csv (the figures) and docs/figures/comparison.md
(the comparison table, whose `{case.column}` cells are taken from copy.csv and whose links are
written relative to the repository root).

    python3 docs/figures/tables.py write <root>   rewrites every generated region
    python3 docs/figures/tables.py check <root>   fails (CTest docs.tables) if a region differs
                                                  from what `write` would put there, or if a
                                                  page names a table this script does not know
    python3 docs/figures/tables.py plot <root>    draws docs/performance.png from copy.csv
                                                  (needs matplotlib; /usr/bin/python3 has it)
"""

import csv
import os
import pathlib
import re
import sys

BEGIN = re.compile(r"^<!-- generated: ([\w-]+) \(docs/figures/tables\.py\) -->$")
END = "<!-- end generated -->"

# The cases of the README's table (the rest are on docs/performance.md).
SUMMARY = ["transpose_4096x4096_f32", "nchw_to_nhwc_32x64x56x56_f32",
           "broadcast_1x4096_to_4096x4096_f32", "transpose_4096x4096_bf16",
           "transpose_8192x8192_u8", "permute_rank22_of_2s_f32"]
PEERS = [("numpy", "NumPy"), ("pytorch", "PyTorch"), ("eigen", "Eigen"), ("xtensor", "xtensor")]


def load(root):
    with open(root / "docs/figures/copy.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(line for line in f if not line.startswith("#")))
    return {row["case"]: row for row in rows}


def fmt(text):
    """Two decimals below 10, one from 10 (as bench/plot_performance.py); '—' if not measured."""
    if not text:
        return "—"
    value = float(text)
    return f"{value:.2f}" if value < 10 else f"{value:.1f}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def copy_cases(figures):
    return [case for case, row in figures.items() if row["numpy"]]


def summary(figures, page):
    header = ["view made contiguous (× `memcpy`, lower is better)", "strided (avx512)",
              "strided (avx2)"] + [name for _, name in PEERS]
    rows = [[f"`{case}`", fmt(figures[case]["avx512"]), fmt(figures[case]["avx2"])] +
            [fmt(figures[case][key]) for key, _ in PEERS] for case in SUMMARY]
    return table(header, rows)


def per_level(level):
    def make(figures, page):
        header = ["view made contiguous (× `memcpy`)", f"strided ({level})"] + [
            name for _, name in PEERS]
        rows = [[f"`{case}`", fmt(figures[case][level])] +
                [fmt(figures[case][key]) for key, _ in PEERS] for case in copy_cases(figures)]
        return table(header, rows)
    return make


def threads(figures, page):
    header = ["case", "avx512: 1 thread × `memcpy`", "2 threads × all-thread `memcpy`",
              "avx2: 1 thread × `memcpy`", "2 threads × all-thread `memcpy`"]
    rows = [[f"`{case}`"] + [fmt(row[k]) for k in ("avx512", "avx512_2t", "avx2", "avx2_2t")]
            for case, row in figures.items()]
    return table(header, rows)


def comparison(figures, page):
    source = (ROOT / "docs/figures/comparison.md").read_text(encoding="utf-8")

    def cell(match):
        return fmt(figures[match.group(1)][match.group(2)])

    def link(match):
        target = match.group(1)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return match.group(0)
        return "](" + os.path.relpath(target, page.parent.as_posix() or ".") + ")"

    text = re.sub(r"\{(\w+)\.(\w+)\}", cell, source)
    text = re.sub(r"\]\(([^)\s]+)\)", link, text)
    return text.rstrip("\n").split("\n")


TABLES = {"copy-summary": summary, "copy-avx512": per_level("avx512"),
          "copy-avx2": per_level("avx2"), "threads": threads, "comparison": comparison}
ROOT = pathlib.Path(".")


def pages(root):
    return [pathlib.Path("README.md")] + sorted(
        p.relative_to(root) for p in (root / "docs").glob("*.md"))


def regenerate(root, page, figures):
    """(new text, errors) for one page."""
    lines = (root / page).read_text(encoding="utf-8").split("\n")
    out, errors, i = [], [], 0
    while i < len(lines):
        out.append(lines[i])
        match = BEGIN.match(lines[i])
        i += 1
        if not match:
            continue
        name = match.group(1)
        try:
            end = lines.index(END, i)
        except ValueError:
            errors.append(f"{page}:{i}: '{name}' has no '{END}'")
            continue
        if name not in TABLES:
            errors.append(f"{page}:{i}: unknown generated table '{name}' (known: "
                          f"{', '.join(TABLES)})")
            out += lines[i:end]
        else:
            out += TABLES[name](figures, page)
        i = end
    return "\n".join(out), errors


def run(mode, root):
    global ROOT
    ROOT = root
    figures = load(root)
    stale, errors, regions = [], [], 0
    for page in pages(root):
        old = (root / page).read_text(encoding="utf-8")
        new, page_errors = regenerate(root, page, figures)
        errors += page_errors
        regions += sum(1 for line in old.split("\n") if BEGIN.match(line))
        if new != old:
            if mode == "write":
                (root / page).write_text(new, encoding="utf-8")
            stale.append(str(page))
    for error in errors:
        print(error)
    if mode == "check" and stale:
        print(f"stale generated tables in {', '.join(stale)}: run "
              "`python3 docs/figures/tables.py write .` and commit the result")
    print(f"tables: {regions} generated regions, {len(stale)} page(s) "
          f"{'rewritten' if mode == 'write' else 'stale'}, {len(errors)} error(s)")
    return 1 if errors or regions == 0 or (mode == "check" and stale) else 0


def plot(root):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figures = load(root)
    cases = copy_cases(figures)
    series = [("avx512", "strided (avx512)", "#1f77b4"), ("avx2", "strided (avx2)", "#17becf"),
              ("numpy", "NumPy", "#ff7f0e"), ("pytorch", "PyTorch", "#d62728"),
              ("eigen", "Eigen", "#2ca02c"), ("xtensor", "xtensor", "#9467bd")]
    fig, ax = plt.subplots(figsize=(14, 6))
    width = 0.14
    for k, (key, label, color) in enumerate(series):
        xs = [i + (k - 2.5) * width for i in range(len(cases))]
        ys = [float(figures[c][key] or 0) for c in cases]
        ax.bar(xs, ys, width, label=label, color=color)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_ylabel("time / memcpy of the same bytes (log; lower is better)")
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c.replace("_", " ") for c in cases], rotation=35, ha="right", fontsize=8)
    ax.set_title("Materialising a view into a preallocated buffer, one thread")
    ax.legend(ncol=3, fontsize=9)
    fig.tight_layout()
    fig.savefig(root / "docs/performance.png", dpi=110)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] in ("write", "check"):
        return run(argv[1], pathlib.Path(argv[2]))
    if len(argv) == 3 and argv[1] == "plot":
        return plot(pathlib.Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
