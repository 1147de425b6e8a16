#!/usr/bin/env python3
"""Compiles and runs the C++ code blocks of README.md and docs/*.md (CTest label `docs`).

Every ```cpp block of a page carries a marker on the line(s) just before its fence; CMake runs
`generate` at configure time, which writes one translation unit per page (tests/doc_blocks_runner.hpp
runs its blocks and compares their output), and `lint` / `links` as CTest tests.

Markers (HTML comments, so the rendered page does not show them):

    <!-- compile: main -->      the block is the body of a function `int f()` (falling off its end
                                returns 0; `return 1;` fails the test). The public strided headers
                                that need no third-party library and the common standard headers
                                (PRELUDE_HEADERS below) are included.
    <!-- compile: file -->      the block sits at namespace scope (types, element_traits, functions)
                                of the page's translation unit; later blocks of the page can use it.
    <!-- compile: program -->   the block is a whole program (its own #includes and `int main()`).
    <!-- compile: synopsis -->  a list of declarations, not meant to compile.
    <!-- compile: excerpt -->   only with a `<!-- snippet: <file> -->` marker: the block is compiled
                                as part of <file> (for code that needs e.g. Python.h).

A `compile` marker may name a third-party library the block needs, `<!-- compile: main, needs: fmt
-->` (fmt, dlpack, nlohmann_json; the block's #includes imply it too): without that library the
block is reported as skipped. A multi-line marker carries hidden setup code, written before the block
(the page shows only the block):

    <!-- compile: main
    const std::string path = "/tmp/weights.safetensors";
    -->

`<!-- output -->` before a fenced block says that it is exactly what the nearest `main` or
`program` block above it prints on std::cout. A `<!-- snippet: <file> -->` marker (checked by
tests/check_docs.cmake) may stand with a `compile` marker; blocks of the two markers are the same.

    python3 doc_blocks.py generate <root> <out dir>   writes <out dir>/<page>.cpp, one per page with
                                                      a compiled block, and pages.txt
    python3 doc_blocks.py lint <root>                 every cpp block marked, markers well formed
    python3 doc_blocks.py links <root>                links and repository paths named in the docs (and in
                                                      bench/NOTEBOOK.md) exist,
                                                      and so do the #anchors of links to pages
    python3 doc_blocks.py examples <root>             docs/examples.md links every program in examples/
"""

import pathlib
import re
import sys

MODES = {"main", "file", "program", "synopsis", "excerpt"}
DEPS = {"fmt", "dlpack", "nlohmann_json"}
# What a block's text implies it needs, and the header the page then includes for it.
DEP_PATTERNS = {
    "fmt": (re.compile(r"strided/format\.hpp|<fmt/|fmt::"), "strided/format.hpp"),
    "dlpack": (re.compile(r"strided/interop/dlpack\.hpp|DLManagedTensor|to_dlpack|from_dlpack"),
               "strided/interop/dlpack.hpp"),
    "nlohmann_json": (re.compile(r"strided/io/safetensors\.hpp|[Ss]afetensors|<nlohmann/"),
                      "strided/io/safetensors.hpp"),
}
PRELUDE_STD = ["algorithm", "array", "cmath", "cstddef", "cstdint", "cstdio", "filesystem",
               "iostream", "numeric", "optional", "span", "string", "string_view", "tuple",
               "utility", "vector"]

FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
COMPILE = re.compile(r"^<!-- compile: (\w+)(?:, needs: ([\w ]+))?( -->)?$")


class Block:
    def __init__(self, page, line, lang, lines):
        self.page, self.line, self.lang, self.lines = page, line, lang, lines
        self.mode = None
        self.needs = set()
        self.hidden = []
        self.hidden_line = 0
        self.snippet = None
        self.output = False
        self.errors = []

    @property
    def where(self):
        return f"{self.page}:{self.line}"

    @property
    def text(self):
        return "\n".join(self.hidden + self.lines)


