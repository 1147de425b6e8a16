#!/usr/bin/env python3
"""Fails when the public API names `detail::`.

    public_api_check.py ROOT             check include/strided (not detail/), README.md, docs/*.md
    public_api_check.py --selftest       check the checker on small made-up headers

A public header may use `detail::` inside function bodies, inside `namespace detail { ... }`, in
private or protected members, in `static_assert`s and friend class declarations. Anywhere else --
a return or parameter type, a base class, a template argument, a requires clause, a public data
member, an alias -- it is in the signature a user reads, and is reported. A doc page may not name
`detail::` at all, except the contributor pages listed in CONTRIBUTOR_PAGES, which describe the
engines themselves.

The scanner removes comments, string literals and preprocessor lines, then walks the braces of
each header, classifying every `{` by the declaration before it (namespace, class, enum,
function body or initializer), so that it needs no compiler and takes a fraction of a second.
"""
import re
import sys
from pathlib import Path

CONTRIBUTOR_PAGES = {"design.md", "performance.md"}

# Places known to name detail:: that are still to be moved out of the public surface: (file, a
# piece of the declaration as the scanner prints it, or of the doc line). They are listed, not
# failed; an entry that no longer matches anything fails the check, so the list only shrinks.
KNOWN = []

TOKEN = re.compile(r"[A-Za-z_]\w*|::|->|\.\.\.|\d[\w.']*|\S")
CLASS_KEYS = {"class", "struct", "union"}


def strip_code(text):
    """`text` with comments, string and char literals blanked and preprocessor lines removed."""
    out, i, n = [], 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":  # a directive, with its continuation lines
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if c == "\n":
            at_line_start = True
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
            out.append(" ")
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:i + 40])
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            close = ")" + raw.group(1) + '"'
            j = text.find(close, i + raw.end())
            i = n if j < 0 else j + len(close)
            out.append('""')
            continue
        if c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator: 1'000
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


def tokens_with_lines(code):
    line = 1
    pos = 0
    for m in TOKEN.finditer(code):
        line += code.count("\n", pos, m.start())
        pos = m.start()
        yield m.group(0), line


class Scope:
    def __init__(self, kind, access="public", hidden=False):
        self.kind = kind  # "namespace" | "class"
        self.access = access
        self.hidden = hidden  # inside namespace detail: nothing here is public


def skip_braces(toks, i):
    """Index after the `}` matching the `{` at toks[i]."""
    depth = 0
    while i < len(toks):
        if toks[i][0] == "{":
            depth += 1
        elif toks[i][0] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def without_template_heads(stmt):
    """`stmt` after its leading `template <...>` heads (angle brackets counted outside ())."""
    k = 0
    while k < len(stmt) and stmt[k] == "template" and k + 1 < len(stmt) and stmt[k + 1] == "<":
        angle, paren, k = 0, 0, k + 1
        while k < len(stmt):
            t = stmt[k]
            paren += (t in ("(", "[")) - (t in (")", "]"))
            if paren == 0:
                angle += (t == "<") - (t == ">")
            k += 1
            if angle == 0:
                break
    return stmt[k:]


def first_top_level(stmt, wanted):
    """Index of the first token in `wanted` outside () and [], or None."""
    depth = 0
    for k, t in enumerate(stmt):
        if depth == 0 and t in wanted and not (k > 0 and stmt[k - 1] == "operator"):
            return k
        if t in ("(", "["):
            depth += 1
        elif t in (")", "]"):
            depth -= 1
    return None


def ctor_init_start(stmt):
    """Index of the `:` opening a constructor's member-initializer list, or None."""
    depth, seen_params = 0, False
    for k, t in enumerate(stmt):
        if t == "(":
            depth += 1
        elif t == ")":
            depth -= 1
            seen_params = seen_params or depth == 0
        elif t == ":" and depth == 0 and seen_params:
            return k
    return None


def classify(stmt):
    """What a `{` after the declaration tokens `stmt` opens."""
    if "namespace" in stmt:
        return "namespace"
    words = without_template_heads(stmt)
    if "enum" in words[:3]:
        return "skip"
    eq, paren = first_top_level(words, {"="}), first_top_level(words, {"("})
    if eq is not None and (paren is None or eq < paren):
        return "skip"  # an initializer: `X x = {...}`, `auto f = [](...) {...}`
    if paren is not None:
        return "ctor" if ctor_init_start(words) is not None else "body"
    if any(w in CLASS_KEYS for w in words):
        return "class"
    return "skip"  # `X x{...}`: a braced initializer


