#!/usr/bin/env python3
"""Tests of tests/doc_blocks.py on small pages written to a temporary directory (CTest:
docs.blocks.selftest). The real pages are checked by docs.blocks.lint, docs.links and docs.<page>."""

import contextlib
import io
import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import doc_blocks  # noqa: E402


class Tree:
    """A fake repository: README.md, docs/<page>.md, include/strided/tensor.hpp, other files."""

    def __init__(self, test, pages, files=()):
        self.dir = tempfile.TemporaryDirectory()
        test.addCleanup(self.dir.cleanup)
        self.root = pathlib.Path(self.dir.name)
        (self.root / "docs").mkdir()
        (self.root / "include" / "strided" / "io").mkdir(parents=True)
        (self.root / "include" / "strided" / "tensor.hpp").write_text("#pragma once\n")
        (self.root / "include" / "strided" / "format.hpp").write_text("#include <fmt/format.h>\n")
        (self.root / "README.md").write_text("# readme\n")
        for name, text in pages.items():
            (self.root / name).write_text(text)
        for name in files:
            (self.root / name).parent.mkdir(parents=True, exist_ok=True)
            (self.root / name).write_text("x\n")

    def run(self, command):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = getattr(doc_blocks, command)(self.root)
        return status, out.getvalue()

    def generated(self, page="docs/page.md"):
        out_dir = self.root / "out"
        doc_blocks.generate(self.root, out_dir)
        name = doc_blocks.target_name(pathlib.Path(page))
        path = out_dir / f"{name}.cpp"
        return path.read_text() if path.exists() else None


def page(*parts):
    return {"docs/page.md": "\n".join(parts) + "\n"}


class LintTest(unittest.TestCase):
    def lint(self, *parts):
        return Tree(self, page(*parts)).run("lint")

    def test_marked_blocks_pass(self):
        status, out = self.lint("<!-- compile: main -->", "```cpp", "int x = 1;", "```", "",
                                "<!-- compile: synopsis -->", "```cpp", "void f();", "```")
        self.assertEqual(status, 0, out)
        self.assertIn("2 marked blocks, 0 error(s)", out)

    def test_unmarked_cpp_block_fails(self):
        status, out = self.lint("Text.", "", "```cpp", "int x = 1;", "```")
        self.assertEqual(status, 1)
        self.assertIn("docs/page.md:4: C++ block without a <!-- compile: ... --> marker", out)

    def test_unknown_mode_and_dependency_fail(self):
        status, out = self.lint("<!-- compile: mian -->", "```cpp", "int x;", "```", "",
                                "<!-- compile: main, needs: boost -->", "```cpp", "int y;", "```")
        self.assertEqual(status, 1)
        self.assertIn("unknown compile mode 'mian'", out)
        self.assertIn("unknown dependency 'boost'", out)

    def test_output_needs_a_block_above(self):
        status, out = self.lint("<!-- output -->", "```text", "1", "```")
        self.assertEqual(status, 1)
        self.assertIn("<!-- output --> with no main/program block above it", out)

    def test_excerpt_needs_a_snippet_marker(self):
        status, out = self.lint("<!-- compile: excerpt -->", "```cpp", "int x;", "```")
        self.assertEqual(status, 1)
        self.assertIn("'excerpt' needs a <!-- snippet: <file> --> marker", out)

    def test_cmake_block_must_come_from_a_consumer_project(self):
        status, out = self.lint("```cmake", "find_package(strided)", "```")
        self.assertEqual(status, 1)
        self.assertIn("CMake block not taken from a consumer project", out)
        status, out = self.lint("<!-- snippet: tests/package/find_package/CMakeLists.txt -->",
                                "```cmake", "find_package(strided)", "```")
        self.assertEqual(status, 0, out)

    def test_no_marked_block_at_all_fails(self):
        status, out = self.lint("Only text.")
        self.assertEqual(status, 1)
        self.assertIn("0 marked blocks", out)