def read_markers(lines, fence_index, block):
    """Reads the HTML comments directly above the fence at fence_index into block."""
    i = fence_index - 1
    comments = []
    while i >= 0 and lines[i].strip():
        if lines[i].rstrip() == "-->":  # the end of a multi-line marker
            start = i - 1
            while start >= 0 and not lines[start].startswith("<!--"):
                start -= 1
            if start < 0:
                break
            comments.insert(0, (lines[start], lines[start + 1:i]))
            block.hidden_line = start + 2
            i = start - 1
        elif lines[i].startswith("<!--"):
            comments.insert(0, (lines[i].rstrip(), []))
            i -= 1
        else:
            break
    for head, body in comments:
        snippet = re.match(r"^<!-- snippet: (\S+) -->$", head)
        compile_ = COMPILE.match(head)
        if snippet:
            block.snippet = snippet.group(1)
        elif head == "<!-- output -->":
            block.output = True
        elif compile_:
            parse_compile(compile_, body, block)
        elif head.startswith("<!-- compile"):
            block.errors.append(f"malformed marker '{head}'")


def parse_compile(match, body, block):
    block.mode = match.group(1)
    if block.mode not in MODES:
        block.errors.append(f"unknown compile mode '{block.mode}' (one of {sorted(MODES)})")
    if match.group(2):
        block.needs = set(match.group(2).split())
        for dep in block.needs - DEPS:
            block.errors.append(f"unknown dependency '{dep}' (one of {sorted(DEPS)})")
    single_line = match.group(3) is not None
    if single_line and body:
        block.errors.append("a one-line compile marker followed by hidden code")
    block.hidden = body


def parse_page(root, page):
    lines = (root / page).read_text(encoding="utf-8").split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence.group(1)):
            end += 1
        block = Block(page, i + 2, fence.group(2), lines[i + 1:end])
        read_markers(lines, i, block)
        blocks.append(block)
        i = end + 1
    return blocks


def check_page(blocks):
    """Sets each block's errors; returns the list of (block, expected output) pairs."""
    last_run = None
    for block in blocks:
        if block.lang in ("cpp", "c++") and block.mode is None:
            block.errors.append("C++ block without a <!-- compile: ... --> marker "
                                "(see tests/doc_blocks.py)")
        if block.lang == "cmake" and not (block.snippet or "").startswith("tests/package/"):
            block.errors.append("CMake block not taken from a consumer project: mark it "
                                "<!-- snippet: tests/package/<form>/CMakeLists.txt -->")
        if block.mode is not None and block.lang not in ("cpp", "c++"):
            block.errors.append(f"compile marker on a '{block.lang}' block")
        if block.mode == "excerpt" and block.snippet is None:
            block.errors.append("'excerpt' needs a <!-- snippet: <file> --> marker")
        if block.mode in ("main", "program"):
            last_run = block
            block.expected = None
        if block.output:
            if last_run is None:
                block.errors.append("<!-- output --> with no main/program block above it")
            elif last_run.expected is not None:
                block.errors.append(f"a second <!-- output --> for the block at {last_run.where}")
            else:
                last_run.expected = "".join(line + "\n" for line in block.lines)
        if block.mode in MODES - {"synopsis", "excerpt"}:
            for dep, (pattern, _) in DEP_PATTERNS.items():
                if pattern.search(block.text):
                    block.needs.add(dep)


def pages(root):
    found = [pathlib.Path("README.md")] + sorted(
        p.relative_to(root) for p in (root / "docs").glob("*.md"))
    return [p for p in found if (root / p).exists()]


def prelude_headers(root):
    """The public headers that need no third-party library."""
    headers = []
    for path in sorted((root / "include" / "strided").rglob("*.hpp")):
        rel = path.relative_to(root / "include").as_posix()
        if "/detail/" in rel:
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"#\s*include\s*<(fmt|dlpack|nlohmann|pybind11|Eigen)/", text):
            continue
        headers.append(rel)
    return headers


def cpp_string(text):
    return "R\"doc_block(" + text + ")doc_block\""


