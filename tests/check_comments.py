#!/usr/bin/env python3
"""Comments in include/ say why: no measured figures, dates, machines or "was -> now" history,
and every document they cite exists.

Scans only the comments (// and /* */, not code or string literals) of include/**/*.hpp|inl and
prints file:line: rule: text for each offence; exits 1 if there is any. Measured figures belong in
bench/NOTEBOOK.md, which is dated; a comment keeps the reason a figure supports.

Usage: check_comments.py ROOT [FILE...]   (FILEs default to ROOT/include/**/*.hpp|inl; a FILE
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
                                   r"\s*(?:times|of)\s+(?:a\s+|the\s+)?memcpy\b")),
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
    for m in DOC_PATH.finditer(body):
        name, anchor = m.group(1), m.group(2)
        path = resolve(root, name)
        if path is None:
            yield "citation of a missing document", name
        elif anchor and anchor not in anchors(path):
            yield "citation of a missing heading", f"{name}#{anchor}"
    # docs/performance.md ("The buffer cache") / docs/performance.md, "The transpose kernel"
    for m in re.finditer(r"((?:[\w.-]+/)*[\w.-]+\.md)\s*(?:\(|,)\s*[\"“]([^\"”]+)[\"”]", body):
        path = resolve(root, m.group(1))
        if path is not None and slug(m.group(2)) not in anchors(path):
            yield "citation of a missing heading", f'{m.group(1)} "{m.group(2)}"'


def check_file(root, path, shown):
    text = path.read_text(encoding="utf-8")
    found = []
    # Join a comment's consecutive lines so that a citation or an arrow broken over lines is seen.
    lines = list(comments(text))
    for number, body in lines:
        for rule, pattern in RULES:
            m = pattern.search(body)
            if m:
                found.append((number, rule, m.group(0).strip()))
    joined, start, prev = "", None, None
    for number, body in lines + [(None, "")]:
        if number is not None and prev is not None and number == prev + 1:
            joined += " " + body.strip().lstrip("/*").strip()
        else:
            if start is not None:
                for rule, what in check_citations(root, joined):
                    found.append((start, rule, what))
            joined, start = body.strip().lstrip("/*").strip(), number
        prev = number
    return [f"{shown}:{n}: {rule}: {what}" for n, rule, what in sorted(set(found))]


def main(argv):
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