class LinksTest(unittest.TestCase):
    def test_existing_paths_pass(self):
        pages = page("# Top", "See [the other page](other.md#a-section-sizes), [home](../README.md),",
                     "`tests/foo_test.cpp`, `strided/tensor.hpp`, `tests/<name>_test.cpp`,",
                     "[a site](https://example.org/x), [here](#top) and [again](other.md#a-1).")
        pages["docs/other.md"] = "# A\n\n## A section (`sizes`)\n\n# A\n"
        tree = Tree(self, pages, files=["tests/foo_test.cpp"])
        status, out = tree.run("links")
        self.assertEqual(status, 0, out)
        self.assertIn("6 paths checked, 0 missing", out)

    def test_missing_anchors_fail(self):
        pages = page("[there](other.md#b), [here](#nowhere), [fenced](other.md#not-a-heading)",
                     "<a id=\"kept\"></a>[kept](#kept)")
        pages["docs/other.md"] = "# A\n\n```sh\n# not a heading\n```\n"
        status, out = Tree(self, pages).run("links")
        self.assertEqual(status, 1)
        self.assertIn("docs/page.md:1: 'other.md#b': docs/other.md has no heading with the anchor "
                      "#b", out)
        self.assertIn("'#nowhere': docs/page.md has no heading", out)
        self.assertIn("'other.md#not-a-heading'", out)
        self.assertNotIn("#kept", out)
        self.assertIn("4 paths checked, 3 missing", out)

    def test_missing_paths_fail(self):
        tree = Tree(self, page("[gone](gone.md)", "`bench/none.cpp`", "#include <strided/nothing.hpp>"))
        status, out = tree.run("links")
        self.assertEqual(status, 1)
        self.assertIn("docs/page.md:1: 'gone.md' names docs/gone.md, which does not exist", out)
        self.assertIn("docs/page.md:2: 'bench/none.cpp' names bench/none.cpp", out)
        self.assertIn("docs/page.md:3: 'strided/nothing.hpp' names include/strided/nothing.hpp",
                      out)


class ExamplesTest(unittest.TestCase):
    def test_every_program_linked(self):
        pages = {"docs/examples.md": "[`a`](../examples/a.cpp) + [`.py`](../examples/a.py)\n"}
        tree = Tree(self, pages, files=["examples/a.cpp", "examples/a.py", "examples/expected/a.txt"])
        status, out = tree.run("examples")
        self.assertEqual(status, 0, out)
        self.assertIn("2 programs, 0 not on", out)

    def test_a_program_missing_from_the_page_fails(self):
        pages = {"docs/examples.md": "[`a`](../examples/a.cpp)\n"}
        tree = Tree(self, pages, files=["examples/a.cpp", "examples/b.cpp", "examples/b.py"])
        status, out = tree.run("examples")
        self.assertEqual(status, 1)
        self.assertIn("does not link examples/b.cpp", out)
        self.assertIn("does not link examples/b.py", out)