def signature_hits(stmt_toks):
    """Lines where `detail ::` occurs in a public declaration's tokens."""
    texts = [t for t, _ in stmt_toks]
    if not texts:
        return []
    if texts[0] in ("static_assert", "using") and texts[:2] == ["using", "namespace"]:
        return []
    if texts[0] == "static_assert":
        return []
    if texts[0] == "friend" and len(texts) > 1 and texts[1] in CLASS_KEYS and "(" not in texts:
        return []
    cut = ctor_init_start(texts)
    if cut is not None:
        stmt_toks = stmt_toks[:cut]
    body = without_template_heads(texts)
    if "using" not in body[:1]:  # a variable's or concept's initializer is its definition
        eq = first_top_level(body, {"="})
        if eq is not None:
            stmt_toks = stmt_toks[:len(texts) - len(body) + eq]
    hits = []
    for k in range(len(stmt_toks) - 1):
        if stmt_toks[k][0] == "detail" and stmt_toks[k + 1][0] == "::":
            if k > 0 and stmt_toks[k - 1][0] == "::" and k > 1 and stmt_toks[k - 2][0] not in (
                    "strided", ",", "(", "<", "=", ";", "{", "}"):
                continue  # some_other_library::detail::, not ours
            hits.append(stmt_toks[k][1])
    return hits


def scan_header(text):
    """(line, declaration text) of each public declaration naming detail::."""
    toks = list(tokens_with_lines(strip_code(text)))
    scopes = [Scope("namespace")]
    stmt = []
    found = []

    def report(stmt_toks):
        scope = scopes[-1]
        if scope.hidden or (scope.kind == "class" and scope.access != "public"):
            return
        for line in signature_hits(stmt_toks):
            found.append((line, " ".join(t for t, _ in stmt_toks)))

    i = 0
    while i < len(toks):
        t, line = toks[i]
        scope = scopes[-1]
        if scope.kind == "class" and t in ("public", "private", "protected") and (
                i + 1 < len(toks) and toks[i + 1][0] == ":") and not stmt:
            scope.access = t
            i += 2
            continue
        if t == ";":
            report(stmt)
            stmt = []
        elif t == "{":
            words = [w for w, _ in stmt]
            kind = classify(words)
            if kind == "namespace":
                name = words[words.index("namespace") + 1:] if "namespace" in words else []
                hidden = scope.hidden or "detail" in name
                scopes.append(Scope("namespace", hidden=hidden))
                stmt = []
                i += 1
                continue
            if kind == "class":
                report(stmt)
                key = next(w for w in words if w in CLASS_KEYS)
                hidden = scope.hidden or (scope.kind == "class" and scope.access != "public")
                scopes.append(Scope("class", "private" if key == "class" else "public", hidden))
                stmt = []
                i += 1
                continue
            if kind == "ctor" and words and (words[-1].isidentifier() or words[-1] == ">"):
                i = skip_braces(toks, i)  # a member initializer `a_{x}`: still in the list
                stmt.append(("{}", line))
                continue
            if kind in ("body", "ctor"):
                report(stmt)
                stmt = []
                i = skip_braces(toks, i)
                continue
            # an initializer or enum: its contents are not a signature, the declaration goes on
            i = skip_braces(toks, i)
            stmt.append(("{}", line))
            continue
        elif t == "}":
            if len(scopes) > 1:
                scopes.pop()
            stmt = []
            # `} name;` after a class: the declaration continues, nothing to report
        else:
            stmt.append((t, line))
        i += 1
    return found


def check_docs(root):
    found = []
    pages = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    for page in pages:
        if not page.exists() or page.name in CONTRIBUTOR_PAGES:
            continue
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if "detail::" in line:
                found.append((page.relative_to(root), n, line.strip()))
    return found


def public_headers(root):
    base = root / "include" / "strided"
    for path in sorted(base.rglob("*.hpp")) + sorted(base.rglob("*.h")):
        if "detail" not in path.relative_to(base).parts:
            yield path


def is_known(path, text, used):
    for k, (known_path, piece) in enumerate(KNOWN):
        if str(path) == known_path and piece in text:
            used.add(k)
            return True
    return False


