#!/usr/bin/env python3
"""Comments in include/ say why: no measured figures, dates, machines or "was -> now" history,
and every document they cite exists.

Scans only the comments (// and /* */, not code or string literals) of include/**/*.hpp|inl and
prints file:line: rule: text for each offence; exits 1 if there is any. Measured figures belong in
bench/NOTEBOOK.md, which is dated; a comment keeps the reason a figure supports.

Usage: check_comments.py ROOT [FILE...]  |  check_comments.py --self-test ROOT   (FILEs default to ROOT/include/**/*.hpp|inl; a FILE
outside ROOT is reported by its own name, which lets one check an old tree's copy).

Numbers that are not measurements pass: "64-byte aligned", "6 entries inline", "2 MiB pages",
"rank 64", "16x16 tile", "AVX-512", "4 x 4 block". What fails is the shape of a measurement: a
ratio ("1.4x", "3x faster", "x memcpy"), a duration (ns, us, ms, s), a rate (GB/s), a percentage,
a date, a machine's name, or two numbers joined by an arrow.
"""

import pathlib
import re
import sys

NUM = r"\d+(?:\.\d+)?"
RULES = [
    # "1.4x", "1.9×", "3x faster": a number then x, not followed by another extent ("16x16",
    # "4 x 4", "8 x [64, 3]") nor by a word ("2x2", "4xf32").
    ("ratio", re.compile(r"(?<![\w.])" + NUM + r"\s?[x×](?![\w\[(]|\s?[\d\[(]|\s[x×])")),
    ("ratio to memcpy", re.compile(r"\bx_?memcpy\b\s*(?:=|:|of)?\s*" + NUM + r"|" + NUM +
                                   r"\s*(?:times|of)\s+(?:a\s+|the\s+)?memcpy\b|"
                                   r"\bx (?:an? )?(?:[\w-]+ )?memcpy\b")),
    ("ratio in words", re.compile(r"\b(?:twice|thrice|(?:two|three|four|five|ten|\d+) times)\s+"
                                  r"(?:as\s+\w+\s+as\s+)?(?:a\s+)?(?:slower|faster|memcpy)\b|"
                                  r"\btwice as (?:slow|fast)\b")),
    # "1.36-1.43": a range of decimals is what repeated runs give.
    ("measured range", re.compile(r"(?<![\w.])\d+\.\d+\s?[-–]\s?\d+\.\d+(?![\w.])")),
    ("duration", re.compile(r"(?<![\w.])" + NUM + r"\s?(?:ns|us|µs|μs|ms|s|sec|seconds|min|minutes)\b")),
    ("rate", re.compile(r"\b[KMGT]i?B/s\b", re.IGNORECASE)),
    ("percentage", re.compile(r"(?<![\w.])" + NUM + r"\s?%")),
    ("date", re.compile(r"\b20[2-3][0-9]\b|\b(?:January|February|March|April|June|July|August|"
                        r"September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|"
                        r"Sept|Oct|Nov|Dec)\.?\s+\d{1,2}\b|\b\d{1,2}\s+(?:January|February|March|"
                        r"April|May|June|July|August|September|October|November|December)\b")),
    ("machine", re.compile(r"\b(?:Zen\s?\d?|EPYC|Xeon|Ryzen|Threadripper|Graviton|Neoverse|"
                           r"Skylake|Cascade ?Lake|Ice ?Lake|Sapphire ?Rapids|Apple M\d|"
                           r"vCPUs?|VMs?)\b")),
    # "25 s -> 490 s", "3.24-3.43 -> 2.69", "1.5-2.2x → 1.25x": a figure then an arrow then a
    # figure. A conversion ("8 bf16 → 8 f32", "f32 → i32") has a word before its arrow.
    ("was -> now", re.compile(r"(?<![\w.])" + NUM + r"(?:\s?[-–]\s?" + NUM + r")?\s?(?:[x×%]|ns|us|ms|s)?\s*"
                              r"(?:->|→|=>)\s*" + NUM)),
    ("citation of a section", re.compile(r"§")),
]
DOC_PATH = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)(?:#([\w-]+))?")


def comments(text):
    """Yields (line number, comment text) for every line of every comment in C++ source text."""
    i, n, line = 0, len(text), 1
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            yield line, text[i + 2:end]
            i = end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end
            for k, part in enumerate(text[i + 2:end].split("\n")):
                yield line + k, part
            line += text.count("\n", i, end)
            i = end + 2
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i)
            delim = text[i + 2:open_paren]
            end = text.find(")" + delim + '"', open_paren)
            end = n if end < 0 else end + len(delim) + 2
            line += text.count("\n", i, end)
            i = end
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator: 1'000'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        else:
            i += 1


def slug(heading):
    """GitHub's anchor for a Markdown heading."""
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    out = set()
    in_fence = False
    for ln in path.read_text(encoding="utf-8").splitlines():
        if ln.lstrip().startswith("```"):
            in_fence = not in_fence
        elif not in_fence and ln.startswith("#"):
            out.add(slug(ln.lstrip("#")))
    return out


def resolve(root, name):
    """A cited .md file: as written from the root, else under docs/ or bench/."""
    for base in ("", "docs/", "bench/"):
        p = root / (base + name)
        if p.is_file():
            return p
    return None