def load_tables():
    """docs/figures/tables.py, which writes and checks the generated tables (docs.tables)."""
    import importlib.util
    path = pathlib.Path(__file__).resolve().parent.parent / "docs" / "figures" / "tables.py"
    spec = importlib.util.spec_from_file_location("tables", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TablesTest(unittest.TestCase):
    CSV = ("# a comment\n"
           "case,avx512,avx2,avx512_2t,avx2_2t,numpy,pytorch,eigen,xtensor\n"
           "transpose_4096x4096_f32,1.22,1.17,1.33,1.37,17.12,3.55,,16.20\n")
    REGION = ["<!-- generated: copy-avx2 (docs/figures/tables.py) -->",
              "| view made contiguous (× `memcpy`) | strided (avx2) | NumPy | PyTorch | Eigen | xtensor |",
              "| --- | --- | --- | --- | --- | --- |",
              "| `transpose_4096x4096_f32` | 1.17 | 17.1 | 3.55 | — | 16.2 |",
              "<!-- end generated -->"]

    def tree(self, *parts):
        tree = Tree(self, page(*parts))
        (tree.root / "docs" / "figures").mkdir()
        (tree.root / "docs" / "figures" / "copy.csv").write_text(self.CSV)
        (tree.root / "docs" / "figures" / "comparison.md").write_text(
            "| x | [measured](docs/performance.md) {transpose_4096x4096_f32.numpy} |\n")
        return tree

    def run_tables(self, tree, mode):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = load_tables().run(mode, tree.root)
        return status, out.getvalue()

    def test_current_table_passes(self):
        status, out = self.run_tables(self.tree("text", *self.REGION, "more"), "check")
        self.assertEqual(status, 0, out)

    def test_stale_table_fails_and_write_fixes_it(self):
        stale = list(self.REGION)
        stale[3] = stale[3].replace("1.17", "1.50")
        tree = self.tree(*stale)
        status, out = self.run_tables(tree, "check")
        self.assertEqual(status, 1)
        self.assertIn("stale generated tables in docs/page.md", out)
        self.assertEqual(self.run_tables(tree, "write")[0], 0)
        self.assertIn(self.REGION[3], (tree.root / "docs/page.md").read_text())
        self.assertEqual(self.run_tables(tree, "check")[0], 0)

    def test_unknown_table_and_missing_end_fail(self):
        status, out = self.run_tables(
            self.tree("<!-- generated: nope (docs/figures/tables.py) -->", "<!-- end generated -->",
                      "<!-- generated: threads (docs/figures/tables.py) -->"), "check")
        self.assertEqual(status, 1)
        self.assertIn("unknown generated table 'nope'", out)
        self.assertIn("'threads' has no '<!-- end generated -->'", out)

    def test_comparison_links_are_relative_to_the_page(self):
        tree = self.tree("<!-- generated: comparison (docs/figures/tables.py) -->",
                         "<!-- end generated -->")
        (tree.root / "README.md").write_text((tree.root / "docs/page.md").read_text())
        self.run_tables(tree, "write")
        self.assertIn("| x | [measured](performance.md) 17.1 |",
                      (tree.root / "docs/page.md").read_text())
        self.assertIn("| x | [measured](docs/performance.md) 17.1 |",
                      (tree.root / "README.md").read_text())


class GenerateTest(unittest.TestCase):
    def test_main_block_with_hidden_setup_and_output(self):
        tree = Tree(self, page("<!-- compile: main", "int seven = 7;", "-->", "```cpp",
                         "std::cout << seven << '\\n';", "```", "", "<!-- output -->", "```text",
                         "7", "```"))
        source = tree.generated()
        self.assertIn("static int doc_block_5() {", source)
        self.assertIn('#line 2 "docs/page.md"\nint seven = 7;', source)
        self.assertIn('#line 5 "docs/page.md"\nstd::cout << seven', source)
        self.assertIn('{"docs/page.md:5", doc_block_5, R"doc_block(7\n)doc_block", ""},', source)
        self.assertIn("#include <strided/tensor.hpp>", source)
        self.assertNotIn("#include <strided/format.hpp>\n#include \"doc", source)

    def test_block_needing_a_library_is_guarded(self):
        tree = Tree(self, page("<!-- compile: main -->", "```cpp", 'fmt::print("{}", 1);', "```"))
        source = tree.generated()
        self.assertIn("#if defined(STRIDED_HAVE_FMT)\n#include <strided/format.hpp>\n#endif", source)
        self.assertIn('#else\n    {"docs/page.md:3", nullptr, nullptr, "fmt"},', source)

    def test_program_and_file_blocks(self):
        tree = Tree(self, page("<!-- compile: file -->", "```cpp", "struct Cents { long v; };", "```",
                         "<!-- compile: program -->", "```cpp", "int main() { return 0; }", "```"))
        source = tree.generated()
        self.assertIn('#line 3 "docs/page.md"\nstruct Cents { long v; };', source)
        self.assertIn("#define main doc_block_7\n", source)
        self.assertIn("#undef main", source)

    def test_page_without_compiled_blocks_gets_no_program(self):
        tree = Tree(self, page("<!-- compile: synopsis -->", "```cpp", "void f();", "```"))
        self.assertIsNone(tree.generated())


@unittest.skipUnless(os.environ.get("DOC_BLOCKS_CXX"), "DOC_BLOCKS_CXX names no compiler")
class RunTest(unittest.TestCase):
    """Generated programs built with the compiler CTest passes in, against a fake strided."""

    def run_page(self, *parts):
        tree = Tree(self, page(*parts))
        source = tree.generated()
        exe = tree.root / "page"
        here = pathlib.Path(__file__).resolve().parent
        subprocess.run([os.environ["DOC_BLOCKS_CXX"], "-std=c++20", f"-I{tree.root / 'include'}",
                        f"-I{here}", "-x", "c++", "-", "-o", str(exe)], input=source, text=True,
                       check=True)
        return subprocess.run([str(exe)], capture_output=True, text=True)

    def test_matching_output_passes(self):
        run = self.run_page("<!-- compile: main -->", "```cpp", 'std::cout << "a\\n";', "```",
                            "<!-- output -->", "```text", "a", "```")
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("ok docs/page.md:3 (output compared)", run.stdout)

    def test_stale_output_fails(self):
        run = self.run_page("<!-- compile: main -->", "```cpp", 'std::cout << "b\\n";', "```",
                            "<!-- output -->", "```text", "a", "```")
        self.assertEqual(run.returncode, 1)
        self.assertIn("FAILED docs/page.md:3: the page's output block is stale", run.stdout)

    def test_a_block_that_returns_non_zero_fails(self):
        run = self.run_page("<!-- compile: main -->", "```cpp", "return 3;", "```",
                            "<!-- compile: program -->", "```cpp", "int main() { return 0; }",
                            "```")
        self.assertEqual(run.returncode, 1)
        self.assertIn("FAILED docs/page.md:3: returned 3", run.stdout)
        self.assertIn("ok docs/page.md:7", run.stdout)

    def test_a_block_without_its_library_is_skipped(self):
        run = self.run_page("<!-- compile: main, needs: dlpack -->", "```cpp", "return 3;", "```")
        self.assertEqual(run.returncode, 0, run.stdout)
        self.assertIn("SKIPPED docs/page.md:3: needs dlpack", run.stdout)


if __name__ == "__main__":
    unittest.main()