def emit_block(block, out):
    name = f"block_{block.line}"
    guard = " && ".join(f"defined(STRIDED_HAVE_{dep.upper()})" for dep in sorted(block.needs))
    if guard:
        out.append(f"#if {guard}")
    if block.mode == "program":
        out.append(f"#define main doc_{name}")
    if block.mode == "main":
        out.append(f"static int doc_{name}() {{")
    if block.hidden:
        out.append(f'#line {block.hidden_line} "{block.page}"')
        out.extend(block.hidden)
    out.append(f'#line {block.line} "{block.page}"')
    out.extend(block.lines)
    if block.mode == "main":
        out.append("  return 0;\n}")
    if block.mode == "program":
        out.append("#undef main")
    if guard:
        out.append("#endif")


def emit_table(blocks, out):
    out.append("int main() {")
    out.append("  const doc_blocks::Block blocks[] = {")
    for block in blocks:
        if block.mode not in ("main", "program"):
            continue
        name = f"doc_block_{block.line}"
        guard = " && ".join(f"defined(STRIDED_HAVE_{dep.upper()})" for dep in sorted(block.needs))
        expected = cpp_string(block.expected) if block.expected is not None else "nullptr"
        entry = f'{{"{block.where}", {{name}}, {expected}, "{" ".join(sorted(block.needs))}"}},'
        if guard:
            out.append(f"#if {guard}")
            out.append("    " + entry.replace("{name}", name))
            out.append("#else")
            out.append("    " + entry.replace("{name}", "nullptr"))
            out.append("#endif")
        else:
            out.append("    " + entry.replace("{name}", name))
    if not any(b.mode in ("main", "program") for b in blocks):
        out[-1:] = ["  return doc_blocks::run_all({});"]
    else:
        out.append("  };")
        out.append("  return doc_blocks::run_all(blocks);")
    out.append("}")


def generate_page(root, page, blocks):
    compiled = [b for b in blocks if b.mode in ("main", "file", "program") and not b.errors]
    if not compiled:
        return None
    needs = set().union(*(b.needs for b in compiled))
    out = [f"// Generated by tests/doc_blocks.py from {page.as_posix()}: edit that page instead."]
    out += [f"#include <{h}>" for h in PRELUDE_STD]
    out += [f"#include <{h}>" for h in prelude_headers(root)]
    for dep in sorted(needs):
        out.append(f"#if defined(STRIDED_HAVE_{dep.upper()})")
        out.append(f"#include <{DEP_PATTERNS[dep][1]}>")
        out.append("#endif")
    out.append('#include "doc_blocks_runner.hpp"')
    for block in compiled:
        emit_block(block, out)
    emit_table(compiled, out)
    return "\n".join(out) + "\n"


def parse_all(root):
    result = {}
    for page in pages(root):
        blocks = parse_page(root, page)
        check_page(blocks)
        result[page] = blocks
    return result


def target_name(page):
    return "doc_" + re.sub(r"[^A-Za-z0-9]+", "_", page.stem).lower()


def generate(root, out_dir):
    out_dir.mkdir(parents=True, exist_ok=True)
    listing = []
    for page, blocks in parse_all(root).items():
        source = generate_page(root, page, blocks)
        if source is None:
            continue
        name = target_name(page)
        path = out_dir / f"{name}.cpp"
        if not path.exists() or path.read_text(encoding="utf-8") != source:
            path.write_text(source, encoding="utf-8")  # unchanged: no rebuild
        listing.append(f"{name} {page.as_posix()}")
    (out_dir / "pages.txt").write_text("\n".join(listing) + "\n", encoding="utf-8")
    return 0


def lint(root):
    errors, marked = 0, 0
    for blocks in parse_all(root).values():
        for block in blocks:
            marked += block.mode is not None or block.snippet is not None
            for error in block.errors:
                print(f"{block.where}: {error}")
                errors += 1
    print(f"doc_blocks lint: {marked} marked blocks, {errors} error(s)")
    return 1 if errors or marked == 0 else 0