def check(root):
    problems, known, used = [], [], set()
    for path in public_headers(root):
        rel = path.relative_to(root)
        for line, decl in scan_header(path.read_text(encoding="utf-8")):
            text = f"{rel}:{line}: public declaration names detail::\n    {decl[:160]}"
            (known if is_known(rel.as_posix(), decl, used) else problems).append(text)
    for page, line, text in check_docs(root):
        entry = f"{page}:{line}: a user doc names detail::\n    {text[:160]}"
        (known if is_known(page.as_posix(), text, used) else problems).append(entry)
    for k, (path, piece) in enumerate(KNOWN):
        if k not in used:
            problems.append(f"{path}: KNOWN entry matches nothing (fixed? remove it): {piece}")
    for p in problems:
        print(p)
    print(f"public API: {len(known)} known place(s) still name detail:: (KNOWN in "
          "tests/public_api_check.py)")
    if problems:
        print(f"{len(problems)} problem(s): a public declaration or user doc names detail:: "
              "(tests/public_api_check.py says what is allowed)")
        return 1
    print("public API: no new detail:: in public declarations or user docs")
    return 0


SELFTEST = [
    # (header text, expected number of hits)
    ("namespace strided { namespace detail { struct R {}; R f(); } }", 0),
    ("namespace strided { detail::R f(); }", 1),
    ("namespace strided { inline int f() { return detail::g(); } }", 0),
    ("namespace strided { void f(detail::R r); }", 1),
    ("namespace strided { class L { public: constexpr detail::R reach() const noexcept"
     " { return detail::r(); } private: detail::R r_; }; }", 1),
    ("namespace strided { class L { detail::R r_; public: int n() const { return 0; } }; }", 0),
    ("namespace strided { struct S { detail::R r; }; }", 1),
    ("namespace strided { template <class T> requires detail::ok<T> void f(T); }", 1),
    ("namespace strided { template <class U> auto g() const requires(detail::ok_v<U>) {} }", 1),
    ("namespace strided { using Shape = detail::SmallVector<int>; }", 1),
    ("namespace strided { class T : public detail::Base { }; }", 1),
    ("namespace strided { class T { public: T(int x) : a_{detail::x(x)}, b_(detail::y()) {}"
     " private: int a_, b_; }; }", 0),
    ("namespace strided { class T { public: T(int x) : a_(x) { detail::f(); }"
     " detail::R bad(); int a_; }; }", 1),
    ("namespace strided { static_assert(detail::ok<int>); }", 0),
    ("namespace strided { // detail::R f();\n /* detail::R g(); */ const char* s = \"detail::\"; }",
     0),
    ("#define STRIDED_X detail::f()\nnamespace strided { int y; }", 0),
    ("namespace strided { class A { friend struct detail::Access; }; }", 0),
    ("namespace strided { struct A { friend void swap(A&, detail::R&); }; }", 1),
    ("namespace strided { enum class K { a, b }; detail::R after_enum(); }", 1),
    ("namespace strided { inline constexpr auto f = [](int x) { return detail::g(x); }; }", 0),
    ("namespace strided { template <class T> struct X { public: Result<detail::R> h(); }; }", 1),
    ("namespace strided { struct X { std::vector<int> v{1, 2}; detail::R h(); }; }", 1),
    ("namespace strided { namespace shape_errors { void describe(detail::M& m); } }", 1),
    ("namespace strided { template <class S> concept Sample = detail::info<S>::value; }", 0),
    ("namespace strided { inline constexpr bool on = detail::flag; }", 0),
    ("namespace strided { template <class S> using batch_t = typename detail::info<S>::b; }", 1),
    ("namespace strided { void f(int x = detail::k); }", 1),
    ("namespace strided { template <class T = detail::D> void f(); }", 1),
    ("namespace strided { class R { union S { S(detail::tag); }; public: R(); }; }", 0),
    ("namespace strided { class R { public: union S { S(detail::tag); }; }; }", 1),
    ("namespace strided { struct A { A& operator=(const detail::R&); }; }", 1),
    ("namespace strided { template <class S> class Types { using Info = detail::info<S>;"
     " public: using batch = typename Info::batch; }; }", 0),
    ("namespace strided { template <class S> class Types { public: using Info = detail::info<S>;"
     " }; }", 1),
    ("template <strided::detail::P T> struct fmt::formatter<strided::Tensor<T>> { private:"
     " strided::detail::Spec spec_; };", 1),
    ("template <strided::P T> struct fmt::formatter<strided::Tensor<T>> { private:"
     " strided::detail::Spec spec_; };", 0),
]


def selftest():
    failed = 0
    for text, want in SELFTEST:
        got = len(scan_header(text))
        if got != want:
            print(f"selftest: {got} hit(s), want {want}: {text}")
            failed += 1
    print(f"selftest: {len(SELFTEST) - failed} of {len(SELFTEST)} cases pass")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--selftest"]:
        sys.exit(selftest())
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(check(Path(sys.argv[1])))