def check_citations(root, body):
    """Yields (offset, rule, what) for each cited document or heading that does not exist."""
    for m in DOC_PATH.finditer(body):
        name, anchor = m.group(1), m.group(2)
        path = resolve(root, name)
        if path is None:
            yield m.start(), "citation of a missing document", name
        elif anchor and anchor not in anchors(path):
            yield m.start(), "citation of a missing heading", f"{name}#{anchor}"
    # docs/performance.md ("The buffer cache") / docs/performance.md, "The transpose kernel"
    for m in re.finditer(r"((?:[\w.-]+/)*[\w.-]+\.md)\s*(?:\(|,)\s*[\"“]([^\"”]+)[\"”]", body):
        path = resolve(root, m.group(1))
        if path is not None and slug(m.group(2)) not in anchors(path):
            yield m.start(), "citation of a missing heading", f'{m.group(1)} "{m.group(2)}"'


def blocks(text):
    """Comments as blocks of consecutive comment lines: [(line number, text)] each."""
    block = []
    for number, body in comments(text):
        if block and number != block[-1][0] + 1:
            yield block
            block = []
        block.append((number, body.strip().lstrip("/*!<").strip()))
    if block:
        yield block


def check_file(root, path, shown):
    found = set()
    # A block's lines are joined, so that a figure, an arrow or a citation broken over two lines
    # is seen; each offence is reported at the line where it starts.
    for block in blocks(path.read_text(encoding="utf-8")):
        joined, starts = "", []
        for number, body in block:
            starts.append((len(joined), number))
            joined += body + " "

        def line_of(offset):
            return max(n for s, n in starts if s <= offset)

        for rule, pattern in RULES:
            for m in pattern.finditer(joined):
                found.add((line_of(m.start()), rule, m.group(0).strip()))
        for offset, rule, what in check_citations(root, joined):
            found.add((line_of(offset), rule, what))
    return [f"{shown}:{n}: {rule}: {what}" for n, rule, what in sorted(found)]


# The self-test: comments that must pass, and comments (each one offence) that must fail.
CLEAN = """// 64-byte aligned buffers; 6 entries inline; 2 MiB huge pages; rank 64; a 16x16 tile.
// AVX-512 and AVX2 levels, 4 x 4 blocks of N x N, 8 x [64, 3, 224, 224] f32, 2^31 -> INT32_MAX.
/// 8 bf16 → 8 f32: a shift; f32 → i32, truncating; NaN → 0. C++20, x86-64, uint8x16_t.
/* A worker woken from sleep costs about as much as copying a few hundred KiB. */
// See docs/semantics.md ("Threads and fork") and docs/casts.md#rules, and bench/NOTEBOOK.md.
int x = f("1.4x memcpy, Zen 5, 2026, see design §5");  // string literals are code, not comments
"""
DIRTY = [
    "// bf16 4096 x 4096 1.9x -> 1.4x memcpy",
    "// streamed 24x memcpy",
    "// ran 1.5-2x slower",
    "// x memcpy, one thread",
    "// 4096^2 f32 1.36-1.43 on one thread",
    "// two 25 us chunks",
    "// a TU: 25 s",
    "// 12 GB/s",
    "// about 10 % faster",
    "// measured on 4 December 2026",
    "// measured on Dec 4",
    "// on the 2-vCPU VM",
    "// Measured on Zen 5",
    "// an EPYC machine",
    "// 2.0-3.3 → 1.7",
    "// which made the transposes three times slower",
    "// design §5",
    "// see docs/missing_page.md",
    "// see docs/casts.md#no-such-heading",
    '// (docs/performance.md, "No such heading")',
    "/* the wait went\n   80 -> 25 */",
]


def self_test(root):
    import tempfile
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        clean = pathlib.Path(tmp) / "clean.hpp"
        clean.write_text(CLEAN, encoding="utf-8")
        if check_file(root, clean, "clean"):
            failures.append(("clean text flagged", check_file(root, clean, "clean")))
        for case in DIRTY:
            dirty = pathlib.Path(tmp) / "dirty.hpp"
            dirty.write_text(case + "\n", encoding="utf-8")
            if not check_file(root, dirty, "dirty"):
                failures.append(("not flagged", case))
    for f in failures:
        print("self-test:", *f)
    print(f"check_comments self-test: {len(DIRTY)} offences, {len(failures)} failure(s)")
    return 1 if failures else 0


def main(argv):
    if len(argv) > 2 and argv[1] == "--self-test":
        return self_test(pathlib.Path(argv[2]).resolve())
    root = pathlib.Path(argv[1]).resolve()
    files = [pathlib.Path(a) for a in argv[2:]]
    if not files:
        files = sorted(p for p in (root / "include").rglob("*") if p.suffix in (".hpp", ".inl"))
    problems = []
    for f in files:
        f = f.resolve()
        shown = f.relative_to(root) if f.is_relative_to(root) else f
        problems += check_file(root, f, shown)
    for p in problems:
        print(p)
    if problems:
        print(f"\n{len(problems)} comment(s) in include/ carry a measured figure, a date, a machine, "
              "history or a citation of a missing document.\nSay why in words; figures go to "
              "bench/NOTEBOOK.md (dated). See tests/check_comments.py.", file=sys.stderr)
        return 1
    print(f"check_comments: {len(files)} files, comments clean")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