LINK = re.compile(r"\]\(([^)\s]+)\)")
# Repository paths in `code`: a top-level folder of the repository, then a path.
CODE_PATH = re.compile(r"`((?:include|tests|bench|examples|docs|cmake|\.ci)/[^`\s]*)`")
HEADER = re.compile(r"(?:`|#include <)(strided/[\w/]+\.hpp)(?:`|>)")


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(text):
    """The anchors a page defines: its headings (outside code blocks), numbered when repeated
    as GitHub does (`name`, `name-1`, ...), and explicit `<a id="...">` / `<a name="...">`."""
    found, seen, fence = set(), {}, None
    for line in text.split("\n"):
        match = FENCE.match(line)
        if match:
            if fence is None:
                fence = match.group(1)
            elif match.group(1).startswith(fence) and not match.group(2):
                fence = None
            continue
        if fence:
            continue
        heading = re.match(r"^#{1,6}\s+(.*?)\s*$", line)
        if heading:
            name = slug(heading.group(1))
            count = seen.get(name, 0)
            seen[name] = count + 1
            found.add(name if count == 0 else f"{name}-{count}")
        found.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", line))
    return found


def named_paths(page, text):
    """(line, path relative to the root, as written, anchor or None) for every repository path
    the page names; the anchor is that of a link to a page (`other.md#section`, `#section`)."""
    for number, line in enumerate(text.split("\n"), start=1):
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target):
                continue  # a URL
            path, _, anchor = target.partition("#")
            resolved = (page.parent / path).as_posix() if path else page.as_posix()
            yield number, resolved, target, anchor or None
        for path in CODE_PATH.findall(line):
            if not re.search(r"[<>*{}…]|\.\.\.", path):  # a pattern, not a path
                yield number, path.split("#")[0], path, None
        for header in HEADER.findall(line):
            yield number, f"include/{header}", header, None


def normalise(path):
    """a/b/../c -> a/c."""
    parts = []
    for part in pathlib.PurePosixPath(path).parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def examples(root):
    """Every program in examples/ (its .cpp, and a Python half's .py) is linked from
    docs/examples.md, so that a new example cannot be left off the page."""
    page = pathlib.Path("docs/examples.md")
    text = (root / page).read_text(encoding="utf-8")
    linked = {normalise((page.parent / target.partition("#")[0]).as_posix())
              for target in LINK.findall(text)}
    programs = sorted(p.relative_to(root).as_posix() for pattern in ("*.cpp", "*.py")
                      for p in (root / "examples").glob(pattern))
    missing = [p for p in programs if p not in linked]
    for path in missing:
        print(f"{page}: does not link {path} (add it to the table of programs)")
    print(f"doc_blocks examples: {len(programs)} programs, {len(missing)} not on {page}")
    return 1 if missing or not programs else 0


def links(root):
    errors, checked = 0, 0
    notebook = [pathlib.Path("bench/NOTEBOOK.md")] if (root / "bench/NOTEBOOK.md").exists() else []
    for page in pages(root) + notebook:
        text = (root / page).read_text(encoding="utf-8")
        for number, path, written, anchor in named_paths(page, text):
            checked += 1
            resolved = normalise(path)
            if not (root / resolved).exists():
                print(f"{page}:{number}: '{written}' names {resolved}, which does not exist")
                errors += 1
            elif anchor is not None and resolved.endswith(".md"):
                if anchor not in anchors((root / resolved).read_text(encoding="utf-8")):
                    print(f"{page}:{number}: '{written}': {resolved} has no heading with the "
                          f"anchor #{anchor}")
                    errors += 1
    print(f"doc_blocks links: {checked} paths checked, {errors} missing")
    return 1 if errors or checked == 0 else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "generate":
        return generate(pathlib.Path(argv[2]), pathlib.Path(argv[3]))
    if len(argv) == 3 and argv[1] == "lint":
        return lint(pathlib.Path(argv[2]))
    if len(argv) == 3 and argv[1] == "links":
        return links(pathlib.Path(argv[2]))
    if len(argv) == 3 and argv[1] == "examples":
        return examples(pathlib.Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
